package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/runner"
)

// TestSlurmScripts writes the sbatch scripts of the tiny spec and compares
// them with testdata/slurm.golden (the temporary directories replaced by
// $OUT and $DATA).
func TestSlurmScripts(t *testing.T) {
	tmp := t.TempDir()
	dir, data := filepath.Join(tmp, "out"), filepath.Join(tmp, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, _ := mustCLI(t, exitOK, "slurm", irisSpec, "--tasks", "4", "--partition", "short", "--time", "0:30:00",
		"--cpus-per-task", "2", "--mem", "2G", "-o", dir, "--data", data, "--repro", "/opt/repro/bin/repro",
		"--set", "curve.trials=3")
	var all strings.Builder
	all.WriteString(stdout)
	for _, name := range []string{"array.sbatch", "report.sbatch", "submit.sh"} {
		b, err := os.ReadFile(filepath.Join(dir, "slurm", name))
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString("\n==> " + name + " <==\n")
		all.Write(b)
	}
	got := strings.ReplaceAll(strings.ReplaceAll(all.String(), dir, "$OUT"), data, "$DATA")
	golden(t, "slurm.golden", got)

	// The resolved spec (with its --set) is in DIR: the tasks run it.
	spec, err := runner.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Curve.Trials != 3 {
		t.Errorf("stored spec has %d trials per size, want the --set 3", spec.Curve.Trials)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"slurm", irisSpec, "-o", dir, "--data", data}, "--tasks 0: want at least 1"},
		{[]string{"slurm", irisSpec, "--tasks", "2", "-o", dir, "--data", "rel/data"}, `data directory "rel/data" is relative`},
		{[]string{"slurm", irisSpec, "--tasks", "2", "-o", dir, "--data", data, "--time", "1:00; rm -rf /"}, `--time "1:00; rm -rf /": want`},
		{[]string{"slurm", irisSpec, "--tasks", "2", "-o", dir, "--data", data, "--cpus-per-task", "0"}, "--cpus-per-task 0: want at least 1"},
	} {
		_, stderr := mustCLI(t, exitUsage, tt.args...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("repro %s: no %q in\n%s", strings.Join(tt.args, " "), tt.want, stderr)
		}
	}
	t.Setenv("REPRO_DATA", "data")
	_, stderr := mustCLI(t, exitUsage, "slurm", irisSpec, "--tasks", "2", "-o", dir)
	if !strings.Contains(stderr, `data directory "data" is relative`) {
		t.Errorf("relative $REPRO_DATA:\n%s", stderr)
	}
}
