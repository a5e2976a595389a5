package reports

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// summary holds descriptive statistics of a sample.
type summary struct {
	N                  int
	Mean, SD, Min, Max float64
}

// summarize returns the statistics of xs, ignoring NaN values. SD is the
// sample standard deviation (n−1); it is NaN for fewer than two values.
func summarize(xs []float64) summary {
	s := summary{Mean: math.NaN(), SD: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	sum := 0.0
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		if s.N == 0 || x < s.Min {
			s.Min = x
		}
		if s.N == 0 || x > s.Max {
			s.Max = x
		}
		s.N++
		sum += x
	}
	if s.N == 0 {
		return s
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		ss := 0.0
		for _, x := range xs {
			if !math.IsNaN(x) {
				d := x - s.Mean
				ss += d * d
			}
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}

// tTest is the outcome of a paired t-test.
type tTest struct {
	N    int     // number of pairs
	Diff float64 // mean of a − b
	T    float64 // t statistic
	DF   float64 // degrees of freedom, N − 1
	P    float64 // two-sided p-value; NaN with fewer than two pairs
}

// pairedTTest tests the mean of the differences a[i] − b[i] against zero
// (two-sided, Student's t with n−1 degrees of freedom), as R's
// t.test(a, b, paired = TRUE). Pairs where either value is NaN are dropped.
// When every difference is the same, the test is degenerate (R refuses
// such data): p is 1 if the differences are zero — or zero up to rounding,
// below 1e-12 of the values compared — and 0 otherwise, the limit of the
// test as the spread of the differences goes to zero. So two methods that
// agree on every trial tie, and one that is ahead by the same amount on
// every trial (say exactly one more test point right) wins.
func pairedTTest(a, b []float64) tTest {
	if len(a) != len(b) {
		panic("reports: pairedTTest: length mismatch")
	}
	var d []float64
	scale := 0.0
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			d = append(d, a[i]-b[i])
			scale = math.Max(scale, math.Max(math.Abs(a[i]), math.Abs(b[i])))
		}
	}
	r := tTest{N: len(d), Diff: math.NaN(), T: math.NaN(), DF: float64(len(d) - 1), P: math.NaN()}
	if len(d) == 0 {
		return r
	}
	s := summarize(d)
	r.Diff = s.Mean
	if len(d) < 2 {
		return r
	}
	se := s.SD / math.Sqrt(float64(len(d)))
	if se == 0 || se < 1e-14*math.Abs(s.Mean) {
		if math.Abs(s.Mean) <= 1e-12*scale {
			r.T, r.P = 0, 1
		} else {
			r.T, r.P = math.Copysign(math.Inf(1), s.Mean), 0
		}
		return r
	}
	r.T = s.Mean / se
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.P = 2 * dist.Survival(math.Abs(r.T))
	if r.P > 1 {
		r.P = 1
	}
	return r
}

// The paired tests PairedTest runs, as report.test names them.
const (
	// TestT is Student's paired t-test: the mean of the differences over
	// their standard error, n−1 degrees of freedom.
	TestT = "t"
	// TestCorrectedT is the corrected resampled t-test of Nadeau and
	// Bengio (2003), Weka Experimenter's "corrected" tester: the variance
	// of the mean difference is s²·(1/J + nTest/nTrain) instead of s²/J,
	// for J trials whose training sets overlap (k-fold cross-validation,
	// repeated random subsampling), which make the plain t-test find
	// differences too often.
	TestCorrectedT = "corrected-t"
	// TestWilcoxon is the Wilcoxon signed-rank test: zero differences
	// dropped (Wilcoxon's method), tied |differences| given their mean
	// rank; the exact null distribution when there are at most 50 pairs
	// and no zero or tied difference (as R's wilcox.test), else the
	// normal approximation with the tie-corrected variance and no
	// continuity correction (scipy.stats.wilcoxon with method="approx").
	TestWilcoxon = "wilcoxon"
)

// Tests lists the names PairedTest accepts.
var Tests = []string{TestT, TestCorrectedT, TestWilcoxon}

// TestResult is the outcome of a paired test of a against b.
type TestResult struct {
	// Test is the test that ran: the one asked for, or TestT when
	// TestCorrectedT had no row counts to correct with.
	Test string
	// N is the number of pairs (without a NaN on either side).
	N int
	// Diff is the mean of the differences a[i] − b[i].
	Diff float64
	// Stat is the test statistic: t for the t-tests, the sum of the
	// ranks of the positive differences (W+) for the Wilcoxon test.
	Stat float64
	// DF is the t-tests' degrees of freedom, N − 1 (NaN for Wilcoxon).
	DF float64
	// P is the two-sided p-value; NaN with fewer than two pairs.
	P float64
	// sign is the direction of the difference the test measured: +1 when
	// a is ahead, −1 when b is, 0 for none.
	sign int
}

// Sign returns the direction of the difference the test measured: +1
// when a is ahead (the mean difference for the t-tests, W+ above W− for
// the Wilcoxon test), −1 when b is, 0 when neither is.
func (r TestResult) Sign() int { return r.sign }

// Significant reports whether the test found a difference at level alpha
// in the direction dir (+1: a ahead, −1: b ahead).
func (r TestResult) Significant(alpha float64, dir int) bool {
	return !math.IsNaN(r.P) && r.P < alpha && r.sign == dir && dir != 0
}

// PairedTest runs the paired test named test (TestT, TestCorrectedT or
// TestWilcoxon) on the pairs (a[i], b[i]), dropping pairs with a NaN.
// nTrain and nTest are the training and test rows of one trial, which
// the corrected t-test needs (the mean over the trials when they vary,
// as the folds of a k-fold split do); the other tests ignore them, and
// TestCorrectedT without them (either ≤ 0) runs TestT, which
// TestResult.Test then says. The t-tests are degenerate when all pairs
// differ by the same amount: p is 1 when that is zero (up to rounding)
// and 0 otherwise (see pairedTTest); the Wilcoxon test gives p = 1 when
// every difference is zero. PairedTest panics if a and b differ in
// length or test is not a known test.
func PairedTest(test string, a, b []float64, nTrain, nTest int) TestResult {
	switch test {
	case TestT, TestCorrectedT:
		tt := pairedTTest(a, b)
		r := TestResult{Test: TestT, N: tt.N, Diff: tt.Diff, Stat: tt.T, DF: tt.DF, P: tt.P, sign: sign(tt.Diff)}
		if tt.N > 0 && math.IsNaN(tt.P) {
			r.sign = 0 // one pair: no test, no direction
		}
		if test == TestT || nTrain <= 0 || nTest <= 0 {
			return r
		}
		r.Test = TestCorrectedT
		if tt.N < 2 || math.IsInf(tt.T, 0) || tt.T == 0 {
			return r // degenerate: no spread to correct
		}
		// t = mean/(s/√J); corrected: mean/(s·√(1/J + n2/n1)).
		j := float64(tt.N)
		r.Stat = tt.T / math.Sqrt(1+j*float64(nTest)/float64(nTrain))
		dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: tt.DF}
		r.P = math.Min(1, 2*dist.Survival(math.Abs(r.Stat)))
		return r
	case TestWilcoxon:
		return wilcoxon(a, b)
	}
	panic("reports: PairedTest: unknown test " + test)
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// wilcoxon is the Wilcoxon signed-rank test of PairedTest.
func wilcoxon(a, b []float64) TestResult {
	if len(a) != len(b) {
		panic("reports: PairedTest: length mismatch")
	}
	var d []float64
	scale := 0.0
	sum := 0.0
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			d = append(d, a[i]-b[i])
			sum += a[i] - b[i]
			scale = math.Max(scale, math.Max(math.Abs(a[i]), math.Abs(b[i])))
		}
	}
	r := TestResult{Test: TestWilcoxon, N: len(d), Diff: math.NaN(), Stat: math.NaN(), DF: math.NaN(), P: math.NaN()}
	if len(d) == 0 {
		return r
	}
	r.Diff = sum / float64(len(d))
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
	r.sign = sign(wPlus - (total - wPlus))
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
