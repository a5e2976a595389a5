package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
)

// TestValidateNeeds checks that validate --data refuses, at the method's
// line, a method on a dataset lacking what it needs (methods.Needs), naming
// the dataset and what is missing, and that svm and med, once binary only,
// run on iris's three classes with one entry each.
func TestValidateNeeds(t *testing.T) {
	_, stderr := mustCLI(t, exitUsage, "validate", "--data", t.TempDir(), "testdata/needs.yaml")
	for _, want := range []string{
		`testdata/needs.yaml:15:11: methods[2].name: method laplacian: dataset "iris" has no feature graph "feature"`,
		`testdata/needs.yaml:16:11: methods[3].name: method lle-lr: dataset "iris" has no feature graph "feature"`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("validate --data needs.yaml: no %q in\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "methods[0]") || strings.Contains(stderr, "methods[1]") {
		t.Errorf("validate --data refused svm or med on three classes:\n%s", stderr)
	}
	_, stderr = mustCLI(t, exitUsage, "validate", "--data", t.TempDir(), "testdata/needs-hp.yaml")
	if want := `testdata/needs-hp.yaml:8:11: methods[0].name: method kernel-hp: dataset "diabetes" has 10 input columns, the method takes 1`; !strings.Contains(stderr, want) {
		t.Errorf("validate --data needs-hp.yaml: no %q in\n%s", want, stderr)
	}

	// svm and med alone run every fold on the three classes.
	b, err := os.ReadFile("testdata/needs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	s = s[:strings.Index(s, "  - name: laplacian")] + s[strings.Index(s, "curve:"):]
	tmp := t.TempDir()
	sp := filepath.Join(tmp, "multi.yaml")
	if err := os.WriteFile(sp, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "out")
	mustCLI(t, exitOK, "run", sp, "-o", dir, "-q")
	recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d results, %v; want 2 methods × 3 folds", len(recs), err)
	}
	for _, r := range recs {
		acc := r.Metrics["accuracy"]
		t.Logf("%s fold %d: accuracy %v", r.Method, r.Trial, acc)
		if r.Error != "" || acc < 85 {
			t.Errorf("%s fold %d: accuracy %v, error %q; want ≥ 85%% on iris", r.Method, r.Trial, acc, r.Error)
		}
	}
}
