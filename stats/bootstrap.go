package stats

import "math"

// BootMeans returns, for every resample r, the mean over the series of
// per[i][r], the resampled values of trial i (NaN values skipped; NaN
// where no trial has a value), over the resamples all trials have.
func BootMeans(per [][]float64) []float64 {
	if len(per) == 0 {
		return nil
	}
	b := len(per[0])
	for _, v := range per[1:] {
		b = min(b, len(v))
	}
	means := make([]float64, 0, b)
	for r := 0; r < b; r++ {
		sum, n := 0.0, 0
		for _, v := range per {
			if !math.IsNaN(v[r]) {
				sum += v[r]
				n++
			}
		}
		if n > 0 {
			means = append(means, sum/float64(n))
		} else {
			means = append(means, math.NaN())
		}
	}
	return means
}

// Percentile returns the percentile interval of coverage level of the
// sorted bootstrap replicates: the (1−level)/2 and (1+level)/2
// quantiles (Quantile).
func Percentile(sorted []float64, level float64) (lo, hi float64) {
	a := (1 - level) / 2
	return Quantile(sorted, a), Quantile(sorted, 1-a)
}
