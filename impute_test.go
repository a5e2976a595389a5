package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
)

// TestImputeFarTestRows runs testdata/impute-far.yaml (issue 42, §2): the
// mean imputed for the training rows' missing x is the training rows'
// mean, not one the far-away test rows pull to 55, so the test MSE of the
// least-squares line is small (22 here; 154,860 with the mean over every
// row). With a transform on the whole dataset after loading, the loader's
// preprocessing stays fitted on every row, and the report says so: that
// run shows the leak's size.
func TestImputeFarTestRows(t *testing.T) {
	mse := func(dir string) float64 {
		t.Helper()
		recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
		if err != nil || len(recs) != 1 || recs[0].Failed() {
			t.Fatalf("%d results, %v", len(recs), err)
		}
		return recs[0].Metrics["mse"]
	}
	report := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", "testdata/impute-far.yaml", "--data", "testdata", "-o", dir, "-q")
	if got := mse(dir); got > 100 {
		t.Errorf("test MSE %.1f; want < 100 with the training rows' mean imputed", got)
	}
	if want := "Fitted on the training rows of each trial, not on its test rows: the means imputed for missing values."; !strings.Contains(report(dir), want) {
		t.Errorf("report lacks %q", want)
	}

	// An identity transform declared on the whole dataset (fit: all, a
	// transductive protocol): imputation over every row.
	b, err := os.ReadFile("testdata/impute-far.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "    split: {kind: given}", "    transforms: [{name: normalize, fit: all, params: {l1: false, scale: false}}]\n    split: {kind: given}", 1)
	sp := filepath.Join(t.TempDir(), "leak.yaml")
	if err := os.WriteFile(sp, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	leak := filepath.Join(t.TempDir(), "leak")
	mustCLI(t, exitOK, "run", sp, "--data", abs, "-o", leak, "-q")
	if got := mse(leak); got < 10000 {
		t.Errorf("with the mean over every row: test MSE %.1f; want the leak's > 10,000", got)
	}
	if want := "is fitted on every row, test rows included"; !strings.Contains(report(leak), want) {
		t.Errorf("report of the whole-dataset run lacks %q", want)
	}
}

// TestReportFitOn checks what the report says a transform run on the whole
// dataset was fitted on: fit: all names the transductive protocol the spec
// declares. A transform that learns from its rows (normalize's column
// scales) with no fit: is refused at its line: the spec must say what it
// sees.
func TestReportFitOn(t *testing.T) {
	b, err := os.ReadFile(irisSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ fit, want string }{
		{"", "fit: missing: transform normalize learns from the rows it is fitted on, so say which it sees"},
		{", fit: all", "} (fitted once on every row, test rows included: a transductive protocol, as the spec declares with fit: all)"},
	} {
		s := strings.Replace(string(b), "  - name: iris\n", "  - name: iris\n    transforms: [{name: normalize"+tc.fit+"}]\n", 1)
		if s == string(b) {
			t.Fatalf("%s has no dataset iris to transform", irisSpec)
		}
		tmp := t.TempDir()
		sp := filepath.Join(tmp, "iris.yaml")
		if err := os.WriteFile(sp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "out")
		if tc.fit == "" {
			_, stderr := mustCLI(t, exitUsage, "run", sp, "--smoke", "-o", dir, "-q")
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("no fit: stderr %q; want %q", stderr, tc.want)
			}
			continue
		}
		mustCLI(t, exitOK, "run", sp, "--smoke", "-o", dir, "-q")
		rep, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, l := range strings.Split(string(rep), "\n") {
			if strings.HasPrefix(l, "- Transform: normalize {") {
				line = l
			}
		}
		if !strings.HasSuffix(line, tc.want) {
			t.Errorf("fit%q: report's transform line %q; want it to end %q", tc.fit, line, tc.want)
		}
	}
}
