package reports

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// diffSpec is a small experiment: one dataset, a fixed method with two
// grid points and a cv method, two sizes, four trials.
func diffSpec() *spec.Spec {
	return &spec.Spec{
		Name: "diff-demo", Seed: 3,
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "toy",
			Split: spec.Split{Kind: "holdout", Params: param.Values{"test": 50.0, "stratify": true}}}},
		Methods: []spec.MethodSpec{
			{Name: "svm", Label: "svm", Grid: []param.Values{{"C": 1.0}, {"C": 10.0}}, Varying: []string{"C"}, Select: spec.Select{Rule: "fixed"}},
			{Name: "logreg-l2", Label: "LR", Grid: []param.Values{{"C": 0.1}, {"C": 1.0}}, Varying: []string{"C"},
				Select: spec.Select{Rule: "cv", Folds: 3, Metric: "accuracy"}},
		},
		Curve:   spec.Curve{Sizes: []float64{20, 40}, Trials: 4, Sampling: "random"},
		Metrics: []string{"accuracy", "auc"},
	}
}

// diffRuns returns the results of an old and a new run of diffSpec. In the
// new run svm (C=10) loses 3 accuracy points on every trial ± noise, LR
// gains 0.02–0.026 auc at size 40, and everything else
// is identical; trial 3 of LR at size 20 is missing from the new run, and
// trial 0 of svm (C=1) at size 40 fails in it.
func diffRuns(t *testing.T) (sp *spec.Spec, old, new []results.Result) {
	sp = diffSpec()
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	noise := []float64{0.3, -0.4, 0.1, 0.2}
	for _, tr := range plan.Trials {
		r := results.Result{Key: tr.Key, Dataset: tr.Dataset.ID, Method: tr.Method.Label, Plugin: tr.Method.Name,
			Variant: tr.Variant(), Size: int(tr.Size), Trial: tr.Index, FitSeconds: 0.5}
		acc := 70 + tr.Size/4 + 2*noise[tr.Index]
		r.Metrics = results.Metrics{"accuracy": acc, "auc": acc / 100}
		old = append(old, r)

		n := r
		n.FitSeconds = 0.7 // timing differs between runs: never compared
		n.Metrics = results.Metrics{"accuracy": acc, "auc": acc / 100}
		series := tr.Series()
		switch {
		case series == "svm (C=10)":
			n.Metrics["accuracy"] = acc - 3 + noise[3-tr.Index]
		case series == "LR" && tr.Size == 40:
			n.Metrics["auc"] += 0.02 + 0.002*float64(tr.Index)
		case series == "LR" && tr.Size == 20 && tr.Index == 3:
			continue
		case series == "svm (C=1)" && tr.Size == 40 && tr.Index == 0:
			n.Metrics, n.Error = nil, "svm: out of memory"
		}
		new = append(new, n)
	}
	return sp, old, new
}

func TestDiffGolden(t *testing.T) {
	sp, old, new := diffRuns(t)
	d, err := Compare(sp, old, sp, new, DiffOptions{Tolerance: 1})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n := WriteDiff(&out, d)
	golden(t, "diff.txt", out.Bytes())
	// Two svm (C=10) accuracy rows beyond the tolerance and one newly
	// failed trial are 3 regressions; the failures are the series svm
	// (C=10), the failed trial, and the trial the new run lacks.
	if got := d.Regressions(); got != 3 {
		t.Errorf("%d regressions, want 3", got)
	}
	if n != 3 {
		t.Errorf("WriteDiff returned %d failures, want 3", n)
	}
}

func TestDiffTolerance(t *testing.T) {
	sp, old, new := diffRuns(t)
	// The new run without its failed trial: only metric changes count.
	var finished []results.Result
	for _, r := range new {
		if !r.Failed() {
			finished = append(finished, r)
		}
	}
	tests := []struct {
		name string
		opts DiffOptions
		want int
	}{
		{"no tolerance", DiffOptions{}, 2},
		{"1 point", DiffOptions{Tolerance: 1}, 2},
		{"3.5 points", DiffOptions{Tolerance: 3.5}, 0},
		{"1%", DiffOptions{Tolerance: 0.01, Relative: true}, 2},
		{"5%", DiffOptions{Tolerance: 0.05, Relative: true}, 0},
		{"alpha 1e-9", DiffOptions{Alpha: 1e-9}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Compare(sp, old, sp, finished, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Regressions(); got != tt.want {
				t.Errorf("%d regressions, want %d", got, tt.want)
			}
		})
	}
}

// TestDiffSame compares a run with itself: every row unchanged, p = 1.
func TestDiffSame(t *testing.T) {
	sp, old, _ := diffRuns(t)
	d, err := Compare(sp, old, sp, old, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 3 series × 2 sizes × 2 metrics.
	if len(d.Rows) != 12 {
		t.Fatalf("%d rows, want 12", len(d.Rows))
	}
	for _, r := range d.Rows {
		if r.Change != 0 || r.P != 1 || r.Significant || r.Pairs != 4 {
			t.Errorf("%s %s %g %s: change %g, p %g, %d pairs; want 0, 1, 4", r.Dataset, r.Series, r.X, r.Metric, r.Change, r.P, r.Pairs)
		}
	}
	if len(d.Missing)+len(d.Fewer)+len(d.OnlyNew)+len(d.FailedOld)+len(d.FailedNew) != 0 || d.Regressions() != 0 {
		t.Errorf("a run compared with itself lists trials or regressions: %+v", d)
	}
}

// TestDiffChange checks a row's numbers against a hand computation.
func TestDiffChange(t *testing.T) {
	sp, old, new := diffRuns(t)
	d, err := Compare(sp, old, sp, new, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Rows {
		if r.Series != "svm (C=10)" || r.X != 20 || r.Metric != "accuracy" {
			continue
		}
		// Old: 75 + 2·noise, mean 75 + 2·0.05 = 75.1; new: old − 3 +
		// reversed noise, mean 75.1 − 3 + 0.05.
		if math.Abs(r.Old-75.1) > 1e-9 || math.Abs(r.New-72.15) > 1e-9 || math.Abs(r.Change+2.95) > 1e-9 {
			t.Errorf("old %g new %g change %g; want 75.1, 72.15, -2.95", r.Old, r.New, r.Change)
		}
		// Differences −3 + noise[3−i] − 2·noise[i]: −3.4, −2.7, −2.8, −2.9;
		// mean −2.95, sd 0.3109, t = −18.98 on 3 df: p ≈ 3.2e-4.
		if r.P < 2e-4 || r.P > 5e-4 || !r.Worse || !r.Regression {
			t.Errorf("p %g worse %v regression %v; want p ≈ 3.2e-4, worse, a regression", r.P, r.Worse, r.Regression)
		}
		return
	}
	t.Fatal("no svm (C=10) accuracy row at size 20")
}

// runOf returns a result for every trial of spec's plan, its metrics by
// metrics.
func runOf(t *testing.T, sp *spec.Spec, metrics func(tr *spec.Trial) results.Metrics) []results.Result {
	t.Helper()
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	var out []results.Result
	for _, tr := range plan.Trials {
		out = append(out, results.Result{Key: tr.Key, Dataset: tr.Dataset.ID, Method: tr.Method.Label, Plugin: tr.Method.Name,
			Variant: tr.Variant(), Size: int(tr.Size), Trial: tr.Index, Metrics: metrics(tr), TrainRows: int(tr.Size), TestRows: 50})
	}
	return out
}

// TestDiffPairsBySeries changes LR's grid: every LR trial gets a new key,
// and the diff still pairs them by dataset, series, size and trial index,
// and names the change.
func TestDiffPairsBySeries(t *testing.T) {
	noise := []float64{0.3, -0.4, 0.1, 0.2}
	acc := func(worse float64) func(tr *spec.Trial) results.Metrics {
		return func(tr *spec.Trial) results.Metrics {
			a := 70 + tr.Size/4 + 2*noise[tr.Index]
			if tr.Method.Label == "LR" {
				a -= worse * (1 + noise[3-tr.Index])
			}
			return results.Metrics{"accuracy": a, "auc": a / 100}
		}
	}
	oldSpec, newSpec := diffSpec(), diffSpec()
	newSpec.Methods[1].Grid = []param.Values{{"C": 0.0001}}
	newSpec.Methods[1].Varying = nil
	newSpec.Methods[1].Select.Folds = 5
	d, err := Compare(oldSpec, runOf(t, oldSpec, acc(0)), newSpec, runOf(t, newSpec, acc(4)), DiffOptions{Rows: toyRows})
	if err != nil {
		t.Fatal(err)
	}
	want := []DiffChange{
		{Scope: "method LR", Field: "params.C", Old: "[0.1, 1.0]", New: "0.0001"},
		{Scope: "method LR", Field: "select.folds", Old: "3", New: "5"},
	}
	if !slices.Equal(d.Changes, want) {
		t.Errorf("changes %+v, want %+v", d.Changes, want)
	}
	if len(d.Rows) != 12 || len(d.Missing)+len(d.Fewer)+len(d.OnlyNew) != 0 {
		t.Fatalf("%d rows, %d missing, %d fewer, %d only new; want 12 rows, every trial paired", len(d.Rows), len(d.Missing), len(d.Fewer), len(d.OnlyNew))
	}
	var worse []string
	for _, r := range d.Rows {
		if r.Regression {
			worse = append(worse, fmt.Sprintf("%s %g %s", r.Series, r.X, r.Metric))
		}
	}
	// auc falls by 0.04 at most: beyond tolerance 0, but every auc change is
	// significant too (the same noise).
	if want := []string{"LR 20 accuracy", "LR 20 auc", "LR 40 accuracy", "LR 40 auc"}; !slices.Equal(worse, want) {
		t.Errorf("regressions %q, want %q", worse, want)
	}
	var out bytes.Buffer
	if n := WriteDiff(&out, d); n != 1 {
		t.Errorf("WriteDiff returned %d failures, want 1 (the series LR)", n)
	}
	for _, line := range []string{
		"changed between the runs:\n- method LR: params.C: [0.1, 1.0] → 0.0001\n- method LR: select.folds: 3 → 5\n",
		"FAIL: LR on toy is significantly worse beyond the tolerance: accuracy at size 20, 40; auc at size 20, 40\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("no %q in\n%s", line, out.String())
		}
	}
}

// TestDiffFailures covers each reason a diff fails, alone, and the option
// that accepts it.
func TestDiffFailures(t *testing.T) {
	same := func(tr *spec.Trial) results.Metrics {
		a := 70 + tr.Size/4 + float64(tr.Index)
		return results.Metrics{"accuracy": a, "auc": a / 100}
	}
	tests := []struct {
		name     string
		edit     func(s *spec.Spec) // of the new spec
		editOld  func(s *spec.Spec)
		newSeeds func(r *results.Result)
		drop     func(r results.Result) bool // results left out of the new run
		want     string
		also     string // another failure the case has
		allow    func(o *DiffOptions)
	}{
		{name: "other name", edit: func(s *spec.Spec) { s.Name = "other" },
			want: `the runs are of two experiments, "diff-demo" and "other"`, allow: func(o *DiffOptions) { o.AllowOtherName = true }},
		{name: "other seed", edit: func(s *spec.Spec) { s.Seed = 4 },
			want: "the runs have different seeds, 3 and 4: trials of one index train on different samples", allow: func(o *DiffOptions) { o.AllowOtherSeed = true }},
		{name: "other samples", newSeeds: func(r *results.Result) { r.Seeds.Sample = 7 },
			want: "24 paired trials of one index have different sample seeds (a dataset's samples_of changed?): they train on different samples", allow: func(o *DiffOptions) { o.AllowOtherSeed = true }},
		{name: "missing dataset", editOld: func(s *spec.Spec) { s.Datasets = append(s.Datasets, s.Datasets[0]); s.Datasets[1].ID = "toy2" },
			want: "the new run has no dataset toy2: 24 trials of the old run, listed above", allow: func(o *DiffOptions) { o.AllowMissing = true }},
		{name: "missing series", edit: func(s *spec.Spec) { s.Methods = s.Methods[1:] },
			want: "the new run has no series svm (C=1) on toy, series svm (C=10) on toy: 16 trials of the old run, listed above", allow: func(o *DiffOptions) { o.AllowMissing = true }},
		{name: "missing size", edit: func(s *spec.Spec) { s.Curve.Sizes = []float64{20} },
			want: "the new run has no size 40 of svm (C=1) on toy, size 40 of svm (C=10) on toy, size 40 of LR on toy: 12 trials of the old run, listed above", allow: func(o *DiffOptions) { o.AllowMissing = true }},
		{name: "missing metric", edit: func(s *spec.Spec) { s.Metrics = []string{"accuracy"} },
			want: "the new run does not score auc of the old run", allow: func(o *DiffOptions) { o.AllowMissing = true }},
		{name: "fewer trials planned", edit: func(s *spec.Spec) { s.Curve.Trials = 3 },
			want: "the new run did not finish 6 of the 24 trials the old run finished, listed above", allow: func(o *DiffOptions) { o.AllowFewer = true }},
		{name: "unfinished", drop: func(r results.Result) bool { return r.Method == "LR" && r.Size == 40 },
			want: "the new run did not finish 4 of the 24 trials the old run finished, listed above", allow: func(o *DiffOptions) { o.AllowFewer = true }},
		{name: "nothing compared", drop: func(r results.Result) bool { return true },
			want: "nothing compared: no trial finished in both runs", also: "the new run did not finish 24 of the 24 trials the old run finished, listed above"},
		{name: "one trial", edit: func(s *spec.Spec) { s.Curve.Trials = 1 }, editOld: func(s *spec.Spec) { s.Curve.Trials = 1 },
			want: "nothing tested: every row has a single pair of trials, too few for the paired test"},
		{name: "everything missing", edit: func(s *spec.Spec) { s.Datasets[0].ID = "toy2" }, allow: func(o *DiffOptions) { o.AllowMissing = true },
			want: "nothing compared: no trial finished in both runs", also: "the new run has no dataset toy: 24 trials of the old run, listed above"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldSpec, newSpec := diffSpec(), diffSpec()
			if tt.edit != nil {
				tt.edit(newSpec)
			}
			if tt.editOld != nil {
				tt.editOld(oldSpec)
			}
			var newResults []results.Result
			for _, r := range runOf(t, newSpec, same) {
				if tt.newSeeds != nil {
					tt.newSeeds(&r)
				}
				if tt.drop == nil || !tt.drop(r) {
					newResults = append(newResults, r)
				}
			}
			oldResults := runOf(t, oldSpec, same)
			failures := func(opts DiffOptions) []DiffFailure {
				d, err := Compare(oldSpec, oldResults, newSpec, newResults, opts)
				if err != nil {
					t.Fatal(err)
				}
				fs := d.Failures()
				for _, f := range fs {
					if f.Msg != tt.want && f.Msg != tt.also && (tt.allow == nil || f.Msg != "nothing compared: no trial finished in both runs") {
						t.Errorf("another failure: %+v", f)
					}
				}
				return fs
			}
			fs := failures(DiffOptions{})
			if !slices.ContainsFunc(fs, func(f DiffFailure) bool { return f.Msg == tt.want && !f.Allowed }) {
				t.Fatalf("failures %+v, want %q", fs, tt.want)
			}
			if tt.allow == nil {
				return
			}
			var opts DiffOptions
			tt.allow(&opts)
			failed := 0
			for _, f := range failures(opts) {
				switch {
				case f.Allow == "" && f.Allowed:
					t.Errorf("%+v: accepted by %+v, which does not name it", f, opts)
				case f.Allow != "" && !f.Allowed:
					t.Errorf("%+v: not accepted by %+v", f, opts)
				case !f.Allowed:
					failed++
				}
			}
			// Only nothing compared is accepted by no option.
			if want := strings.HasPrefix(tt.want, "nothing "); (failed > 0) != want {
				t.Errorf("with %+v: %d failures left", opts, failed)
			}
		})
	}
}

// toyRows is the row count of diffSpec's dataset: a holdout of 50 rows
// leaves a pool of 250, which samples of 20 and 40 rows barely overlap in
// (the trials draw them independently: design-t is the plain t-test).
var toyRows = map[string]int{"toy": 300}

// TestDiffTest checks which paired test the rows of a diff use: by
// default (or --test reports) the reports' test in each cell — the
// spec's report.test, else design-t, whatever the rows the trials share
// — or any other when asked.
func TestDiffTest(t *testing.T) {
	shift := func(by float64) func(tr *spec.Trial) results.Metrics {
		return func(tr *spec.Trial) results.Metrics {
			a := 70 + tr.Size/4 + float64(tr.Index*tr.Index) - by*(1+0.5*float64(tr.Index))
			return results.Metrics{"accuracy": a, "auc": a / 100}
		}
	}
	tests := []struct {
		name       string
		reportTest string
		test       string
		want       string
		rows       map[string]int
		worse      bool // the drop of 1–2.5 points at size 20: t p ≈ 0.012, corrected-t p ≈ 0.2
	}{
		{"default", "", "", TestDesignT, toyRows, true},
		{"default, no dataset facts", "", "", TestDesignT, nil, true},
		{"spec", TestWilcoxon, "", TestWilcoxon, toyRows, false}, // 4 pairs: p ≥ 0.125
		{"reports", "", DiffTestReports, TestDesignT, toyRows, true},
		{"reports, pool of 60", "", DiffTestReports, TestDesignT, map[string]int{"toy": 90}, true},
		{"reports, spec", TestCorrectedT, DiffTestReports, TestCorrectedT, toyRows, false},
		{"asked", TestWilcoxon, TestCorrectedT, TestCorrectedT, toyRows, false},
		{"asked t", "", TestT, TestT, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldSpec, newSpec := diffSpec(), diffSpec()
			newSpec.Report.Test = tt.reportTest
			d, err := Compare(oldSpec, runOf(t, oldSpec, shift(0)), newSpec, runOf(t, newSpec, shift(1)), DiffOptions{Test: tt.test, Rows: tt.rows})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range d.Rows {
				if r.Test != tt.want {
					t.Fatalf("%s %s %g: test %q, want %q", r.Series, r.Metric, r.X, r.Test, tt.want)
				}
				if r.X == 20 && r.Metric == "accuracy" && r.Worse != tt.worse {
					t.Errorf("%s at 20: worse %v (p %g), want %v", r.Series, r.Worse, r.P, tt.worse)
				}
			}
		})
	}
	if _, err := Compare(diffSpec(), nil, diffSpec(), nil, DiffOptions{Test: "z"}); err == nil || !strings.Contains(err.Error(), `test "z": want one of t, corrected-t, wilcoxon, design-t or reports`) {
		t.Errorf("unknown test: %v", err)
	}
}
