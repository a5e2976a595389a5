package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
)

// commandSpec writes an experiment with a command method running the
// fake learner of methods/command through program, and returns its path.
func commandSpec(t *testing.T, program string) string {
	t.Helper()
	fake, err := filepath.Abs("methods/command/testdata/fake-learner.sh")
	if err != nil {
		t.Fatal(err)
	}
	spec := `name: iris-command
seed: 1
datasets:
  - name: iris
    split: {kind: holdout, test: 60, stratify: true}
methods:
  - name: logreg-l2
    label: LR
  - name: command
    label: peer
    params:
      train: [PROGRAM, FAKE, train, "{train}", "{model}"]
      predict: [PROGRAM, FAKE, predict, "{test}", "{model}", "{predictions}"]
curve: {sizes: [30], trials: 1, sampling: stratified}
metrics: [accuracy]
`
	spec = strings.NewReplacer("PROGRAM", program, "FAKE", fake).Replace(spec)
	path := filepath.Join(t.TempDir(), "command.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// repro validate prints the programs an experiment runs; --no-commands
// refuses them, in validate and in run; a program not on PATH is an error
// at its method's line and column.
func TestValidateCommands(t *testing.T) {
	t.Setenv(datasets.DataDirEnv, "")
	path := commandSpec(t, "sh")
	stdout, _ := mustCLI(t, exitOK, "validate", path)
	for _, want := range []string{
		"programs this experiment runs (command methods; placeholders in braces):\n",
		"  peer: sh /", // the script's path is absolute
		"train {train} {model}  [/",
		"predict {test} {model} {predictions}  [/",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("validate's output\n%s\nwant it to contain %q", stdout, want)
		}
	}
	for _, cmd := range []string{"validate", "run"} {
		_, stderr := mustCLI(t, exitUsage, cmd, path, "--no-commands")
		if !strings.Contains(stderr, path+`:9:5: method "peer" runs the program sh `) || !strings.Contains(stderr, "refused by --no-commands") {
			t.Errorf("%s --no-commands: stderr\n%s\nwant the method's position and the refusal", cmd, stderr)
		}
	}
	_, stderr := mustCLI(t, exitUsage, "validate", commandSpec(t, "repro-no-such-learner"))
	if !strings.Contains(stderr, `:9:5: method "peer": program repro-no-such-learner: exec: "repro-no-such-learner": executable file not found in $PATH; want it installed on PATH or an absolute path`) {
		t.Errorf("validate with a missing program: stderr\n%s", stderr)
	}
}
