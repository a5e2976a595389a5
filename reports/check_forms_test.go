package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/runner"
)

func ip(n int) *int { return &n }

// formsFixture has three series on one holdout dataset (the corrected
// t-test by default), 5 trials at sizes 10, 20 and 30, 40 test rows: A
// ahead of B by about 10 points in every trial, C within a point of A
// either way.
func formsFixture(expect ...runner.Expectation) (*runner.Spec, []runner.Result) {
	spec := &runner.Spec{
		Name:     "forms",
		Datasets: []runner.DatasetSpec{{Name: "csv", ID: "d", Split: runner.Split{Kind: "holdout", Params: param.Values{"test": 40.0, "stratify": false}}}},
		Methods: []runner.MethodSpec{
			{Name: "p", Label: "A", Grid: []param.Values{{}}},
			{Name: "p", Label: "B", Grid: []param.Values{{}}},
			{Name: "p", Label: "C", Grid: []param.Values{{}}},
		},
		Curve:   runner.Curve{Sizes: []float64{10, 20, 30}, Trials: 5},
		Metrics: []string{"accuracy"},
		Expect:  expect,
	}
	acc := map[string][]float64{
		"A": {80, 82, 81, 83, 84},
		"B": {70, 71, 73, 72, 74},
		"C": {81, 81, 82, 82, 83}, // A − C: −1, 1, −1, 1, 1
	}
	var rs []runner.Result
	for _, size := range []int{10, 20, 30} {
		for _, m := range []string{"A", "B", "C"} {
			for tr, v := range acc[m] {
				rs = append(rs, runner.Result{Key: keyOf(len(rs)), Dataset: "d", Method: m, Size: size, Trial: tr,
					TrainRows: size, TestRows: 40, Metrics: runner.Metrics{"accuracy": v + float64(size)/10}})
			}
		}
	}
	return spec, rs
}

// TestCheckFormsGolden checks one expectation of each form, each passing
// and failing where it can, and pins how check prints them.
func TestCheckFormsGolden(t *testing.T) {
	at10 := []int{10}
	spec, rs := formsFixture(
		runner.Expectation{Metric: "accuracy", Method: "A", Sizes: at10, Value: fp(83), Tol: fp(1), Source: "value"},
		runner.Expectation{Metric: "accuracy", Better: "A", Than: "C", Sizes: at10, Source: "direction only"},
		runner.Expectation{Metric: "accuracy", Better: "A", Than: "B", Sizes: at10, Significant: true, By: 5, Source: "significant, passes"},
		runner.Expectation{Metric: "accuracy", Better: "A", Than: "C", Sizes: at10, Significant: true, Source: "significant, fails"},
		runner.Expectation{Metric: "accuracy", Better: "C", Than: "A", Sizes: at10, AtPar: true, Within: fp(0.5), Source: "at_par, passes"},
		runner.Expectation{Metric: "accuracy", Better: "B", Than: "A", Sizes: at10, AtPar: true, Source: "at_par, fails"},
		runner.Expectation{Metric: "accuracy", Better: "C", Than: "A", Sizes: at10, Within: fp(0.5), Source: "within (non-inferiority)"},
		runner.Expectation{Metric: "accuracy", WTL: runner.WTLCount{Series: "A", Than: "B", Wins: ip(3), Ties: ip(0), Losses: ip(0)}, Source: "wtl, passes"},
		runner.Expectation{Metric: "accuracy", WTL: runner.WTLCount{Series: "A", Than: "C", Wins: ip(3), Ties: ip(0), Losses: ip(0)}, Slack: 2, Source: "wtl, fails"},
	)
	c := Check(spec, rs)
	var w bytes.Buffer
	WriteCheck(&w, c)
	golden(t, "check-forms.txt", w.Bytes())

	// The verdicts, independently of the golden file.
	want := []string{"PASS", "PASS (direction only, p=0.933)", "PASS", "FAIL (not significant, p=0.933)",
		"PASS", "FAIL (significant difference, p=0.016)", "PASS (non-inferior by mean, p=0.933)", "PASS", "FAIL (a count off by more than 2)"}
	if len(c.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(c.Rows), len(want))
	}
	for i, r := range c.Rows {
		if got := r.Verdict(); got != want[i] {
			t.Errorf("%s: verdict %q, want %q", r.Source, got, want[i])
		}
		if r.Source != "value" && r.Test != TestCorrectedT {
			t.Errorf("%s: test %q, want %s (a holdout split)", r.Source, r.Test, TestCorrectedT)
		}
	}
	if c.Passed() != 6 || c.MeansOnly() != 2 {
		t.Errorf("%d passed, %d on means only; want 6 and 2", c.Passed(), c.MeansOnly())
	}
	if !strings.Contains(w.String(), "2 passes rest on the means alone") {
		t.Errorf("no means-only line:\n%s", w.String())
	}
}

// TestCheckTestChoice checks that report.test chooses the relation's
// test: with t, A − C (mean 0.2, sd 1.095, 5 pairs: t = 0.408) has
// p = 0.704; the corrected test scales t by 1/√(1 + 5·40/10) to 0.089,
// p = 0.933.
func TestCheckTestChoice(t *testing.T) {
	for _, tc := range []struct {
		test string
		want string
	}{
		{"", "corrected-t p=0.933"},
		{TestCorrectedT, "corrected-t p=0.933"},
		{TestT, "t p=0.704"},
		// Wilcoxon: |d| all 1, tied: normal approximation, W+ = 9 of
		// 15, z = (6 − 7.5)/√(13.75 − 120/48) = −0.447, p = 0.655.
		{TestWilcoxon, "wilcoxon p=0.655"},
	} {
		spec, rs := formsFixture(runner.Expectation{Metric: "accuracy", Better: "A", Than: "C", Sizes: []int{10}})
		spec.Report.Test = tc.test
		c := Check(spec, rs)
		if !strings.Contains(c.Rows[0].Measured, tc.want) {
			t.Errorf("test %q: measured %q, want %q in it", tc.test, c.Rows[0].Measured, tc.want)
		}
	}
}
