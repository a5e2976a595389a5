package runner

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// BootstrapSeed returns the seed of the test-set resamples of every trial
// of an experiment: Derive(seed, "bootstrap"). It involves neither the
// method, nor the dataset, nor the trial, so every method, every dataset
// entry with the same test rows in the same order (one corpus under several
// feature transforms) and every trial on the same test set is scored on
// the same resamples: bootstrap differences between them are paired, and a
// resample's mean over trials is a resample of the mean. (The trial's
// sample seed would not do: it involves the dataset id.)
func BootstrapSeed(seed uint64) uint64 {
	return spec.Derive(seed, "bootstrap")
}

// Bootstrap returns each named metric of p on b resamples of the test rows
// of truth, each n rows drawn with replacement (n the number of test
// rows), from seed: resample r is the same row draw for every metric. The
// prediction is fixed: only the test set is resampled (the error bars of
// Paskov et al. 2013, Fig. 2). A resample on which a metric is undefined
// (AUC of a resample with one class) records NaN.
func Bootstrap(names []string, p *metric.Prediction, truth metric.Truth, b int, seed uint64) (results.Samples, error) {
	n := truth.Rows()
	if n == 0 || b <= 0 {
		return nil, nil
	}
	if p.Rows() != n {
		return nil, fmt.Errorf("bootstrap: prediction of %d rows for %d test rows", p.Rows(), n)
	}
	out := make(results.Samples, len(names))
	for _, name := range names {
		out[name] = make([]float64, b)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5bd1e995))
	idx := make([]int, n)
	rp := &metric.Prediction{K: p.K, OneVsRest: p.OneVsRest}
	rt := metric.Truth{Classes: truth.Classes, Y: make([]float64, n)}
	if p.Values != nil {
		rp.Values = make([]float64, n)
	} else {
		rp.Scores = make([]float64, n*p.K)
	}
	for r := 0; r < b; r++ {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		for i, j := range idx {
			rt.Y[i] = truth.Y[j]
			if rp.Values != nil {
				rp.Values[i] = p.Values[j]
			} else {
				copy(rp.Scores[i*p.K:(i+1)*p.K], p.Scores[j*p.K:(j+1)*p.K])
			}
		}
		for _, name := range names {
			v, err := metric.Evaluate(name, rp, rt)
			if err != nil {
				v = math.NaN()
			}
			out[name][r] = v
		}
	}
	return out, nil
}

// bootstrap scores p on the trial's report.bootstrap resamples of set, or
// returns nil when the spec asks for none.
func (t *TrialRun) bootstrap(p *metric.Prediction, set *datasets.Dataset) (results.Samples, error) {
	b := t.Spec.Report.Bootstrap
	if b <= 0 {
		return nil, nil
	}
	return Bootstrap(t.Spec.Metrics, p, set.Truth(), b, BootstrapSeed(t.Spec.Seed))
}
