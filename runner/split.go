package runner

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// SplitAt is what a splitter may depend on besides the data and its params.
type SplitAt struct {
	// Trial is the trial index (the replicate).
	Trial int
	// Sample is the trial's sample seed: it depends on the experiment seed,
	// the dataset and Trial only, so every method and size of a trial
	// sees the same split.
	Sample uint64
	// Dataset is the dataset's seed, the same for every trial: a split
	// whose trials share a partition (the folds of one kfold repeat)
	// derives it from this.
	Dataset uint64
}

func init() {
	spec.Splitters.Register("given", &Splitter{
		Splitter: spec.Splitter{
			Doc: "the dataset's own train/test partition (20 Newsgroups by-date, Isolet 1-4 vs 5)",
		},
		Split: func(d *datasets.Dataset, _ param.Values, _ SplitAt) (*Partition, error) {
			if d.Split == nil {
				return nil, errors.New("split kind given, but the dataset has no train/test split of its own; use holdout, kfold or rest")
			}
			pool, test := d.SplitRows()
			return &Partition{Pool: pool, Test: test}, nil
		},
	})
	spec.Splitters.Register("holdout", &Splitter{
		Splitter: spec.Splitter{
			Doc: "a random test set of `test` rows drawn anew in each trial; the other rows are the pool",
			Params: []param.Decl{
				{Name: "test", Type: param.Float, Min: param.Bound(0), MinExclusive: true, Check: rowCount,
					Doc: "test set size: a count ≥ 1 or a fraction in (0, 1) of the rows"},
				{Name: "stratify", Type: param.Bool, Default: false, Doc: "draw the test set in proportion to the classes"},
			},
		},
		Split: holdout,
	})
	spec.Splitters.Register("rest", &Splitter{
		Splitter: spec.Splitter{
			Doc: "no fixed test set: each trial's training sample is drawn from all rows and every other row is the test set",
		},
		Split: func(d *datasets.Dataset, _ param.Values, _ SplitAt) (*Partition, error) {
			all := d.Indices()
			return &Partition{Pool: all, TestOf: func(train []int) []int { return datasets.Complement(all, train) }}, nil
		},
	})
	spec.Splitters.Register("train", &Splitter{
		Splitter: spec.Splitter{
			Doc: "no test set: metrics on the training sample itself (in-sample), for figures of a fit to all the data",
		},
		Split: func(d *datasets.Dataset, _ param.Values, _ SplitAt) (*Partition, error) {
			return &Partition{Pool: d.Indices(), TestOf: func(train []int) []int { return train }, InSample: true}, nil
		},
	})
	spec.Splitters.Register("kfold", &Splitter{
		Splitter: spec.Splitter{
			Doc: "k folds × r repeats: each (fold, repeat) is a trial whose test part is one fold and whose pool is the other folds",
			Params: []param.Decl{
				{Name: "folds", Type: param.Int, Default: 10, Min: param.Bound(2), Doc: "number of folds k"},
				{Name: "repeats", Type: param.Int, Default: 1, Min: param.Bound(1), Doc: "number of repeats r, each with its own random folds unless refold is false"},
				{Name: "stratify", Type: param.Bool, Default: true, Doc: "keep the class proportions in every fold (classification only; ignored for regression)"},
				{Name: "refold", Type: param.Bool, Default: true, Doc: "draw new folds for every repeat; false repeats every fold of one partition r times " +
					"(trial t is fold t div r, repeat t mod r: Bilgic's protocol, where a pool-fitted transform is fitted k times, not k·r)"},
			},
			Replicates: func(p param.Values) int { return p.Int("folds") * p.Int("repeats") },
		},
		Split: kfold,
	})
}

// rowCount accepts a whole number of rows or a fraction below 1.
func rowCount(v any) error {
	if f := v.(float64); f >= 1 && f != math.Trunc(f) {
		return errors.New("is not a whole number of rows; want a count ≥ 1 or a fraction in (0, 1)")
	}
	return nil
}

// holdout draws a test set of p's test rows in each trial.
func holdout(d *datasets.Dataset, p param.Values, at SplitAt) (*Partition, error) {
	all := d.Indices()
	k := 0
	s := datasets.Random
	if p.Bool("stratify") {
		if !d.IsClassification() {
			return nil, errors.New("stratify needs a classification dataset")
		}
		k, s = len(d.Classes), datasets.Stratified
	}
	order, err := datasets.Order(all, d.Y, k, s, spec.Derive(at.Sample, "holdout"))
	if err != nil {
		return nil, err
	}
	ts := p.Float("test")
	nt := int(ts)
	if ts < 1 {
		nt = int(math.Round(ts * float64(len(all))))
	}
	if nt < 1 || nt >= len(all) {
		return nil, fmt.Errorf("holdout test size %d out of range for %d rows", nt, len(all))
	}
	test := append([]int(nil), order[:nt]...)
	pool := append([]int(nil), order[nt:]...)
	sort.Ints(test)
	sort.Ints(pool)
	return &Partition{Pool: pool, Test: test}, nil
}

// kfold returns fold Trial mod k of repeat Trial div k. The folds of a
// repeat come from the dataset's seed and the repeat alone, so the k trials
// of a repeat partition the rows. With refold false every repeat has the
// folds of repeat 0, and trial t is fold t div r (repeat t mod r): the r
// trials of a fold are consecutive, so they share its pool, and the pool's
// fitted transforms, in the cache.
func kfold(d *datasets.Dataset, p param.Values, at SplitAt) (*Partition, error) {
	k, reps := p.Int("folds"), p.Int("repeats")
	if at.Trial < 0 || at.Trial >= k*reps {
		return nil, fmt.Errorf("trial %d out of range for %d folds × %d repeats", at.Trial, k, reps)
	}
	rep, fold := at.Trial/k, at.Trial%k
	if refold, ok := p["refold"].(bool); ok && !refold { // absent (a spec built in code): true
		rep, fold = 0, at.Trial/reps
	}
	classes := 0
	if p.Bool("stratify") && d.IsClassification() {
		classes = len(d.Classes)
	}
	all := d.Indices()
	folds, err := datasets.KFolds(all, d.Y, classes, k, spec.Derive(at.Dataset, "kfold", itoa(rep)))
	if err != nil {
		return nil, err
	}
	test := append([]int(nil), folds[fold]...)
	sort.Ints(test)
	return &Partition{Pool: datasets.Complement(all, test), Test: test}, nil
}

// splitAt returns the seeds trial t of dataset ds splits and samples by:
// the sample seed and the dataset's split seed, both of its SampleID.
func splitAt(seed uint64, ds *spec.DatasetSpec, t int) SplitAt {
	return SplitAt{Trial: t, Sample: spec.Derive(seed, "sample", ds.SampleID(), itoa(t)), Dataset: spec.Derive(seed, "split", ds.SampleID())}
}

func itoa(i int) string { return strconv.Itoa(i) }
