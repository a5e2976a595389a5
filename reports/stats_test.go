package reports

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name               string
		xs                 []float64
		n                  int
		mean, sd, min, max float64
	}{
		{"basic", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 8, 5, math.Sqrt(32.0 / 7), 2, 9},
		{"NaN skipped", []float64{1, math.NaN(), 3}, 2, 2, math.Sqrt2, 1, 3},
		{"single", []float64{3}, 1, 3, math.NaN(), 3, 3},
		{"empty", nil, 0, math.NaN(), math.NaN(), math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(tc.xs)
			if s.N != tc.n || !near(s.Mean, tc.mean, 1e-12) || !near(s.SD, tc.sd, 1e-12) ||
				!near(s.Min, tc.min, 0) || !near(s.Max, tc.max, 0) {
				t.Errorf("summarize(%v) = %+v, want n=%d mean=%g sd=%g min=%g max=%g",
					tc.xs, s, tc.n, tc.mean, tc.sd, tc.min, tc.max)
			}
		})
	}
}

// near reports whether a and b agree within tol, treating NaN as equal to NaN.
func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

func TestPairedTTest(t *testing.T) {
	// R's sleep data: t.test(sleep$extra[1:10], sleep$extra[11:20],
	// paired = TRUE) gives t = -4.0621, df = 9, p-value = 0.002833,
	// mean difference -1.58.
	g1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	g2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	tests := []struct {
		name       string
		a, b       []float64
		n          int
		diff, t, p float64
		tolT, tolP float64
	}{
		{"R sleep", g1, g2, 10, -1.58, -4.0621, 0.002833, 5e-5, 5e-7},
		{"R sleep reversed", g2, g1, 10, 1.58, 4.0621, 0.002833, 5e-5, 5e-7},
		// df = 1 is the Cauchy distribution: P(|T| > 1) = 1/2.
		// d = {0, 2}: mean 1, sd √2, se 1, t = 1.
		{"df=1 Cauchy", []float64{0, 2}, []float64{0, 0}, 2, 1, 1, 0.5, 1e-12, 1e-12},
		// df = 2: P(|T| > t) = 1 − t/√(2+t²). d = {1, 1, 4}: mean 2,
		// sd √3, se 1, t = 2, p = 1 − 2/√6.
		{"df=2 closed form", []float64{1, 1, 4}, []float64{0, 0, 0}, 3, 2, 2, 1 - 2/math.Sqrt(6), 1e-12, 1e-12},
		// df = 4: the 97.5% quantile 2.776445 gives p = 0.05. d = m + u
		// with u = {−2,−1,0,1,2}/√2.5 (sd 1) and m = 2.776445/√5: t = 2.776445.
		{"df=4 quantile", df4(2.776445 / math.Sqrt(5)), make([]float64, 5), 5,
			2.776445 / math.Sqrt(5), 2.776445, 0.05, 1e-9, 1e-6},
		{"constant nonzero", []float64{2, 3, 4}, []float64{1, 2, 3}, 3, 1, math.Inf(1), 0, 0, 0},
		{"identical", []float64{2, 3, 4}, []float64{2, 3, 4}, 3, 0, 0, 1, 0, 0},
		// Equal up to rounding (a sum in another order): a tie, not a win.
		{"rounding only", []float64{4.300000000000001, 5.300000000000001}, []float64{4.3, 5.3}, 2, math.NaN(), 0, 1, math.Inf(1), 0},
		// Ahead by exactly one point on every trial: the limit p = 0.
		{"constant one point", []float64{91, 88, 90}, []float64{90, 87, 89}, 3, 1, math.Inf(1), 0, 0, 0},
		{"NaN pair dropped", []float64{1, math.NaN(), 1, 4}, []float64{0, 5, 0, 0}, 3, 2, 2, 1 - 2/math.Sqrt(6), 1e-12, 1e-12},
		{"one pair", []float64{1}, []float64{0}, 1, 1, math.NaN(), math.NaN(), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := pairedTTest(tc.a, tc.b)
			if r.N != tc.n {
				t.Errorf("n = %d, want %d", r.N, tc.n)
			}
			if !math.IsNaN(tc.diff) && !near(r.Diff, tc.diff, 1e-12) {
				t.Errorf("diff = %g, want %g", r.Diff, tc.diff)
			}
			if !math.IsInf(tc.tolT, 1) && !(math.IsInf(tc.t, 0) && r.T == tc.t) && !near(r.T, tc.t, tc.tolT) {
				t.Errorf("t = %.6g, want %.6g", r.T, tc.t)
			}
			if !near(r.P, tc.p, tc.tolP) {
				t.Errorf("p = %.7g, want %.7g", r.P, tc.p)
			}
		})
	}
}

// df4 returns five values with mean m and standard deviation 1.
func df4(m float64) []float64 {
	out := make([]float64, 5)
	for i := range out {
		out[i] = m + float64(i-2)/math.Sqrt(2.5)
	}
	return out
}
