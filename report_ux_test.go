package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cv rule that always picks the smallest C of its grid, and fits that
// all stop at their iteration cap: results.jsonl records not_converged,
// report.md flags both, and repro run says so on stderr at the end.
func TestRunWarnsOfGridEdgeAndIterationCap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr := mustCLI(t, exitOK, "run", "testdata/iris-edge.yaml", "-o", dir, "-q")
	for _, want := range []string{
		"warning: iris / LR: cross-validation chose the smallest C of the grid (0.0001; grid 0.0001 … 0.01) in 4 of 4 trials; widen the grid past it",
		"warning: 4 of 4 trials ended with a fit stopped at its iteration cap before converging (iris / LR: 4)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	results, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(results), `"not_converged":true`); n != 4 {
		t.Errorf("%d results marked not_converged, want 4:\n%s", n, results)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"C=0.0001 (2/2), cv accuracy 33.33 ⚠ smallest C", "**Edge of the grid:**", "⚠ 4 |", "⚠ Not converged:"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
