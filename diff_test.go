package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/runner"
)

// copyDir copies the regular files of src (one level of subdirectories
// and more) to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// editResults rewrites each result of dir's results.jsonl with edit.
func editResults(t *testing.T, dir string, edit func(*runner.Result)) {
	t.Helper()
	path := filepath.Join(dir, runner.ResultsFile)
	results, warns, err := runner.ReadResults(path)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	var b strings.Builder
	for i := range results {
		edit(&results[i])
		line, err := json.Marshal(&results[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	writeFile(t, path, b.String())
}

// TestDiff runs the tiny spec, makes a "new" run whose LR (C=0.1) lost
// 10–11 accuracy points per trial, and diffs the two.
func TestDiff(t *testing.T) {
	tmp := t.TempDir()
	old, new := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	mustCLI(t, exitOK, "run", irisSpec, "-o", old, "-q", "-j", "2")
	copyDir(t, old, new)
	editResults(t, new, func(r *runner.Result) {
		r.FitSeconds *= 2 // timing is never compared
		if runner.SeriesName(r.Method, r.Variant) == "LR (C=0.1)" {
			r.Metrics["accuracy"] -= 10 + float64(r.Trial)
		}
	})

	// A run compared with itself: nothing changed.
	stdout, _ := mustCLI(t, exitOK, "diff", old, old)
	if !strings.Contains(stdout, "0 significantly better, 0 significantly worse, 0 regressions") || strings.Contains(stdout, "WORSE") {
		t.Errorf("diff of a run with itself:\n%s", stdout)
	}
	stdout, _ = mustCLI(t, exitFailed, "diff", old, new)
	golden(t, "diff.golden", stdout)
	// Within the tolerance the worsening is reported, not a failure.
	for _, tol := range []string{"12", "15%"} {
		stdout, _ = mustCLI(t, exitOK, "diff", old, new, "--tolerance", tol)
		if !strings.Contains(stdout, "| worse ") || strings.Contains(stdout, "WORSE") {
			t.Errorf("--tolerance %s:\n%s", tol, stdout)
		}
	}
	// The other way round it is an improvement.
	stdout, _ = mustCLI(t, exitOK, "diff", new, old)
	if !strings.Contains(stdout, "| better ") {
		t.Errorf("diff NEW OLD:\n%s", stdout)
	}

	// A run of another size list pairs the trials both have and lists
	// the others.
	other := filepath.Join(tmp, "other")
	mustCLI(t, exitOK, "run", irisSpec, "-o", other, "-q", "-j", "2", "--set", "curve.sizes=[15,30]")
	stdout, _ = mustCLI(t, exitOK, "diff", old, other)
	for _, want := range []string{
		"only in the old run: 4 trials\n- iris / LR (C=0.1) / size 45: trial 0, 1\n- iris / LR (C=10) / size 45: trial 0, 1\n",
		"only in the new run: 4 trials\n- iris / LR (C=0.1) / size 30: trial 0, 1\n",
		"| iris    | LR (C=10)  |   15 | accuracy                 |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff against other sizes: no %q in\n%s", want, stdout)
		}
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", old}, "usage: repro diff OLD_DIR NEW_DIR"},
		{[]string{"diff", old, new, "--tolerance", "-1"}, `--tolerance "-1": want a number ≥ 0`},
		{[]string{"diff", old, new, "--alpha", "0"}, "--alpha 0: want a level in (0, 1)"},
		{[]string{"diff", old, tmp}, "is not a repro output directory"},
	} {
		_, stderr := mustCLI(t, exitUsage, tt.args...)
		if !strings.Contains(stderr, tt.want) {
			t.Errorf("repro %s: no %q in\n%s", strings.Join(tt.args, " "), tt.want, stderr)
		}
	}
}
