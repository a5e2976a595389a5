package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// FriedmanResult is the outcome of a Friedman test of K series over N
// datasets, the comparison of classifiers over several datasets that
// Demšar (2006) recommends.
type FriedmanResult struct {
	N, K int
	// AvgRanks are the series' average ranks over the datasets, 1 the
	// best; tied scores share the mean of their ranks.
	AvgRanks []float64
	// Chi2 is Friedman's statistic, corrected for ties as
	// scipy.stats.friedmanchisquare corrects it, with K − 1 degrees of
	// freedom; P its p-value.
	Chi2 float64
	P    float64
	// FF is Iman and Davenport's F statistic, (N−1)·Chi2 / (N(K−1) −
	// Chi2), with K − 1 and (K−1)(N−1) degrees of freedom, less
	// conservative than Chi2 (Demšar's recommendation); PF its p-value.
	FF, PF float64
}

// Friedman ranks the series within each dataset — scores[i][j] is series
// j's score on dataset i, the best rank 1 in the direction higher (true:
// larger is better) — and tests whether their average ranks differ. It
// panics if the rows differ in length; with fewer than two datasets or
// series, or a score that is NaN, the statistics are NaN.
func Friedman(scores [][]float64, higher bool) FriedmanResult {
	n := len(scores)
	k := 0
	if n > 0 {
		k = len(scores[0])
	}
	r := FriedmanResult{N: n, K: k, AvgRanks: make([]float64, k), Chi2: math.NaN(), P: math.NaN(), FF: math.NaN(), PF: math.NaN()}
	tieSum := 0.0
	for _, row := range scores {
		if len(row) != k {
			panic("stats: Friedman: rows of different lengths")
		}
		for _, v := range row {
			if math.IsNaN(v) {
				for j := range r.AvgRanks {
					r.AvgRanks[j] = math.NaN()
				}
				return r
			}
		}
		ranks, ties := RankRow(row, higher)
		tieSum += ties
		for j, rk := range ranks {
			r.AvgRanks[j] += rk / float64(n)
		}
	}
	if n < 2 || k < 2 {
		return r
	}
	nf, kf := float64(n), float64(k)
	ss := 0.0
	for _, a := range r.AvgRanks {
		ss += (a * nf) * (a * nf) // rank sums
	}
	chi2 := 12/(nf*kf*(kf+1))*ss - 3*nf*(kf+1)
	c := 1 - tieSum/(nf*kf*(kf*kf-1))
	if c <= 0 {
		// Every dataset ties every series: no evidence of a difference.
		r.Chi2, r.P, r.FF, r.PF = 0, 1, 0, 1
		return r
	}
	r.Chi2 = math.Max(0, chi2/c)
	r.P = distuv.ChiSquared{K: kf - 1}.Survival(r.Chi2)
	den := nf*(kf-1) - r.Chi2
	if den <= 0 {
		r.FF, r.PF = math.Inf(1), 0 // every dataset ranks the series alike
		return r
	}
	r.FF = (nf - 1) * r.Chi2 / den
	r.PF = distuv.F{D1: kf - 1, D2: (kf - 1) * (nf - 1)}.Survival(r.FF)
	return r
}

// RankRow ranks the values of row, 1 the best, ties sharing the mean of
// their ranks; ties is Σ(t³ − t) over the groups of t tied values.
func RankRow(row []float64, higher bool) (ranks []float64, ties float64) {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	better := func(a, b float64) bool {
		if higher {
			return a > b
		}
		return a < b
	}
	sort.SliceStable(idx, func(a, b int) bool { return better(row[idx[a]], row[idx[b]]) })
	ranks = make([]float64, len(row))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && row[idx[j]] == row[idx[i]] {
			j++
		}
		for t := i; t < j; t++ {
			ranks[idx[t]] = float64(i+j+1) / 2
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	return ranks, ties
}

// NemenyiCD returns the critical difference of the Nemenyi test for k
// series over n datasets at level alpha: two series whose average ranks
// differ by at least q_α·√(k(k+1)/(6n)) differ significantly, q_α the
// 1 − alpha quantile of the studentized range of k normals (infinite
// degrees of freedom) over √2 — Demšar's (2006) Table 5(a) for alpha 0.05
// and 0.10, computed for any k ≥ 2. It is NaN for k < 2 or n < 1.
func NemenyiCD(k, n int, alpha float64) float64 {
	if k < 2 || n < 1 {
		return math.NaN()
	}
	return NemenyiQ(k, alpha) * math.Sqrt(float64(k*(k+1))/(6*float64(n)))
}

// NemenyiQ returns q_α of NemenyiCD: the q at which the studentized
// range of k standard normals, over √2, exceeds q with probability alpha.
func NemenyiQ(k int, alpha float64) float64 {
	lo, hi := 0.0, 10.0
	for range 60 {
		mid := (lo + hi) / 2
		if rangeCDF(mid*math.Sqrt2, k) < 1-alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// rangeCDF returns P(R ≤ q) for the range R of k independent standard
// normals: k ∫ φ(z) (Φ(z+q) − Φ(z))^(k−1) dz, by Simpson's rule.
func rangeCDF(q float64, k int) float64 {
	const (
		a, b  = -9.0, 9.0
		steps = 3600
	)
	h := (b - a) / steps
	f := func(z float64) float64 {
		d := distuv.UnitNormal.CDF(z+q) - distuv.UnitNormal.CDF(z)
		return distuv.UnitNormal.Prob(z) * math.Pow(d, float64(k-1))
	}
	sum := f(a) + f(b)
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return float64(k) * sum * h / 3
}
