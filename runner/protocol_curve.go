package runner

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

func init() {
	spec.Protocols.Register("curve", &Protocol{
		Protocol: spec.Protocol{
			Doc: "the supervised training-size curve: one trial per size of curve.sizes and trial index, " +
				"each a training sample (nested across sizes) fitted and scored on the test part",
			PerSize:  true,
			Implicit: true,
		},
		Run: runCurve,
	})
}

// runCurve trains on the first n rows of the pool's sampling order, n the
// trial's size, and scores on the partition's test rows.
func runCurve(ctx context.Context, t *TrialRun, _ param.Values) ([]results.Observation, error) {
	order, err := t.Order()
	if err != nil {
		return nil, err
	}
	n, err := resolveSize(t.Trial.Size, len(order))
	if err != nil {
		// The failed trial records the count asked for, not 0; a count
		// beyond what an int holds exactly is named in the error only.
		if sz := t.Trial.Size; sz > 1 && sz <= 1<<53 {
			t.Result.Size = int(sz)
		}
		return nil, err
	}
	trainRows := append([]int(nil), order[:n]...)
	sort.Ints(trainRows)
	test := t.Part.TestRows(trainRows)
	if len(test) == 0 {
		return nil, fmt.Errorf("dataset %q: empty test set", t.Trial.Dataset.ID)
	}
	res := t.Result
	res.Size, res.TrainRows, res.TestRows = n, len(trainRows), len(test)
	train, testSet, err := t.Sets(ctx, trainRows, test)
	if err != nil {
		return nil, err
	}
	model, err := t.Fit(ctx, train, testSet)
	if err != nil {
		return nil, err
	}
	t.collectFit()
	p, err := t.Predict(model, testSet)
	if err != nil {
		return nil, err
	}
	metrics, err := t.Score(p, testSet)
	if err != nil {
		return nil, err
	}
	boot, err := t.bootstrap(p, testSet)
	if err != nil {
		return nil, err
	}
	if err := t.SaveArtifacts(model); err != nil {
		return nil, err
	}
	return []results.Observation{{X: float64(n), Metrics: metrics, Extras: Extras(model), Bootstrap: boot}}, nil
}

// resolveSize turns a spec size into a row count for a pool of m rows.
// A count is compared with m before it is converted, so that a huge count
// (1e30 rows) is an error rather than an overflowed int.
func resolveSize(size float64, m int) (int, error) {
	if size > 1 {
		if size > float64(m) {
			return 0, fmt.Errorf("training size %s exceeds the training pool of %d rows", param.Format(size), m)
		}
		return int(size), nil
	}
	if !(size > 0) {
		return 0, fmt.Errorf("training size %s: want a count ≥ 2 or a fraction in (0, 1]", param.Format(size))
	}
	n := int(math.Round(size * float64(m)))
	if n < 1 {
		n = 1
	}
	if n > m {
		return 0, fmt.Errorf("training size %d exceeds the training pool of %d rows", n, m)
	}
	return n, nil
}
