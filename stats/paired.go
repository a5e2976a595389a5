package stats

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The paired tests of the registry, as report.test names them.
const (
	// TestT is Student's paired t-test: the mean of the differences over
	// their standard error, n−1 degrees of freedom.
	TestT = "t"
	// TestCorrectedT is the corrected resampled t-test of Nadeau and
	// Bengio (2003), Weka Experimenter's "corrected" tester: the variance
	// of the mean difference is s²·(1/J + nTest/nTrain) instead of s²/J.
	TestCorrectedT = "corrected-t"
	// TestWilcoxon is the Wilcoxon signed-rank test.
	TestWilcoxon = "wilcoxon"
	// TestDesignT is the default: the paired t-test over the design's
	// independent units — the trials, or the means of the trials that
	// repeat one split (k-fold with refold false) — see Design.
	TestDesignT = "design-t"
)

// Test is a paired test of two series over trials.
type Test struct {
	// Name is the name report.test and diff --test use.
	Name string
	// Doc says what the test computes, in one sentence.
	Doc string
	// Run tests the pairs (a[i], b[i]) of trials of design d, pairs with
	// a NaN on either side dropped. It panics if a and b differ in length.
	Run func(a, b []float64, d Design) Result
}

var (
	tests     = map[string]*Test{}
	testNames []string
)

// Register adds t to the registry; it panics if the name is taken.
func Register(t *Test) {
	if _, dup := tests[t.Name]; dup || t.Name == "" || t.Run == nil {
		panic("stats: Register: bad or duplicate test " + t.Name)
	}
	tests[t.Name] = t
	testNames = append(testNames, t.Name)
}

// Lookup returns the test called name.
func Lookup(name string) (*Test, error) {
	if t, ok := tests[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("unknown paired test %q; want one of %v", name, testNames)
}

// Names lists the registered tests in order of registration.
func Names() []string { return slices.Clone(testNames) }

// Paired runs the registered test called name; it panics if there is none
// (names come from a validated spec or flag).
func Paired(name string, a, b []float64, d Design) Result {
	t, err := Lookup(name)
	if err != nil {
		panic("stats: " + err.Error())
	}
	return t.Run(a, b, d)
}

func init() {
	Register(&Test{Name: TestT, Doc: "two-sided paired t-test over the trials", Run: func(a, b []float64, _ Design) Result {
		return tResult(a, b)
	}})
	Register(&Test{Name: TestCorrectedT, Doc: "two-sided corrected resampled t-test (Nadeau & Bengio 2003): the variance of the mean difference × (1/J + n_test/n_train)", Run: corrected})
	Register(&Test{Name: TestWilcoxon, Doc: "two-sided Wilcoxon signed-rank test over the trials", Run: func(a, b []float64, _ Design) Result {
		return wilcoxon(a, b)
	}})
	Register(&Test{Name: TestDesignT, Doc: "two-sided paired t-test over the design's independent units: the trials, or the means of the trials that repeat one split", Run: designT})
}

// Result is the outcome of a paired test of a against b.
type Result struct {
	// Test is the test that ran: the one asked for, or TestT when
	// TestCorrectedT had no row counts to correct with.
	Test string
	// N is the number of pairs (without a NaN on either side).
	N int
	// Units is the number of independent units the test ran over (N, or
	// the splits the trials of a design-t test repeat).
	Units int
	// Diff is the mean of the differences a[i] − b[i].
	Diff float64
	// Stat is the test statistic: t for the t-tests, the sum of the
	// ranks of the positive differences (W+) for the Wilcoxon test.
	Stat float64
	// DF is the t-tests' degrees of freedom, Units − 1 (NaN for Wilcoxon).
	DF float64
	// P is the two-sided p-value; NaN with fewer than two pairs.
	P float64
	// Constant reports a t-test whose differences did not vary (and were
	// not all zero): P is then the sign test's 2^(1−n) (ConstantP).
	Constant bool
	// sign is the direction of the difference the test measured.
	sign int
}

// Sign returns the direction of the difference the test measured: +1
// when a is ahead (the mean difference for the t-tests, W+ above W− for
// the Wilcoxon test), −1 when b is, 0 when neither is.
func (r Result) Sign() int { return r.sign }

// Significant reports whether the test found a difference at level alpha
// in the direction dir (+1: a ahead, −1: b ahead).
func (r Result) Significant(alpha float64, dir int) bool {
	return !math.IsNaN(r.P) && r.P < alpha && r.sign == dir && dir != 0
}

// ConstantP is the p-value of n differences that are all equal and not
// zero: no spread is left to estimate a variance from, so the t-tests'
// statistic is infinite, but under any null symmetric about zero the n
// differences share one sign with probability 2·2⁻ⁿ — the exact two-sided
// sign test, and the least p a test that does not assume the differences'
// distribution can give. Two pairs (both −5.0) give 0.5.
func ConstantP(n int) float64 { return math.Min(1, math.Pow(2, float64(1-n))) }

// MinPairs returns the least number of pairs (units) whose differences,
// all of one sign, can reach p < alpha: the least n with ConstantP(n) <
// alpha (6 at α = 0.05). The t-tests reach p < alpha from 2 pairs when
// the differences vary (|t| > 12.7 with one degree of freedom at 0.05);
// differences that do not vary, and the Wilcoxon test, need MinPairs.
func MinPairs(alpha float64) int {
	n := 2
	for ConstantP(n) >= alpha && n < 64 {
		n++
	}
	return n
}

// diffs returns the differences a[i] − b[i] of the pairs without a NaN,
// their indices and the largest |value| compared.
func diffs(a, b []float64) (d []float64, idx []int, scale float64) {
	if len(a) != len(b) {
		panic("stats: paired test: length mismatch")
	}
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			d = append(d, a[i]-b[i])
			idx = append(idx, i)
			scale = math.Max(scale, math.Max(math.Abs(a[i]), math.Abs(b[i])))
		}
	}
	return d, idx, scale
}

// tOf is the one-sample t-test of d's mean against zero (Student's t with
// n−1 degrees of freedom), as R's t.test(a, b, paired = TRUE). When the
// values do not vary the test is degenerate (R refuses such data): p is
// 1 if they are zero — or zero up to rounding, below 1e-12 of scale —
// and ConstantP(n) otherwise, with Constant set.
func tOf(d []float64, scale float64) Result {
	r := Result{Test: TestT, N: len(d), Units: len(d), Diff: math.NaN(), Stat: math.NaN(), DF: float64(len(d) - 1), P: math.NaN()}
	if len(d) == 0 {
		return r
	}
	s := Summarize(d)
	r.Diff = s.Mean
	if len(d) < 2 {
		return r // one pair: no test, no direction
	}
	r.sign = sgn(s.Mean)
	se := s.SD / math.Sqrt(float64(len(d)))
	if se == 0 || se < 1e-14*math.Abs(s.Mean) {
		if math.Abs(s.Mean) <= 1e-12*scale {
			r.Stat, r.P, r.sign = 0, 1, 0
		} else {
			r.Stat, r.P, r.Constant = math.Copysign(math.Inf(1), s.Mean), ConstantP(len(d)), true
		}
		return r
	}
	r.Stat = s.Mean / se
	r.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}.Survival(math.Abs(r.Stat)))
	return r
}

// tResult is the paired t-test of a against b.
func tResult(a, b []float64) Result {
	d, _, scale := diffs(a, b)
	return tOf(d, scale)
}

// corrected is the corrected resampled t-test: t/√(1 + J·n_test/n_train)
// on J − 1 degrees of freedom. Without row counts (either ≤ 0) it is the
// t-test, and says so in Result.Test; a degenerate t (no spread, or a
// zero mean) is not corrected.
func corrected(a, b []float64, dz Design) Result {
	r := tResult(a, b)
	if dz.Train <= 0 || dz.Test <= 0 {
		return r
	}
	r.Test = TestCorrectedT
	if r.N < 2 || math.IsInf(r.Stat, 0) || r.Stat == 0 {
		return r
	}
	j := float64(r.N)
	r.Stat /= math.Sqrt(1 + j*float64(dz.Test)/float64(dz.Train))
	r.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}.Survival(math.Abs(r.Stat)))
	return r
}

// designT is the default test: the t-test over the means of the pairs of
// each unit of dz (Design.Units), the pairs themselves when the design
// ties no trials together.
func designT(a, b []float64, dz Design) Result {
	d, idx, scale := diffs(a, b)
	if dz.Units == nil {
		r := tOf(d, scale)
		r.Test = TestDesignT
		return r
	}
	if len(dz.Units) != len(a) {
		panic("stats: design-t: Units and pairs differ in length")
	}
	sum := map[int]float64{}
	cnt := map[int]int{}
	var order []int
	for k, i := range idx {
		u := dz.Units[i]
		if cnt[u] == 0 {
			order = append(order, u)
		}
		sum[u] += d[k]
		cnt[u]++
	}
	means := make([]float64, len(order))
	for k, u := range order {
		means[k] = sum[u] / float64(cnt[u])
	}
	r := tOf(means, scale)
	r.Test, r.N, r.Units = TestDesignT, len(d), len(means)
	if len(d) > 0 {
		r.Diff = Summarize(d).Mean
	}
	return r
}

func sgn(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// wilcoxon is the Wilcoxon signed-rank test: zero differences dropped
// (Wilcoxon's method), tied |differences| given their mean rank; the
// exact null distribution when there are at most 50 pairs and no zero or
// tied difference (as R's wilcox.test), else the normal approximation
// with the tie-corrected variance and no continuity correction
// (scipy.stats.wilcoxon with method="approx"). p is 1 when every
// difference is zero.
func wilcoxon(a, b []float64) Result {
	d, _, scale := diffs(a, b)
	r := Result{Test: TestWilcoxon, N: len(d), Units: len(d), Diff: math.NaN(), Stat: math.NaN(), DF: math.NaN(), P: math.NaN()}
	if len(d) == 0 {
		return r
	}
	r.Diff = Summarize(d).Mean
	if len(d) < 2 {
		return r
	}
	// Zero differences (up to rounding) are dropped; the others are
	// ranked by magnitude, magnitudes equal up to rounding tied.
	eps := 1e-12 * scale
	var nz []float64
	for _, v := range d {
		if math.Abs(v) > eps {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		r.Stat, r.P = 0, 1
		return r
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return math.Abs(nz[idx[i]]) < math.Abs(nz[idx[j]]) })
	ranks := make([]float64, n)
	tieTerm := 0.0 // Σ (t³ − t) over groups of t tied magnitudes
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(nz[idx[j]])-math.Abs(nz[idx[i]]) <= eps {
			j++
		}
		for k := i; k < j; k++ {
			ranks[idx[k]] = float64(i+j+1) / 2 // mean of ranks i+1 … j
		}
		t := float64(j - i)
		tieTerm += t*t*t - t
		i = j
	}
	wPlus, total := 0.0, float64(n*(n+1))/2
	for i, v := range nz {
		if v > 0 {
			wPlus += ranks[i]
		}
	}
	r.Stat = wPlus
	r.sign = sgn(wPlus - (total - wPlus))
	if r.sign == 0 {
		r.P = 1
		return r
	}
	if n == len(d) && n <= 50 && tieTerm == 0 {
		// Exact: P(W ≤ min(W+, W−)), doubled.
		r.P = math.Min(1, 2*signedRankCDF(n, math.Min(wPlus, total-wPlus)))
		return r
	}
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	v := nf*(nf+1)*(2*nf+1)/24 - tieTerm/48
	if v <= 0 {
		r.P = 1
		return r
	}
	z := (math.Min(wPlus, total-wPlus) - mean) / math.Sqrt(v)
	r.P = math.Min(1, 2*distuv.UnitNormal.CDF(-math.Abs(z)))
	return r
}

// signedRankCDF returns P(W ≤ w) for the signed-rank statistic of n
// pairs without ties: the number of subsets of {1, …, n} whose sum is at
// most w, over 2ⁿ.
func signedRankCDF(n int, w float64) float64 {
	max := n * (n + 1) / 2
	counts := make([]float64, max+1)
	counts[0] = 1
	for k := 1; k <= n; k++ {
		for s := max; s >= k; s-- {
			counts[s] += counts[s-k]
		}
	}
	c := 0.0
	for s := 0; s <= max && float64(s) <= w+1e-9; s++ {
		c += counts[s]
	}
	return c / math.Pow(2, float64(n))
}
