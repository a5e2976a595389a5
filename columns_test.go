package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/cputime"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
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

// scaleDir writes an output directory of 2 datasets × 5 methods × 2
// sizes × trials results (trials 2500: 50k; 10000: 200k), as a run
// stores them, for timing the commands that read one: cells of many
// trials, where a cost per trial that grows with the cell shows.
func scaleDir(tb testing.TB, trials int) string {
	tb.Helper()
	dir := tb.TempDir()
	y := fmt.Sprintf(`name: scale
seed: 1
datasets:
  - {name: iris, id: a, split: {kind: holdout, test: 50}}
  - {name: iris, id: b, split: {kind: holdout, test: 50}}
methods:
  - {name: logreg-l2, label: m0}
  - {name: logreg-l2, label: m1, params: {C: 2}}
  - {name: logreg-l2, label: m2, params: {C: 3}}
  - {name: logreg-l2, label: m3, params: {C: 4}}
  - {name: logreg-l2, label: m4, params: {C: 5}}
curve: {sizes: [50, 100], trials: %d}
metrics: [accuracy, auc]
baseline: m0
`, trials)
	if err := os.WriteFile(filepath.Join(dir, spec.SpecFile), []byte(y), 0o644); err != nil {
		tb.Fatal(err)
	}
	sp, err := spec.ReadSpec(dir)
	if err != nil {
		tb.Fatal(err)
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, t := range plan.Trials {
		v := 70 + float64(t.Index%17) + float64(len(t.Method.Label)+int(t.Size))/100
		r := results.Result{Key: t.Key, Dataset: t.Dataset.ID, Method: t.Method.Label, Plugin: t.Method.Name,
			Size: int(t.Size), Trial: t.Index, TrainRows: int(t.Size), TestRows: 50, FitSeconds: 0.01,
			Seeds:   results.Seeds{Sample: uint64(t.Index), Method: uint64(t.Index)},
			Metrics: results.Metrics{"accuracy": v, "auc": v / 100}}
		if err := enc.Encode(&r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkReportCommand times `repro report DIR` on 50k and 200k stored
// trials: reading results.jsonl, aggregating and rendering are linear in
// the trials (issue 43: 1.1 s for 25k, 19.9 s for 200k). cpu-ns/op is
// the process's CPU time (GC included), which a loaded machine inflates
// less than the wall time of ns/op.
func BenchmarkReportCommand(b *testing.B) {
	for _, trials := range []int{2500, 10000} {
		dir := scaleDir(b, trials)
		b.Run(fmt.Sprintf("%dk", trials/50), func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC() // not the setup's garbage
			cpu := cputime.Used()
			defer func() { b.ReportMetric(float64(cputime.Used()-cpu)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				var stderr bytes.Buffer
				if code := repro(context.Background(), io.Discard, &stderr, []string{"report", dir}); code != exitOK {
					b.Fatalf("report: exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}

// BenchmarkDiffCommand times `repro diff DIR DIR` on 50k and 200k stored
// trials a run, with the bytes it allocates (B/op) and the CPU time: each
// run's results are read once, and the comparison keeps one copy of them.
func BenchmarkDiffCommand(b *testing.B) {
	for _, trials := range []int{2500, 10000} {
		dir := scaleDir(b, trials)
		b.Run(fmt.Sprintf("%dk", trials/50), func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC()
			cpu := cputime.Used()
			defer func() { b.ReportMetric(float64(cputime.Used()-cpu)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				var stderr bytes.Buffer
				if code := repro(context.Background(), io.Discard, &stderr, []string{"diff", dir, dir}); code != exitOK {
					b.Fatalf("diff: exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}

// TestKFoldValidateSizes checks validate --data on the k-fold study: an
// expect sizes entry may name the requested size or either row count its
// folds train on (1225 or 1226 rows on ei-ie), as check accepts them, and
// a count no fold trains on is refused, listing both counts.
func TestKFoldValidateSizes(t *testing.T) {
	b, err := os.ReadFile(kfoldSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sizes string
		code  int
		want  string
	}{
		{"[1]", exitOK, "valid"},
		{"[1225]", exitOK, "valid"},
		{"[1226]", exitOK, "valid"},
		{"[1227]", exitUsage, `1227 is not a training size of dataset "ei-ie": curve.sizes (100%) resolve to 1225, 1226 rows of the pools of 1225–1226 rows`},
	} {
		s := strings.Replace(string(b), "than: PCR, sizes: [1],", "than: PCR, sizes: "+tc.sizes+",", 1)
		if s == string(b) && tc.sizes != "[1]" {
			t.Fatalf("%s has no expectation on ei-ie with sizes: [1] to change", kfoldSpec)
		}
		file := filepath.Join(t.TempDir(), "kfold.yaml")
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(t.TempDir()) // validate --data caches in ./out/.cache
		code, stdout, stderr := cli(t, "validate", "--data", t.TempDir(), file)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("sizes %s: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", tc.sizes, code, tc.code, tc.want, stdout, stderr)
		}
	}
}
