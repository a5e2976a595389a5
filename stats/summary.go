package stats

import "math"

// Summary holds descriptive statistics of a sample.
type Summary struct {
	N                  int
	Mean, SD, Min, Max float64
}

// Summarize returns the statistics of xs, ignoring NaN values. SD is the
// sample standard deviation (n−1); it is NaN for fewer than two values.
func Summarize(xs []float64) Summary {
	s := Summary{Mean: math.NaN(), SD: math.NaN(), Min: math.NaN(), Max: math.NaN()}
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

// Quantile returns the q-quantile of sorted xs by linear interpolation
// between order statistics (R's type 7, numpy's default); NaN for none.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
