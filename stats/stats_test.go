package stats

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
			s := Summarize(tc.xs)
			if s.N != tc.n || !near(s.Mean, tc.mean, 1e-12) || !near(s.SD, tc.sd, 1e-12) ||
				!near(s.Min, tc.min, 0) || !near(s.Max, tc.max, 0) {
				t.Errorf("Summarize(%v) = %+v, want n=%d mean=%g sd=%g min=%g max=%g",
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
		// Constant differences: no spread; the sign test's p = 2^(1−n).
		{"constant nonzero", []float64{2, 3, 4}, []float64{1, 2, 3}, 3, 1, math.Inf(1), 0.25, 0, 0},
		{"identical", []float64{2, 3, 4}, []float64{2, 3, 4}, 3, 0, 0, 1, 0, 0},
		// Equal up to rounding (a sum in another order): a tie, not a win.
		{"rounding only", []float64{4.300000000000001, 5.300000000000001}, []float64{4.3, 5.3}, 2, math.NaN(), 0, 1, math.Inf(1), 0},
		// Ahead by exactly one point on every trial: p = 2^(1−3).
		{"constant one point", []float64{91, 88, 90}, []float64{90, 87, 89}, 3, 1, math.Inf(1), 0.25, 0, 0},
		{"NaN pair dropped", []float64{1, math.NaN(), 1, 4}, []float64{0, 5, 0, 0}, 3, 2, 2, 1 - 2/math.Sqrt(6), 1e-12, 1e-12},
		{"one pair", []float64{1}, []float64{0}, 1, 1, math.NaN(), math.NaN(), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Paired(TestT, tc.a, tc.b, Design{})
			if r.N != tc.n {
				t.Errorf("n = %d, want %d", r.N, tc.n)
			}
			if !math.IsNaN(tc.diff) && !near(r.Diff, tc.diff, 1e-12) {
				t.Errorf("diff = %g, want %g", r.Diff, tc.diff)
			}
			if !math.IsInf(tc.tolT, 1) && !(math.IsInf(tc.t, 0) && r.Stat == tc.t) && !near(r.Stat, tc.t, tc.tolT) {
				t.Errorf("t = %.6g, want %.6g", r.Stat, tc.t)
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

// n60 is a sample of 60 differences drawn from N(0.3, 1) (numpy
// default_rng(3), rounded to 6 decimals) for the normal approximation.
var n60 = []float64{2.340919, -2.255665, 0.718099, -0.26777, -0.152649, 0.084403, -1.719986, 0.068068, -0.565213, 3.623, 0.525787, -0.052631, 0.018713, -0.368046, -0.755151, -0.090801, 0.781945, 0.061446, 1.257759, 0.100198, 0.32426, 1.845821, 0.845106, -0.205229, 0.117161, 0.840525, 2.235088, 0.03038, 0.056441, 1.302314, -0.58646, 0.00828, 1.182539, 0.88035, 0.391517, 0.970104, -2.528162, 1.321307, -0.659645, -1.36862, 0.576446, 1.000545, -0.144767, -0.776406, 0.326125, 0.247253, 1.705598, 1.047408, 0.493816, 1.411633, 0.094477, -0.6259, 0.884058, 0.882538, 0.085171, -0.482809, 0.529154, -2.193894, 0.990125, 0.791368}

// TestPairedScipy compares Paired with scipy 1.10.1:
// scipy.stats.wilcoxon(a, b) (its statistic is min(W+, W−); exact up to
// 50 pairs without zeros, else the normal approximation),
// scipy.stats.ttest_rel, and the corrected t computed from
// scipy.stats.t.sf(|t|, J−1) with t = mean/(sd·√(1/J + n_test/n_train)).
func TestPairedScipy(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30, 1.1}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29, 0.9}
	sleepA := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleepB := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	tests := []struct {
		name          string
		test          string
		a, b          []float64
		nTrain, nTest int
		stat, p       float64
		sign          int
	}{
		{"wilcoxon exact", TestWilcoxon, x, y, 0, 0, 5, 0.01953125, 1},
		{"wilcoxon exact, all ahead", TestWilcoxon, []float64{5, 6, 7, 8, 9}, []float64{4, 4, 4, 4, 4.5}, 0, 0, 0, 0.0625, 1},
		// Tied magnitudes: the normal approximation, as R's wilcox.test
		// and scipy ≥ 1.13 use; scipy 1.10's default would apply the
		// exact no-ties distribution (p = 0.25), so the reference is
		// wilcoxon(a, b, method="approx").
		{"wilcoxon ties", TestWilcoxon, []float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{0, 1, 2, 5, 3, 4, 9, 6}, 0, 0, 9, 0.1962447266045112, 1},
		{"wilcoxon zeros", TestWilcoxon, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, []float64{1, 2, 1, 1, 2, 9, 3, 3, 2}, 0, 0, 3, 0.061100930439551705, 1},
		{"wilcoxon R sleep", TestWilcoxon, sleepA, sleepB, 0, 0, 0, 0.007632441648205508, -1},
		{"wilcoxon n=60", TestWilcoxon, n60, make([]float64, 60), 0, 0, 579, 0.013379732514095138, 1},
		{"t", TestT, x, y, 0, 0, 3.159421903171674, 0.011560963599245338, 1},
		{"corrected 90/10", TestCorrectedT, x, y, 90, 10, 2.1744632835685698, 0.05769254379274019, 1},
		{"corrected 30/120", TestCorrectedT, x, y, 30, 120, 0.4934188040115798, 0.633532780335389, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Paired(tc.test, tc.a, tc.b, Design{Train: tc.nTrain, Test: tc.nTest})
			stat := r.Stat
			if tc.test == TestWilcoxon {
				total := float64(r.N*(r.N+1)) / 2
				if z := countZeros(tc.a, tc.b); z > 0 {
					total = float64((r.N-z)*(r.N-z+1)) / 2
				}
				stat = math.Min(r.Stat, total-r.Stat)
			}
			if r.Test != tc.test || !near(stat, tc.stat, 1e-9) || !near(r.P, tc.p, 1e-9) || r.Sign() != tc.sign {
				t.Errorf("Paired = %+v (stat %v, sign %d), want test %s stat %v p %v sign %d", r, stat, r.Sign(), tc.test, tc.stat, tc.p, tc.sign)
			}
		})
	}
}

func countZeros(a, b []float64) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// The tests' limits and fallbacks.
func TestPairedEdges(t *testing.T) {
	// The corrected test without row counts is the plain one, and says so.
	if r := Paired(TestCorrectedT, []float64{1, 2, 4}, []float64{0, 0, 0}, Design{}); r.Test != TestT {
		t.Errorf("corrected without rows ran %s, want t", r.Test)
	}
	// Every difference zero: no direction, p = 1.
	for _, test := range Names() {
		r := Paired(test, []float64{1, 2, 3}, []float64{1, 2, 3}, Design{Train: 10, Test: 10})
		if r.P != 1 || r.Sign() != 0 || r.Significant(0.05, 1) {
			t.Errorf("%s on identical pairs: %+v", test, r)
		}
	}
	// One pair: no test.
	for _, test := range Names() {
		r := Paired(test, []float64{2}, []float64{1}, Design{Train: 10, Test: 10})
		if !math.IsNaN(r.P) || r.N != 1 || r.Significant(0.5, 1) {
			t.Errorf("%s on one pair: %+v", test, r)
		}
	}
}

// TestFriedmanScipy compares Friedman with scipy.stats.friedmanchisquare
// (scipy 1.10.1) and the average ranks with scipy.stats.rankdata.
func TestFriedmanScipy(t *testing.T) {
	// Demšar's (2006) Table 6 layout: 14 datasets × 4 classifiers (AUC).
	demsar := [][]float64{{0.763, 0.768, 0.771, 0.798}, {0.599, 0.591, 0.590, 0.569}, {0.954, 0.971, 0.968, 0.967}, {0.628, 0.661, 0.654, 0.657}, {0.882, 0.888, 0.886, 0.898}, {0.936, 0.931, 0.916, 0.931}, {0.661, 0.668, 0.609, 0.685}, {0.583, 0.583, 0.563, 0.625}, {0.775, 0.838, 0.866, 0.875}, {1.000, 1.000, 1.000, 1.000}, {0.940, 0.962, 0.965, 0.962}, {0.619, 0.666, 0.614, 0.669}, {0.972, 0.981, 0.975, 0.975}, {0.957, 0.978, 0.946, 0.970}}
	tests := []struct {
		name     string
		scores   [][]float64
		higher   bool
		chi2, p  float64
		avgRanks []float64
	}{
		{"Demšar layout", demsar, true, 10.952380952380956, 0.011986176325417788, []float64{3.142857142857143, 2, 2.9285714285714284, 1.9285714285714286}},
		// Lower is better: the ranks of the values themselves.
		{"small", [][]float64{{1, 2, 3}, {2, 3, 1}, {1, 3, 2}, {1, 2, 3}, {3, 2, 1}}, false, 1.6000000000000014, 0.44932896411722134, []float64{1.6, 2.4, 2}},
		{"ties", [][]float64{{1, 1, 3}, {2, 2, 1}, {1, 3, 3}, {5, 2, 3}, {3, 3, 1}, {4, 1, 2}}, false, 0.6999999999999943, 0.7046880897187155, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Friedman(tc.scores, tc.higher)
			if !near(r.Chi2, tc.chi2, 1e-9) || !near(r.P, tc.p, 1e-9) {
				t.Errorf("χ² = %v, p = %v; want %v, %v", r.Chi2, r.P, tc.chi2, tc.p)
			}
			for j, want := range tc.avgRanks {
				if !near(r.AvgRanks[j], want, 1e-12) {
					t.Errorf("average rank %d = %v, want %v", j, r.AvgRanks[j], want)
				}
			}
			// Iman–Davenport from χ².
			n, k := float64(len(tc.scores)), float64(len(tc.scores[0]))
			if ff := (n - 1) * r.Chi2 / (n*(k-1) - r.Chi2); !near(r.FF, ff, 1e-9) {
				t.Errorf("F_F = %v, want %v", r.FF, ff)
			}
		})
	}
}

// TestNemenyiQ checks q_α against Demšar's (2006) Table 5(a), given to
// three decimals, and scipy.stats.studentized_range.ppf(1−α, k, inf)/√2.
func TestNemenyiQ(t *testing.T) {
	demsar05 := []float64{1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164}
	demsar10 := []float64{1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920}
	scipy05 := []float64{1.9599639845400534, 2.343700586378409, 2.569031772546482, 2.7277743708703763, 2.8497054196100016, 2.9483200175296744, 3.030878449614413, 3.1017303413033805, 3.163683577053373}
	for i := range demsar05 {
		k := i + 2
		// Demšar's values are within 0.001 of the quantile (2.343 for
		// 2.3437, 2.949 for 2.9483).
		if q := NemenyiQ(k, 0.05); math.Abs(q-demsar05[i]) > 0.001 || !near(q, scipy05[i], 1e-5) {
			t.Errorf("q_0.05(k=%d) = %.6f, want %.3f (Demšar), %.6f (scipy)", k, q, demsar05[i], scipy05[i])
		}
		if q := NemenyiQ(k, 0.10); math.Abs(q-demsar10[i]) > 0.001 {
			t.Errorf("q_0.10(k=%d) = %.6f, want %.3f", k, q, demsar10[i])
		}
	}
	// Demšar's example: 4 classifiers, 14 datasets, CD = 2.569·√(20/84) = 1.25.
	if cd := NemenyiCD(4, 14, 0.05); math.Abs(cd-1.2536) > 0.001 {
		t.Errorf("CD(4, 14) = %v, want 1.25", cd)
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {1, 5}, {0.5, 3}, {0.25, 2}, {0.1, 1.4}, {0.975, 4.9}} {
		if got := Quantile(xs, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v; want %v", c.q, got, c.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}
