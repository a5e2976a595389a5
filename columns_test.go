package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kfoldSpec is the k-fold study of issue 40 §2: four learners, 5-fold × 2
// cross-validation with curve.sizes [1], three DNA splice class pairs
// whose folds train on two row counts each.
const kfoldSpec = "testdata/kfold-splice.yaml"

// TestKFoldSplice runs the study and reads its report: each dataset's
// table is one column of the 10 trials (headed by the two row counts its
// folds trained on), W/T/L runs one test per series and dataset, and the
// Friedman table ranks the learners over all three datasets; the
// expectations name the column by the requested size.
func TestKFoldSplice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 120 trials")
	}
	dir := filepath.Join(t.TempDir(), "out")
	stdout, _ := mustCLI(t, exitOK, "run", kfoldSpec, "-o", dir, "-j", "2", "-q")
	if !strings.Contains(stdout, "120 trials: 120 ran now") || !strings.Contains(stdout, "2 passed, 0 failed") {
		t.Errorf("run:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	// The heads of the tables: one size column per dataset.
	heads := regexp.MustCompile(`(?m)^\| series \\ size \|(.*)\|$`).FindAllStringSubmatch(md, -1)
	if len(heads) != 6 { // a metric table and a W/T/L table per dataset
		t.Fatalf("%d size tables, want 6:\n%s", len(heads), md)
	}
	want := []string{"1225–1226", "1225–1226", "1936–1937", "1936–1937", "1935–1936", "1935–1936"}
	for i, h := range heads {
		cols := strings.Split(h[1], "|")
		if got := strings.TrimSpace(cols[0]); got != want[i] || len(cols) > 2 || (len(cols) == 2 && strings.TrimSpace(cols[1]) != "W/T/L") {
			t.Errorf("table %d heads %q, want the one column %s", i, h[1], want[i])
		}
	}
	if strings.Contains(md, "(n=") {
		t.Errorf("a cell of fewer than the 10 trials:\n%s", md)
	}
	// One paired test per series and dataset: 3 series against L2.
	if n := len(regexp.MustCompile(`(?m)^\| (L1|SVM|PCR) +\|.*\| [01]/[01]/[01] \|$`).FindAllString(md, -1)); n != 9 {
		t.Errorf("%d W/T/L rows of one test, want 9:\n%s", n, md)
	}
	friedman := regexp.MustCompile(`(?m)^\| series \| average rank \| +ei-ie \| +ei-n \| +ie-n \|$`)
	if !friedman.MatchString(md) || !strings.Contains(md, "Friedman χ² =") {
		t.Errorf("no Friedman table over the three datasets:\n%s", md)
	}
}
