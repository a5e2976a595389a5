package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunCheckForms runs testdata/iris-expect.yaml, which has an
// expectation of every form, two of them failing: run prints the checks
// and exits 0 (no trial failed), run --check exits 1 after writing the
// reports, and check prints the same table and exits 1.
func TestRunCheckForms(t *testing.T) {
	const spec = "testdata/iris-expect.yaml"
	dir := filepath.Join(t.TempDir(), "out")
	stdout, _ := mustCLI(t, exitOK, "run", spec, "-o", dir, "-q", "-j", "2")
	if !strings.Contains(stdout, "5 passed, 2 failed") {
		t.Errorf("run did not print the checks:\n%s", stdout)
	}
	if err := os.Remove(filepath.Join(dir, "report.md")); err != nil {
		t.Fatal(err)
	}
	_, stderr := mustCLI(t, exitFailed, "run", spec, "-o", dir, "-q", "--check")
	if !strings.Contains(stderr, "repro run --check: 2 of the expectations failed") {
		t.Errorf("run --check stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Errorf("run --check wrote no report before it exited 1: %v", err)
	}
	byDir, _ := mustCLI(t, exitFailed, "check", dir)
	golden(t, "check-forms.golden", byDir)
	// The direction-only relation (by: 0) at p = 0.865 is no bare PASS.
	for _, want := range []string{
		"| PASS (direction only, p=0.865)  ",
		"| FAIL (not significant, p=0.865) ",
		"corrected-t p=0.013, 10 pairs",
		"| W/T/L 2/0/0 ± 0 (significant at α=0.05) ",
		"2 passes rest on the means alone",
	} {
		if !strings.Contains(byDir, want) {
			t.Errorf("check lacks %q:\n%s", want, byDir)
		}
	}
	// Without failing expectations --check exits 0.
	mustCLI(t, exitOK, "run", spec, "-o", dir, "-q", "--check", "--set", "expect=[{method: LR (C=1), metric: accuracy, min: 50}]")

	code, _, stderr := cli(t, "run", spec, "-o", dir, "--smoke", "--check")
	if code != exitUsage || !strings.Contains(stderr, "--check with --smoke or --shard") {
		t.Errorf("run --smoke --check: exit %d, stderr:\n%s", code, stderr)
	}
}
