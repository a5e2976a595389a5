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
	"github.com/repro-ml/repro/stats"
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
			Doc:       "the dataset's own train/test partition (20 Newsgroups by-date, Isolet 1-4 vs 5)",
			LegacyKey: noTest,
			Design:    scheme(stats.FixedTest),
		},
		CheckData: func(d *datasets.Dataset, _ param.Values, id, _ string) (string, error) {
			if d.Split == nil {
				return "kind", fmt.Errorf("dataset %s has no train/test split of its own; want holdout, kfold or rest", id)
			}
			return "", nil
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
			Doc:    "a random test set of `test` rows drawn anew in each trial; the other rows are the pool",
			Params: param.Of[holdoutParams]().Params,
			LegacyKey: func(p param.Values) (float64, bool) {
				x := paramsOf[holdoutParams](p)
				return x.Test, x.Stratify
			},
			Describe: describeHoldout,
			Brief:    func(p param.Values) string { return " test " + param.Format(paramsOf[holdoutParams](p).Test) },
			Report:   reportHoldout,
			Pool:     holdoutPool,
			Design:   scheme(stats.Redrawn),
		},
		CheckData: checkHoldout,
		Split:     holdout,
	})
	spec.Splitters.Register("rest", &Splitter{
		Splitter: spec.Splitter{
			Doc:       "no fixed test set: each trial's training sample is drawn from all rows and every other row is the test set",
			LegacyKey: noTest,
			Design:    scheme(stats.Complement),
			Pool: func(_ param.Values, rows, nTrain, nTest int) int {
				switch {
				case rows > 0:
					return rows
				case nTest > 0:
					return nTrain + nTest
				}
				return 0
			},
		},
		Split: func(d *datasets.Dataset, _ param.Values, _ SplitAt) (*Partition, error) {
			all := d.Indices()
			return &Partition{Pool: all, TestOf: func(train []int) []int { return datasets.Complement(all, train) }}, nil
		},
	})
	spec.Splitters.Register("train", &Splitter{
		Splitter: spec.Splitter{
			Doc:       "no test set: metrics on the training sample itself (in-sample), for figures of a fit to all the data",
			LegacyKey: noTest,
			InSample:  true,
			Design:    scheme(stats.InSample),
			Report: func(param.Values) string {
				return " (in-sample: metrics are training-set values, not test-set values)"
			},
			Pool: func(_ param.Values, rows, _, _ int) int { return rows },
		},
		Split: func(d *datasets.Dataset, _ param.Values, _ SplitAt) (*Partition, error) {
			return &Partition{Pool: d.Indices(), TestOf: func(train []int) []int { return train }, InSample: true}, nil
		},
	})
	spec.Splitters.Register("kfold", &Splitter{
		Splitter: spec.Splitter{
			Doc:    "k folds × r repeats: each (fold, repeat) is a trial whose test part is one fold and whose pool is the other folds",
			Params: param.Of[kfoldParams]().Params,
			Replicates: func(p param.Values) int {
				x := paramsOf[kfoldParams](p)
				return x.Folds * x.Repeats
			},
			Design: func(p param.Values) stats.Design {
				// A stored spec's params, defaults where absent.
				x := param.DecodeValid[kfoldParams](p)
				if _, ok := p["folds"]; !ok {
					x.Folds = 10
				}
				if _, ok := p["repeats"]; !ok {
					x.Repeats = 1
				}
				if _, ok := p["refold"]; !ok {
					x.Refold = true
				}
				return stats.Design{Scheme: stats.Folds, Folds: x.Folds, Repeats: x.Repeats, Refold: x.Refold}
			},
			Pool: func(p param.Values, rows, nTrain, nTest int) int {
				// A stored spec's folds, or none (0) when absent.
				k := param.DecodeValid[kfoldParams](p).Folds
				switch {
				case rows > 0:
					return max(rows-nTest, nTrain)
				case k >= 2 && nTest > 0:
					return max(nTest*(k-1), nTrain)
				}
				return 0
			},
		},
		CheckData: func(d *datasets.Dataset, p param.Values, id, _ string) (string, error) {
			if k := param.DecodeValid[kfoldParams](p).Folds; k > d.Rows() {
				return "folds", fmt.Errorf("%d folds, but dataset %s has %d rows; want at most %d folds", k, id, d.Rows(), d.Rows())
			}
			return "", nil
		},
		Split: kfold,
	})
}

// holdoutParams are the params of split kind holdout.
type holdoutParams struct {
	Test     float64 `param:"test" range:"(0, +inf)" check:"RowCount" doc:"test set size: a count ≥ 1 or a fraction in (0, 1) of the rows"`
	Stratify bool    `param:"stratify" default:"false" doc:"draw the test set in proportion to the classes"`
}

// RowCount accepts a whole number of rows or a fraction below 1.
func (holdoutParams) RowCount(v any) error {
	if f := v.(float64); f >= 1 && f != math.Trunc(f) {
		return errors.New("is not a whole number of rows; want a count ≥ 1 or a fraction in (0, 1)")
	}
	return nil
}

// kfoldParams are the params of split kind kfold.
type kfoldParams struct {
	Folds    int  `param:"folds" range:"[2, +inf)" default:"10" doc:"number of folds k"`
	Repeats  int  `param:"repeats" range:"[1, +inf)" default:"1" doc:"number of repeats r, each with its own random folds unless refold is false"`
	Stratify bool `param:"stratify" default:"true" doc:"keep the class proportions in every fold (classification only; ignored for regression)"`
	Refold   bool `param:"refold" default:"true" doc:"draw new folds for every repeat; false repeats every fold of one partition r times (trial t is fold t div r, repeat t mod r: Bilgic's protocol, where a pool-fitted transform is fitted k times, not k·r)"`
}

// paramsOf returns the params of a split kind or protocol, which the
// spec's decoder has checked, as its struct T: a missing value is its
// default. A value the declarations refuse is a programming error, as a
// getter's panic was.
func paramsOf[T any](p param.Values) T {
	x, err := param.Decode[T](p)
	if err != nil {
		panic(fmt.Sprintf("runner: params %v: %v", p, err))
	}
	return x
}

// scheme returns the Design of a kind whose trials draw by scheme s.
func scheme(s stats.Scheme) func(param.Values) stats.Design {
	return func(param.Values) stats.Design { return stats.Design{Scheme: s} }
}

// noTest is the LegacyKey of a kind without a test size or stratify flag.
func noTest(param.Values) (float64, bool) { return 0, false }

// describeHoldout says how the test part is drawn, as curve.sampling says
// how the training rows are: " (test 20%, random)".
func describeHoldout(p param.Values) string {
	x := paramsOf[holdoutParams](p)
	how := datasets.Random
	if x.Stratify {
		how = datasets.Stratified
	}
	test := x.Test
	rows := param.Format(test) + " rows"
	if test < 1 {
		rows = param.Format(test*100) + "%"
	}
	return fmt.Sprintf(" (test %s, %s)", rows, how)
}

// reportHoldout words a holdout split on a report: " (test 50, stratified)".
func reportHoldout(p param.Values) string {
	x := paramsOf[holdoutParams](p)
	s := " (test " + strconv.FormatFloat(x.Test, 'g', -1, 64)
	if x.Stratify {
		s += ", stratified"
	}
	return s + ")"
}

// holdoutPool is the rows a holdout test set leaves, or — rows unknown —
// the rows a test fraction f of nTest rows implies: nTest/f − nTest.
func holdoutPool(p param.Values, rows, nTrain, nTest int) int {
	f := param.DecodeValid[holdoutParams](p).Test // 0 when absent
	switch {
	case rows > 0:
		return max(rows-nTest, nTrain)
	case f > 0 && f < 1 && nTest > 0:
		return max(int(math.Round(float64(nTest)/f))-nTest, nTrain)
	}
	return 0
}

// checkHoldout checks a holdout's test size against the dataset's rows,
// and that a stratified test set has classes to keep.
func checkHoldout(d *datasets.Dataset, p param.Values, id, hint string) (string, error) {
	rows := d.Rows()
	x := param.DecodeValid[holdoutParams](p)
	if t := x.Test; t > 0 { // 0: absent
		n := int(t)
		if t < 1 {
			n = int(math.Round(t * float64(rows)))
		}
		switch {
		case t >= 1 && t >= float64(rows):
			return "test", fmt.Errorf("a test set of %s rows, but dataset %s has %d rows; want fewer than %d, or a fraction in (0, 1)", param.Format(t), id, rows, rows)
		case n < 1 || n >= rows:
			return "test", fmt.Errorf("%s of the %d rows of dataset %s is %d test rows; want a fraction that leaves at least one row for each part", param.Format(t), rows, id, n)
		}
	}
	if x.Stratify && !d.IsClassification() {
		return "stratify", fmt.Errorf("dataset %s is a regression dataset; want stratify: false (it needs classes)%s", id, hint)
	}
	return "", nil
}

// holdout draws a test set of p's test rows in each trial.
func holdout(d *datasets.Dataset, p param.Values, at SplitAt) (*Partition, error) {
	x := paramsOf[holdoutParams](p)
	all := d.Indices()
	k := 0
	s := datasets.Random
	if x.Stratify {
		if !d.IsClassification() {
			return nil, errors.New("stratify needs a classification dataset")
		}
		k, s = len(d.Classes), datasets.Stratified
	}
	order, err := datasets.Order(all, d.Y, k, s, spec.Derive(at.Sample, "holdout"))
	if err != nil {
		return nil, err
	}
	ts := x.Test
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
	x := paramsOf[kfoldParams](p)
	k, reps := x.Folds, x.Repeats
	if at.Trial < 0 || at.Trial >= k*reps {
		return nil, fmt.Errorf("trial %d out of range for %d folds × %d repeats", at.Trial, k, reps)
	}
	rep, fold := at.Trial/k, at.Trial%k
	if !x.Refold { // absent (a spec built in code): its default, true
		rep, fold = 0, at.Trial/reps
	}
	classes := 0
	if x.Stratify && d.IsClassification() {
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
