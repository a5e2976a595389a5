package reports

import (
	"math"

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
