package reports

import (
	"bytes"
	"math"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/runner"
)

// diffSpec is a small experiment: one dataset, a fixed method with two
// grid points and a cv method, two sizes, four trials.
func diffSpec() *runner.Spec {
	return &runner.Spec{
		Name: "diff-demo", Seed: 3,
		Datasets: []runner.DatasetSpec{{Name: "csv", ID: "toy",
			Split: runner.Split{Kind: "holdout", Params: param.Values{"test": 50.0, "stratify": true}}}},
		Methods: []runner.MethodSpec{
			{Name: "svm", Label: "svm", Grid: []param.Values{{"C": 1.0}, {"C": 10.0}}, Varying: []string{"C"}, Select: runner.Select{Rule: "fixed"}},
			{Name: "logreg-l2", Label: "LR", Grid: []param.Values{{"C": 0.1}, {"C": 1.0}}, Varying: []string{"C"},
				Select: runner.Select{Rule: "cv", Folds: 3, Metric: "accuracy"}},
		},
		Curve:   runner.Curve{Sizes: []float64{20, 40}, Trials: 4, Sampling: "random"},
		Metrics: []string{"accuracy", "auc"},
	}
}

// diffRuns returns the results of an old and a new run of diffSpec. In the
// new run svm (C=10) loses 3 accuracy points on every trial ± noise, LR
// gains 0.02–0.026 auc at size 40, and everything else
// is identical; trial 3 of LR at size 20 is missing from the new run, and
// trial 0 of svm (C=1) at size 40 fails in it.
func diffRuns(t *testing.T) (spec *runner.Spec, old, new []runner.Result) {
	spec = diffSpec()
	plan, err := runner.NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	noise := []float64{0.3, -0.4, 0.1, 0.2}
	for _, tr := range plan.Trials {
		r := runner.Result{Key: tr.Key, Dataset: tr.Dataset.ID, Method: tr.Method.Label, Plugin: tr.Method.Name,
			Variant: tr.Variant(), Size: int(tr.Size), Trial: tr.Index, FitSeconds: 0.5}
		acc := 70 + tr.Size/4 + 2*noise[tr.Index]
		r.Metrics = runner.Metrics{"accuracy": acc, "auc": acc / 100}
		old = append(old, r)

		n := r
		n.FitSeconds = 0.7 // timing differs between runs: never compared
		n.Metrics = runner.Metrics{"accuracy": acc, "auc": acc / 100}
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
	return spec, old, new
}

func TestDiffGolden(t *testing.T) {
	spec, old, new := diffRuns(t)
	d, err := Compare(spec, old, spec, new, DiffOptions{Tolerance: 1})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n := WriteDiff(&out, d)
	golden(t, "diff.txt", out.Bytes())
	// Two svm (C=10) accuracy rows beyond the tolerance, one newly failed
	// trial.
	if n != 3 {
		t.Errorf("WriteDiff returned %d regressions, want 3", n)
	}
}

func TestDiffTolerance(t *testing.T) {
	spec, old, new := diffRuns(t)
	// The new run without its failed trial: only metric changes count.
	var finished []runner.Result
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
			d, err := Compare(spec, old, spec, finished, tt.opts)
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
	spec, old, _ := diffRuns(t)
	d, err := Compare(spec, old, spec, old, DiffOptions{})
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
	if len(d.OnlyOld)+len(d.OnlyNew)+len(d.FailedOld)+len(d.FailedNew) != 0 || d.Regressions() != 0 {
		t.Errorf("a run compared with itself lists trials or regressions: %+v", d)
	}
}

// TestDiffChange checks a row's numbers against a hand computation.
func TestDiffChange(t *testing.T) {
	spec, old, new := diffRuns(t)
	d, err := Compare(spec, old, spec, new, DiffOptions{})
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
