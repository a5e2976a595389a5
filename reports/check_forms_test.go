package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

func ip(n int) *int { return &n }

// formsFixture has three series on one holdout dataset, 5 trials at
// sizes 10, 20 and 30, 40 test rows (without dataset facts the pool is
// taken as the largest sample, 30: the default test is the plain t-test
// at size 10, the corrected one at 20 and 30, whose samples share at
// least half their rows): A
// ahead of B by about 10 points in every trial, C within a point of A
// either way.
func formsFixture(expect ...spec.Expectation) (*spec.Spec, []results.Result) {
	sp := &spec.Spec{
		Name:     "forms",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d", Split: spec.Split{Kind: "holdout", Params: param.Values{"test": 40.0, "stratify": false}}}},
		Methods: []spec.MethodSpec{
			{Name: "p", Label: "A", Grid: []param.Values{{}}},
			{Name: "p", Label: "B", Grid: []param.Values{{}}},
			{Name: "p", Label: "C", Grid: []param.Values{{}}},
		},
		Curve:   spec.Curve{Sizes: []float64{10, 20, 30}, Trials: 5},
		Metrics: []string{"accuracy"},
		Expect:  expect,
	}
	acc := map[string][]float64{
		"A": {80, 82, 81, 83, 84},
		"B": {70, 71, 73, 72, 74},
		"C": {81, 81, 82, 82, 83}, // A − C: −1, 1, −1, 1, 1
	}
	var rs []results.Result
	for _, size := range []int{10, 20, 30} {
		for _, m := range []string{"A", "B", "C"} {
			for tr, v := range acc[m] {
				rs = append(rs, results.Result{Key: keyOf(len(rs)), Dataset: "d", Method: m, Size: size, Trial: tr,
					TrainRows: size, TestRows: 40, Metrics: results.Metrics{"accuracy": v + float64(size)/10}})
			}
		}
	}
	return sp, rs
}

// TestCheckFormsGolden checks one expectation of each form, each passing
// and failing where it can, and pins how check prints them.
func TestCheckFormsGolden(t *testing.T) {
	at10 := []float64{10}
	sp, rs := formsFixture(
		spec.Expectation{Metric: "accuracy", Method: "A", Sizes: at10, Value: fp(83), Tol: fp(1), Source: "value"},
		spec.Expectation{Metric: "accuracy", Better: "A", Than: "C", Sizes: at10, Source: "direction only"},
		spec.Expectation{Metric: "accuracy", Better: "A", Than: "B", Sizes: at10, Significant: true, By: 5, Source: "significant, passes"},
		spec.Expectation{Metric: "accuracy", Better: "A", Than: "C", Sizes: at10, Significant: true, Source: "significant, fails"},
		spec.Expectation{Metric: "accuracy", Better: "C", Than: "A", Sizes: at10, AtPar: true, Within: fp(0.5), Source: "at_par, passes"},
		spec.Expectation{Metric: "accuracy", Better: "B", Than: "A", Sizes: at10, AtPar: true, Source: "at_par, fails"},
		spec.Expectation{Metric: "accuracy", Better: "C", Than: "A", Sizes: at10, Within: fp(0.5), Source: "within (non-inferiority)"},
		spec.Expectation{Metric: "accuracy", WTL: spec.WTLCount{Series: "A", Than: "B", Wins: ip(3), Ties: ip(0), Losses: ip(0)}, Source: "wtl, passes"},
		spec.Expectation{Metric: "accuracy", WTL: spec.WTLCount{Series: "A", Than: "C", Wins: ip(3), Ties: ip(0), Losses: ip(0)}, Slack: 2, Source: "wtl, fails"},
	)
	c := Check(sp, rs)
	var w bytes.Buffer
	WriteCheck(&w, c)
	golden(t, "check-forms.txt", w.Bytes())

	// The verdicts, independently of the golden file.
	want := []string{"PASS", "PASS (direction only, p=0.704)", "PASS", "FAIL (not significant, p=0.704)",
		"PASS", "FAIL (significant difference, p<0.001)", "PASS (non-inferior by mean, p=0.704)", "PASS", "FAIL (a count off by more than 2)"}
	if len(c.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(c.Rows), len(want))
	}
	for i, r := range c.Rows {
		if got := r.Verdict(); got != want[i] {
			t.Errorf("%s: verdict %q, want %q", r.Source, got, want[i])
		}
		// Relations and W/T/L: the default, design-t.
		if want := TestDesignT; r.Source != "value" && r.Test != want {
			t.Errorf("%s: test %q, want %s", r.Source, r.Test, want)
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
// p = 0.933. The default at size 10 is t (10 of a pool of 30).
func TestCheckTestChoice(t *testing.T) {
	for _, tc := range []struct {
		test string
		want string
	}{
		{"", "t p=0.704"},
		{TestCorrectedT, "corrected-t p=0.933"},
		{TestT, "t p=0.704"},
		// Wilcoxon: |d| all 1, tied: normal approximation, W+ = 9 of
		// 15, z = (6 − 7.5)/√(13.75 − 120/48) = −0.447, p = 0.655.
		{TestWilcoxon, "wilcoxon p=0.655"},
	} {
		sp, rs := formsFixture(spec.Expectation{Metric: "accuracy", Better: "A", Than: "C", Sizes: []float64{10}})
		sp.Report.Test = tc.test
		c := Check(sp, rs)
		if !strings.Contains(c.Rows[0].Measured, tc.want) {
			t.Errorf("test %q: measured %q, want %q in it", tc.test, c.Rows[0].Measured, tc.want)
		}
	}
}

// TestDefaultTestOverlap checks the default paired test — design-t,
// the plain t-test for in-sample metrics — and the pools PoolRows takes
// from the dataset's rows or, without them, from the split.
func TestDefaultTestOverlap(t *testing.T) {
	for kind, want := range map[string]string{"holdout": TestDesignT, "kfold": TestDesignT, "rest": TestDesignT, "given": TestDesignT, "train": TestT, "": TestDesignT} {
		if got := DefaultTest(kind); got != want {
			t.Errorf("DefaultTest(%q) = %s, want %s", kind, got, want)
		}
	}
	split := func(kind string, p param.Values) *spec.DatasetSpec {
		return &spec.DatasetSpec{Split: spec.Split{Kind: kind, Params: p}}
	}
	for _, tc := range []struct {
		name                             string
		ds                               *spec.DatasetSpec
		rows, train, test, largest, want int
	}{
		{"holdout, rows known", split("holdout", param.Values{"test": 500.0}), 1532, 20, 500, 800, 1032},
		{"kfold, rows known", split("kfold", param.Values{"folds": 10}), 1000, 900, 100, 900, 900},
		{"rest, rows known", split("rest", nil), 1000, 100, 900, 400, 1000},
		{"given, rows known", split("given", nil), 18846, 100, 7532, 1000, 11314},
		{"kfold, estimated from the folds", split("kfold", param.Values{"folds": 10}), 0, 50, 100, 200, 900},
		{"holdout fraction, estimated", split("holdout", param.Values{"test": 0.25}), 0, 50, 100, 200, 300},
		{"rest, estimated", split("rest", nil), 0, 100, 900, 400, 1000},
		{"holdout count, largest sample", split("holdout", param.Values{"test": 500.0}), 0, 20, 500, 800, 800},
		{"given, largest sample", split("given", nil), 0, 20, 500, 800, 800},
	} {
		if got := PoolRows(tc.ds, tc.rows, tc.train, tc.test, tc.largest); got != tc.want {
			t.Errorf("%s: PoolRows = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestCheckDirPools checks that CheckDir takes the pool from
// datasets.json for the designs the tests assume: the forms fixture's
// dataset of 240 rows (40 test, a pool of 200), against the largest
// sample (30) as the pool without it; corrected-t, asked for, scales by
// the trials' rows either way, and design-t runs by default.
func TestCheckDirPools(t *testing.T) {
	sp, rs := formsFixture(spec.Expectation{Metric: "accuracy", Better: "A", Than: "B", Sizes: []float64{30}, Significant: true},
		spec.Expectation{Metric: "accuracy", WTL: spec.WTLCount{Series: "A", Than: "B", Wins: ip(3), Ties: ip(0), Losses: ip(0)}})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, results.DatasetsFile), []byte(`{"d": {"plugin": "csv", "rows": 240, "cols": 3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c             *Checked
		relation, wtl string
	}{
		{CheckDir(dir, sp, rs), TestDesignT, TestDesignT},
		{Check(sp, rs), TestDesignT, TestDesignT},
	} {
		if got := tc.c.Rows[0].Test; got != tc.relation {
			t.Errorf("relation at 30: test %s, want %s", got, tc.relation)
		}
		if got := tc.c.Rows[1].Test; got != tc.wtl {
			t.Errorf("wtl: test %s, want %s", got, tc.wtl)
		}
	}
}

// TestTestsAt checks how a table names its tests and the designs'
// overlap.
func TestTestsAt(t *testing.T) {
	hold := func(train int) stats.Design {
		return stats.Design{Kind: "holdout", Scheme: stats.Redrawn, Rows: 2000, Pool: 1000, Train: train, Test: 1000}
	}
	bilgic := stats.Design{Kind: "kfold", Scheme: stats.Folds, Rows: 1000, Pool: 900, Train: 50, Test: 100, Folds: 10, Repeats: 10}
	for _, tc := range []struct {
		uses []testUse
		want string
	}{
		{[]testUse{{20, TestT, stats.Design{}}, {50, TestT, stats.Design{}}}, "two-sided paired t-test"},
		{[]testUse{{500, TestDesignT, hold(500)}, {1000, TestDesignT, hold(1000)}},
			"two-sided paired t-test (design-t) Design: holdout split: a trial's training sample shares 25% (500), 50% (1000) of its rows with another trial's, and its test set 50% (expected, over pairs of trials); design-t takes the trials as uncorrelated: given the data, trials that draw their splits independently are, whatever rows they share (docs/statistics.md); in parentheses the sizes."},
		{[]testUse{{50, TestDesignT, bilgic}}, "two-sided paired t-test (design-t) Design: kfold split (10 folds × 10 repeats, refold false): a trial's training sample shares 5.0% of its rows with another trial's, and its test set 9.1% (expected, over pairs of trials); design-t averages the 10 repeats of each fold, which share its split, and tests the 10 folds' means (docs/statistics.md)."},
		{[]testUse{{500, TestCorrectedT, hold(500)}}, "two-sided corrected resampled t-test (Nadeau & Bengio 2003: variance × (1/J + n_test/n_train)) Design: holdout split: a trial's training sample shares 25% of its rows with another trial's, and its test set 50% (expected, over pairs of trials); corrected-t assumes a correlation n_test/(n_train + n_test) between trials: 0.67 (docs/statistics.md)."},
		{[]testUse{{800, TestT, stats.Design{}}, {400, TestCorrectedT, stats.Design{}}}, "two-sided corrected resampled t-test (Nadeau & Bengio 2003: variance × (1/J + n_test/n_train)), or the two-sided paired t-test where the trials recorded no row counts"},
		{[]testUse{{20, TestWilcoxon, stats.Design{}}}, "two-sided Wilcoxon signed-rank test"},
	} {
		if got := testsAt(tc.uses) + designNote(tc.uses, "sizes"); got != tc.want {
			t.Errorf("testsAt(%v) =\n%s\nwant\n%s", tc.uses, got, tc.want)
		}
	}
}

// TestRenderNoTrialsNamesTest renders a spec with a baseline and no
// results: the W/T/L table has no test to name from, and names the one
// the largest size would take instead of failing.
func TestRenderNoTrialsNamesTest(t *testing.T) {
	sp, _ := formsFixture()
	sp.Baseline = "A"
	files, err := Render(t.TempDir(), sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if md := string(files[ReportFile]); strings.Contains(md, "Win/Tie/Loss") && !strings.Contains(md, "t-test") {
		t.Errorf("W/T/L section names no test:\n%s", md)
	}
}
