package command_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/methods/command"
	_ "github.com/repro-ml/repro/plugins"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// spec returns an experiment on the embedded DNA data with logreg-l2 and
// a command method whose params are cmd (YAML flow mappings' entries).
func peersSpec(t *testing.T, cmd string) string {
	t.Helper()
	fake, err := filepath.Abs("testdata/fake-learner.sh")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(`name: peers-test
seed: 1
datasets:
  - name: dna-splice
    id: splice
    params: {classes: [ei, ie], encoding: bits}
    split: {kind: holdout, test: 100, stratify: true}
methods:
  - name: logreg-l2
    label: LR
  - name: command
    label: peer
    params:
`+cmd+`
curve: {sizes: [40], trials: 2, sampling: stratified}
metrics: [accuracy]
`, "FAKE", fake)
}

// A failing program fails its own trials, with its exit status and
// stderr in results.jsonl; the other method's trials run.
func TestRunFailingProgram(t *testing.T) {
	s, err := spec.Parse("peers.yaml", []byte(peersSpec(t, `      train: [/bin/sh, FAKE, fail, "3", "{train}"]
      predict: [/bin/sh, FAKE, predict, "{test}"]`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := runner.Run(context.Background(), s, runner.Options{Dir: dir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 4 || sum.Failed != 2 {
		t.Errorf("ran %d trials, %d failed; want 4 and 2", sum.Ran, sum.Failed)
	}
	recs, _, err := results.ReadResults(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		switch r.Method {
		case "LR":
			if r.Failed() {
				t.Errorf("LR trial %d failed: %s", r.Trial, r.Error)
			}
		case "peer":
			for _, want := range []string{"train program /bin/sh exited with status 3", "error line 12"} {
				if !strings.Contains(r.Error, want) {
					t.Errorf("peer trial %d: error %q; want it to contain %q", r.Trial, r.Error, want)
				}
			}
		}
	}
}

// A succeeding program is a series like any other, with its wall time as
// its fit time.
func TestRunProgram(t *testing.T) {
	s, err := spec.Parse("peers.yaml", []byte(peersSpec(t, `      train: [/bin/sh, FAKE, train, "{train}", "{model}"]
      predict: [/bin/sh, FAKE, predict, "{test}", "{model}", "{predictions}"]`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := runner.Run(context.Background(), s, runner.Options{Dir: dir, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if r.Failed() {
			t.Errorf("%s trial %d failed: %s", r.Method, r.Trial, r.Error)
		}
		if r.Method == "peer" && (r.Metrics["accuracy"] != 50 || !(r.FitSeconds > 0)) {
			// The fake predicts the majority class of a stratified
			// training set, ei or ie, and the test set is half of each.
			t.Errorf("peer trial %d: accuracy %v, fit %v s; want 50 (the majority class) and a positive time", r.Trial, r.Metrics["accuracy"], r.FitSeconds)
		}
	}
}

// Bad placeholders and grid names are reported at their line and column.
func TestPositions(t *testing.T) {
	_, err := spec.Parse("peers.yaml", []byte(peersSpec(t, `      train: [liblinear-train, -c, "{c}", "{train}", "{model}"]
      predict: [liblinear-predict, "{test}", "{modle}", "{predictions}"]
      C: [1, 10]
      gamma: 2`)), nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`peers.yaml:14:36: methods[1].params.train[2]: unknown placeholder {c} (did you mean {C}?)`,
		`peers.yaml:15:46: methods[1].params.predict[2]: unknown placeholder {modle} (did you mean {model}?)`,
		`peers.yaml:16:11: methods[1].params.C[0]: unused: neither train nor predict has {C}`,
		`peers.yaml:17:14: methods[1].params.gamma: unused: neither train nor predict has {gamma}`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\nwant it to contain\n%s", err, want)
		}
	}
}

// memory_mb takes part in --mem-limit: a fit declared above the limit is
// refused before the program starts, failing its trials alone.
func TestRunMemoryLimit(t *testing.T) {
	s, err := spec.Parse("peers.yaml", []byte(peersSpec(t, `      train: [/bin/sh, FAKE, train, "{train}", "{model}"]
      predict: [/bin/sh, FAKE, predict, "{test}", "{model}", "{predictions}"]
      memory_mb: 5000`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runner.Run(context.Background(), s, runner.Options{Dir: t.TempDir(), Workers: 1, MemLimit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if got := r.Failed(); got != (r.Method == "peer") {
			t.Errorf("%s trial %d failed %v (%s)", r.Method, r.Trial, got, r.Error)
		}
		if r.Method == "peer" && !strings.Contains(r.Error, "needs about 5 GB, over the limit of 1.07 GB") {
			t.Errorf("peer trial %d: error %q; want the memory limit's", r.Trial, r.Error)
		}
	}
}

// A failing predict program fails its trial with its own stderr, also
// through the runner's one-vs-rest decomposition (tasks: one-vs-rest).
func TestRunFailingPredict(t *testing.T) {
	for _, tasks := range []string{"", "one-vs-rest"} {
		t.Run("tasks="+tasks, func(t *testing.T) {
			src := peersSpec(t, `      train: [/bin/sh, FAKE, train, "{train}", "{model}"]
      predict: [/bin/sh, FAKE, fail, "5", "{test}"]`)
			if tasks != "" {
				src = strings.Replace(src, "    split: {kind: holdout", "    tasks: "+tasks+"\n    split: {kind: holdout", 1)
			}
			s, err := spec.Parse("peers.yaml", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := runner.Run(context.Background(), s, runner.Options{Dir: t.TempDir(), Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sum.Results {
				if got := r.Failed(); got != (r.Method == "peer") {
					t.Errorf("%s trial %d failed %v (%s)", r.Method, r.Trial, got, r.Error)
				}
				if r.Method == "peer" && !strings.Contains(r.Error, "predict program /bin/sh exited with status 5; its stderr ends:\n  error line 3\n") {
					t.Errorf("peer trial %d: error %q; want predict's status and stderr", r.Trial, r.Error)
				}
			}
		})
	}
}

// format: jsonl hands the program the documents of a text dataset, for
// the fits and the predictions of the runner (methods.PredictSet), also
// through one-vs-rest; with serve, one process serves them all with the
// same results.
func TestRunJSONL(t *testing.T) {
	fake, err := filepath.Abs("testdata/fake-learner.sh")
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs("../../docs/examples/austen")
	if err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(t.TempDir(), "starts")
	for _, tc := range []struct{ name, extra string }{
		{"programs", ""},
		{"one-vs-rest", ""},
		{"serve", `
      serve: [/bin/sh, FAKE, serve, STARTS]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tasks := ""
			if tc.name == "one-vs-rest" {
				tasks = "\n    tasks: one-vs-rest"
			}
			src := strings.NewReplacer("FAKE", fake, "STARTS", starts).Replace(`name: jsonl-test
seed: 1
datasets:
  - name: text
    id: austen
    params: {file: austen.jsonl, label: book, split: split}
    split: {kind: given}` + tasks + `
methods:
  - name: command
    label: peer
    params:
      format: jsonl
      train: [/bin/sh, FAKE, train, "{train}", "{model}"]
      predict: [/bin/sh, FAKE, predict, "{test}", "{model}", "{predictions}"]` + tc.extra + `
curve: {sizes: [40, 60], trials: 2, sampling: stratified}
metrics: [accuracy]
`)
			s, err := spec.Parse("jsonl.yaml", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := runner.Run(context.Background(), s, runner.Options{Dir: t.TempDir(), Workers: 2, DataDir: data})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Results) != 4 {
				t.Fatalf("%d results; want 4", len(sum.Results))
			}
			for _, r := range sum.Results {
				// Stratified training sets of two balanced classes: the
				// majority is the first class, and the given test split
				// holds 60 paragraphs of each book.
				if r.Failed() || r.Metrics["accuracy"] != 50 {
					t.Errorf("trial %d: accuracy %v, error %q; want 50 (the majority class of the documents' labels)", r.Trial, r.Metrics["accuracy"], r.Error)
				}
			}
		})
	}
	command.CloseServers()
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "start") > 2 {
		t.Errorf("the serve program started %d times for 4 trials on 2 workers; want at most 2", strings.Count(string(b), "start"))
	}
}
