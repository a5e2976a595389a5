package stats

import (
	"math"
	"testing"
)

// The overlaps of Design.Overlap, by hand from its table.
func TestOverlap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      Design
		tr, te float64
	}{
		// sandler2008-fig3 at 500: 500/2000 and 1000/2000.
		{"redrawn", Design{Scheme: Redrawn, Rows: 2000, Pool: 1000, Train: 500, Test: 1000}, 0.25, 0.5},
		// Rows unknown: the pool and the test set.
		{"redrawn, rows from pool", Design{Scheme: Redrawn, Pool: 1000, Train: 500, Test: 1000}, 0.25, 0.5},
		{"fixed test", Design{Scheme: FixedTest, Rows: 18846, Pool: 11314, Train: 1000, Test: 7532}, 1000.0 / 11314, 1},
		{"complement", Design{Scheme: Complement, Rows: 1000, Train: 200, Test: 800}, 0.2, 0.8},
		// 5 folds × 2 repeats, the whole pool: 4 partners in the
		// partition share 3/4 and no test row; 5 in the other share 4/5
		// and 1/5: (4·3/4 + 5·4/5)/9 = 7/9, (5/5)/9 = 1/9.
		{"folds", Design{Scheme: Folds, Rows: 1000, Pool: 800, Train: 800, Test: 200, Folds: 5, Repeats: 2, Refold: true}, 7.0 / 9, 1.0 / 9},
		// 10 × 10, refold false, 100 of 900: 9 repeats share the fold
		// (1/9 of the pool, every test row), 90 others (1/9)·8/9 and none.
		{"repeated folds", Design{Scheme: Folds, Rows: 1000, Pool: 900, Train: 100, Test: 100, Folds: 10, Repeats: 10}, (9 + 90*8.0/9) / 9 / 99, 9.0 / 99},
		{"unknown", Design{Train: 10, Test: 10}, math.NaN(), math.NaN()},
	} {
		tr, te := tc.d.Overlap()
		if !near(tr, tc.tr, 1e-12) || !near(te, tc.te, 1e-12) {
			t.Errorf("%s: overlap %v, %v; want %v, %v", tc.name, tr, te, tc.tr, tc.te)
		}
	}
}

// design-t over repeats of one split: the t-test of the folds' means.
func TestDesignTUnits(t *testing.T) {
	// Two folds × two repeats: fold means 1.5 and 2.5 (a − b), so the
	// test is of {1.5, 2.5}: mean 2, sd √0.5, t = 2/(√0.5/√2) = 4, df 1.
	a := []float64{2, 3, 4, 3}
	b := []float64{1, 1, 1, 1}
	d := Design{Scheme: Folds, Folds: 2, Repeats: 2, Units: []int{0, 0, 1, 1}}
	r := Paired(TestDesignT, a, b, d)
	if r.N != 4 || r.Units != 2 || !near(r.Stat, 4, 1e-12) || r.DF != 1 || !near(r.P, 2*(0.5-math.Atan(4)/math.Pi), 1e-9) || !near(r.Diff, 2, 1e-12) {
		t.Errorf("design-t = %+v; want 4 pairs in 2 units, t 4, df 1, p %v", r, 2*(0.5-math.Atan(4)/math.Pi))
	}
	// Without units it is the t-test over the pairs.
	d.Units = nil
	if r, want := Paired(TestDesignT, a, b, d), Paired(TestT, a, b, d); r.Stat != want.Stat || r.P != want.P || r.Test != TestDesignT {
		t.Errorf("design-t without units %+v, want t's %+v", r, want)
	}
	// Repeats that copy their fold (a deterministic learner): the
	// plain t-test sees 4 pairs and no spread within folds; design-t
	// the two folds, {1, 3}: mean 2, se 1, t = 2.
	a = []float64{2, 2, 4, 4}
	d.Units = []int{0, 0, 1, 1}
	if r := Paired(TestDesignT, a, b, d); r.Units != 2 || !near(r.Stat, 2, 1e-12) {
		t.Errorf("copied repeats: %+v, want the t of {1, 3}: 2", r)
	}
	// A NaN pair drops out of its unit.
	a = []float64{2, math.NaN(), 4, 3}
	if r := Paired(TestDesignT, a, b, d); r.N != 3 || r.Units != 2 {
		t.Errorf("NaN pair: %+v", r)
	}
}

// Constant differences: the sign test's p, and the pairs a verdict
// needs.
func TestConstantDifferences(t *testing.T) {
	// Two folds, both −5.0: no longer p < 0.001.
	r := Paired(TestT, []float64{70, 75}, []float64{75, 80}, Design{})
	if !r.Constant || r.P != 0.5 || r.Sign() != -1 || r.Significant(0.05, -1) {
		t.Errorf("both −5.0: %+v; want a constant difference, p 0.5, no verdict", r)
	}
	for n, want := range map[int]float64{2: 0.5, 3: 0.25, 5: 0.0625, 6: 0.03125} {
		if got := ConstantP(n); got != want {
			t.Errorf("ConstantP(%d) = %v, want %v", n, got, want)
		}
	}
	if MinPairs(0.05) != 6 || MinPairs(0.01) != 8 {
		t.Errorf("MinPairs(0.05) = %d, MinPairs(0.01) = %d; want 6 and 8", MinPairs(0.05), MinPairs(0.01))
	}
	// Six pairs of one constant difference are significant, and
	// corrected-t does not correct a degenerate statistic.
	a, b := []float64{3, 4, 5, 6, 7, 8}, []float64{1, 2, 3, 4, 5, 6}
	for _, test := range []string{TestT, TestCorrectedT, TestDesignT} {
		if r := Paired(test, a, b, Design{Train: 10, Test: 90}); !r.Significant(0.05, 1) || r.P != 1.0/32 {
			t.Errorf("%s on six constant pairs: %+v", test, r)
		}
	}
}

// Describe names the overlap and what the test assumes of it.
func TestDescribe(t *testing.T) {
	d := Design{Kind: "holdout", Scheme: Redrawn, Rows: 2000, Pool: 1000, Train: 500, Test: 1000}
	want := "holdout split: a trial's training sample shares 25% of its rows with another trial's, and its test set 50% (expected, over pairs of trials); design-t takes the trials as uncorrelated: given the data, trials that draw their splits independently are, whatever rows they share (docs/statistics.md)"
	if got := Describe(TestDesignT, []Design{d}, []string{"500"}); got != want {
		t.Errorf("Describe =\n%s\nwant\n%s", got, want)
	}
	if got := Describe(TestDesignT, []Design{{Train: 5}}, []string{"5"}); got != "" {
		t.Errorf("unknown design: %q, want none", got)
	}
	if got := (Design{Scheme: Folds, Rows: 1000, Pool: 900, Train: 100, Test: 100, Folds: 10, Repeats: 10}).Short(); got != "trials share 10.0% of training rows, 9.1% of test rows, tested over 10 folds' means" {
		t.Errorf("Short = %q", got)
	}
}
