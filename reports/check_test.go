package reports

import (
	"math"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// twoSeries returns a spec with methods a and b on dataset d (size 10, two
// trials) and results with the given accuracies and mse per trial.
func twoSeries(acc map[string][]float64, expect ...spec.Expectation) (*spec.Spec, []results.Result) {
	sp := &spec.Spec{
		Name:     "t",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d"}},
		Methods: []spec.MethodSpec{
			{Name: "p", Label: "a", Grid: []param.Values{{}}},
			{Name: "p", Label: "b", Grid: []param.Values{{}}},
		},
		Curve:   spec.Curve{Sizes: []float64{10}, Trials: 2},
		Metrics: []string{"accuracy", "mse"},
		Expect:  expect,
	}
	var rs []results.Result
	for _, m := range []string{"a", "b"} {
		for tr, v := range acc[m] {
			rs = append(rs, results.Result{Key: m + string(rune('0'+tr)), Dataset: "d", Method: m, Size: 10, Trial: tr,
				Metrics: map[string]float64{"accuracy": v, "mse": v}})
		}
	}
	return sp, rs
}

func TestCheck(t *testing.T) {
	acc := map[string][]float64{"a": {80, 82}, "b": {75, 76}} // means 81 and 75.5
	tests := []struct {
		name string
		e    spec.Expectation
		pass bool
	}{
		{"tol inside", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(80), Tol: fp(1)}, true},
		{"tol outside", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(79.9), Tol: fp(1)}, false},
		{"rtol inside", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(90), RTol: fp(0.1)}, true},
		{"rtol outside", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(90), RTol: fp(0.09)}, false},
		{"tol or rtol", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(90), Tol: fp(1), RTol: fp(0.1)}, true},
		{"exact at digits", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(81.001)}, true},
		{"exact at digits off", spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(81.01)}, false},
		{"interval", spec.Expectation{Metric: "accuracy", Method: "b", Min: fp(75), Max: fp(76)}, true},
		{"below min", spec.Expectation{Metric: "accuracy", Method: "b", Min: fp(76)}, false},
		{"above max", spec.Expectation{Metric: "accuracy", Method: "a", Max: fp(80)}, false},
		{"better by", spec.Expectation{Metric: "accuracy", Better: "a", Than: "b", By: 5.5}, true},
		{"better by too much", spec.Expectation{Metric: "accuracy", Better: "a", Than: "b", By: 5.6}, false},
		{"worse", spec.Expectation{Metric: "accuracy", Better: "b", Than: "a"}, false},
		// Parity: b trails a by 5.5 points.
		{"at par within", spec.Expectation{Metric: "accuracy", Better: "b", Than: "a", Within: fp(5.5)}, true},
		{"at par too far", spec.Expectation{Metric: "accuracy", Better: "b", Than: "a", Within: fp(5.4)}, false},
		{"at par when ahead", spec.Expectation{Metric: "accuracy", Better: "a", Than: "b", Within: fp(0)}, true},
		// mse: lower is better, so b beats a.
		{"lower is better", spec.Expectation{Metric: "mse", Better: "b", Than: "a", By: 5}, true},
		{"lower is better, reversed", spec.Expectation{Metric: "mse", Better: "a", Than: "b"}, false},
		{"missing size", spec.Expectation{Metric: "accuracy", Method: "a", Sizes: []float64{20}, Value: fp(81), Tol: fp(1)}, false},
		{"missing method", spec.Expectation{Metric: "accuracy", Method: "c", Value: fp(81), Tol: fp(1)}, false},
		{"missing dataset", spec.Expectation{Dataset: "e", Metric: "accuracy", Method: "a", Value: fp(81), Tol: fp(1)}, false},
		{"unknown metric", spec.Expectation{Metric: "f1", Method: "a", Value: fp(81), Tol: fp(1)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, rs := twoSeries(acc, tc.e)
			c := Check(sp, rs)
			if len(c.Rows) != 1 {
				t.Fatalf("%d rows, want 1: %+v", len(c.Rows), c.Rows)
			}
			if c.Rows[0].Pass != tc.pass {
				t.Errorf("pass = %v, want %v: %+v", c.Rows[0].Pass, tc.pass, c.Rows[0])
			}
			if c.Failed() != map[bool]int{true: 0, false: 1}[tc.pass] {
				t.Errorf("Failed() = %d", c.Failed())
			}
		})
	}
}

func TestCheckNoResults(t *testing.T) {
	sp, rs := twoSeries(map[string][]float64{"b": {75}},
		spec.Expectation{Metric: "accuracy", Method: "a", Value: fp(81), Tol: fp(1)})
	rs = append(rs, results.Result{Key: "x", Dataset: "d", Method: "a", Size: 10, Error: "boom"})
	c := Check(sp, rs)
	if len(c.Rows) != 1 || c.Rows[0].Pass || c.Rows[0].Measured != `no successful trials of a` {
		t.Errorf("rows %+v, want one failure with a reason", c.Rows)
	}
}

func TestSweepFigure(t *testing.T) {
	sp := &spec.Spec{
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d"}},
		Methods: []spec.MethodSpec{
			{Name: "p", Label: "hp", Varying: []string{"rho", "c"}, Grid: []param.Values{
				{"c": 1.0, "rho": 0.5}, {"c": 1.0, "rho": 0.1}, {"c": 2.0, "rho": 0.5}, {"c": 2.0, "rho": 0.1}}},
			{Name: "q", Label: "ridge", Grid: []param.Values{{}}},
		},
		Curve:   spec.Curve{Sizes: []float64{10}, Trials: 1},
		Metrics: []string{"mse"},
		Report:  spec.ReportSpec{X: "rho", XTransform: "neglog"},
	}
	var rs []results.Result
	for g, p := range sp.Methods[0].Grid {
		rs = append(rs, results.Result{Key: string(rune('a' + g)), Dataset: "d", Method: "hp", Size: 10,
			Variant: map[string]any{"rho": p["rho"], "c": p["c"]}, Metrics: map[string]float64{"mse": float64(g)}})
	}
	rs = append(rs, results.Result{Key: "r", Dataset: "d", Method: "ridge", Size: 10, Metrics: map[string]float64{"mse": 9}})
	m := build(sp, rs)
	f := m.sweepFigure(m.datasets[0], "mse")
	if f.xlabel != "−ln rho" || len(f.curves) != 3 {
		t.Fatalf("xlabel %q, %d curves, want −ln rho and 3", f.xlabel, len(f.curves))
	}
	// Line "hp (c=1)": rho 0.5 (mse 0) and 0.1 (mse 1), sorted by −ln rho.
	want := []struct {
		label string
		x, y  []float64
	}{
		{"hp (c=1)", []float64{-math.Log(0.5), -math.Log(0.1)}, []float64{0, 1}},
		{"hp (c=2)", []float64{-math.Log(0.5), -math.Log(0.1)}, []float64{2, 3}},
		{"ridge", []float64{-math.Log(0.5), -math.Log(0.1)}, []float64{9, 9}},
	}
	for i, w := range want {
		c := f.curves[i]
		if c.label != w.label || len(c.x) != 2 {
			t.Fatalf("curve %d = %+v, want %+v", i, c, w)
		}
		for j := range w.x {
			if math.Abs(c.x[j]-w.x[j]) > 1e-12 || c.y[j] != w.y[j] {
				t.Errorf("curve %s point %d = (%g, %g), want (%g, %g)", c.label, j, c.x[j], c.y[j], w.x[j], w.y[j])
			}
		}
	}
	if _, err := f.render(); err != nil {
		t.Fatal(err)
	}
}
