package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/repro-ml/repro/spec"
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
	sp, err := spec.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Curve.Trials != 3 {
		t.Errorf("stored spec has %d trials per size, want the --set 3", sp.Curve.Trials)
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

// TestSlurmSubmit runs --submit against a stand-in sbatch that records
// its arguments: the array is submitted, then the report job after it.
func TestSlurmSubmit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in sbatch is a shell script")
	}
	tmp := t.TempDir()
	bin, log := filepath.Join(tmp, "bin"), filepath.Join(tmp, "sbatch.log")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Job ids 41, then 42; --parsable output may carry ";cluster".
	writeFile(t, filepath.Join(bin, "sbatch"), `#!/bin/sh
echo "$*" >>`+log+`
n=$(wc -l <`+log+`)
echo "$((40 + n));cluster"
`)
	if err := os.Chmod(filepath.Join(bin, "sbatch"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(tmp, "out")
	stdout, _ := mustCLI(t, exitOK, "slurm", irisSpec, "--tasks", "2", "-o", dir, "--data", tmp, "--repro", "/bin/true", "--submit")
	if !strings.Contains(stdout, "array job: 41\nreport job: 42 (after the array)\n") {
		t.Errorf("--submit output:\n%s", stdout)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "--parsable " + filepath.Join(dir, "slurm", "array.sbatch") + "\n" +
		"--parsable --dependency=afterany:41 " + filepath.Join(dir, "slurm", "report.sbatch") + "\n"
	if string(calls) != want {
		t.Errorf("sbatch calls:\n%s\nwant\n%s", calls, want)
	}
	// Without sbatch, --submit fails and says why.
	t.Setenv("PATH", tmp)
	_, stderr := mustCLI(t, exitError, "slurm", irisSpec, "--tasks", "2", "-o", dir, "--data", tmp, "--repro", "/bin/true", "--submit")
	if !strings.Contains(stderr, "sbatch not found") {
		t.Errorf("no sbatch:\n%s", stderr)
	}
}
