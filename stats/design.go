package stats

import (
	"fmt"
	"math"
	"strings"
)

// Scheme is how the trials of a design draw their test sets and the
// pools their training samples come from.
type Scheme int

// The schemes of the split kinds (each kind's registration says its own).
const (
	// Unknown: no overlap can be told.
	Unknown Scheme = iota
	// Redrawn: a test set of Test rows drawn anew from the Rows in each
	// trial, the other rows the pool (holdout).
	Redrawn
	// FixedTest: one test set and one pool of Pool rows for every trial
	// (the dataset's own split).
	FixedTest
	// Complement: training samples drawn from all Rows, each trial's
	// test set the rows it did not train on (rest).
	Complement
	// InSample: no test set; metrics on the training sample (train).
	InSample
	// Folds: Folds folds × Repeats repeats, each trial a fold's test
	// part and the other folds its pool; Refold false repeats the folds
	// of one partition (trial t is fold t div Repeats).
	Folds
)

// Design holds the facts of an experiment's design that the paired tests
// depend on: how the trials of one dataset and size draw their training
// samples and test sets.
type Design struct {
	// Kind names the split kind for notes ("holdout").
	Kind string
	// Scheme is how the trials draw their test sets and pools.
	Scheme Scheme
	// Rows is the dataset's row count, Pool the rows one trial's
	// training sample is drawn from (0: unknown).
	Rows, Pool int
	// Train and Test are one trial's training and test rows (the mean
	// over the trials when they vary, as folds do).
	Train, Test int
	// Folds, Repeats and Refold describe the Folds scheme.
	Folds, Repeats int
	Refold         bool
	// Units, when not nil, gives for each pair the split it was drawn on
	// where the design makes several trials repeat one split (Folds with
	// Refold false: trial t is fold t div Repeats); design-t tests the
	// means of each unit's pairs.
	Units []int
}

// RepeatsSplits reports whether the trials of d repeat splits (Folds,
// Refold false, more than one repeat): design-t then tests the folds'
// means.
func (d Design) RepeatsSplits() bool {
	return d.Scheme == Folds && !d.Refold && d.Repeats > 1 && d.Folds >= 2
}

// UnitOf returns the unit (the split) of trial t: t div Repeats where
// the trials repeat splits, else t.
func (d Design) UnitOf(t int) int {
	if d.RepeatsSplits() {
		return t / d.Repeats
	}
	return t
}

// Overlap returns the expected share of one trial's training rows that
// another trial of the design also trains on, and of its test rows that
// the other also tests on, averaged over the pairs of trials of the
// design (J = Folds·Repeats for kfold). Under random sampling without
// replacement a row is in a training sample of n from a pool of P with
// probability n/P, so two independent draws share n/P of a sample:
//
//	Redrawn (test set of t rows from N, holdout): train n/N, test t/N
//	FixedTest (pool P and test set fixed, given): train n/P, test 1
//	Complement (test the other rows of N, rest):  train n/N, test (N−n)/N
//	InSample (train):                             train n/N, test n/N
//	Folds, two folds of one partition:            train (n/P)·(k−2)/(k−1), test 0
//	Folds, folds of independent partitions:       train (n/P)·(k−1)/k, test 1/k
//	Folds with refold false, a fold's repeats:    train n/P, test 1
//
// NaN when the counts it needs are unknown.
func (d Design) Overlap() (train, test float64) {
	n, t := float64(d.Train), float64(d.Test)
	nan := math.NaN()
	if n <= 0 {
		return nan, nan
	}
	rows := float64(d.Rows)
	if rows <= 0 && d.Pool > 0 && t > 0 && (d.Scheme == Redrawn || d.Scheme == Folds) {
		rows = float64(d.Pool) + t
	}
	pool := float64(d.Pool)
	if pool <= 0 && rows > 0 {
		pool = rows - t
	}
	switch d.Scheme {
	case Redrawn:
		if rows <= 0 {
			return nan, nan
		}
		return n / rows, t / rows
	case FixedTest:
		if pool <= 0 {
			return nan, 1
		}
		return math.Min(1, n/pool), 1
	case Complement, InSample:
		all := float64(d.Rows)
		if all <= 0 {
			all = float64(d.Pool) // rest's pool is every row
		}
		if all <= 0 {
			return nan, nan
		}
		if d.Scheme == InSample {
			return n / all, n / all
		}
		return n / all, (all - n) / all
	case Folds:
		k, r := float64(d.Folds), float64(max(d.Repeats, 1))
		if k < 2 || pool <= 0 {
			return nan, nan
		}
		s := math.Min(1, n/pool) // share of a pool a sample takes
		j := k * r
		if j < 2 {
			return nan, nan
		}
		if d.RepeatsSplits() {
			same, other := r-1, j-r // partners: repeats of the fold, other folds
			return s * (same + other*(k-2)/(k-1)) / (j - 1), same / (j - 1)
		}
		same, other := k-1, j-k // partners: this partition's folds, other partitions'
		return s * (same*(k-2)/(k-1) + other*(k-1)/k) / (j - 1), other * (1 / k) / (j - 1)
	}
	return nan, nan
}

// Describe words, for a table's note, the overlap of the trials of the
// designs ds (one per column, labelled by labels: "50", "100") and what
// the paired test called test assumes of it: "holdout split: a trial's
// training sample shares 2.5% (50) … 50% (1000) of its rows with
// another trial's, its test set 50%; design-t takes …". It is "" when no
// design has a known overlap.
func Describe(test string, ds []Design, labels []string) string {
	if len(ds) == 0 {
		return ""
	}
	var trs, tes []string
	known := false
	for i, d := range ds {
		tr, te := d.Overlap()
		known = known || !math.IsNaN(tr) || !math.IsNaN(te)
		trs = append(trs, fmt.Sprintf("%s (%s)", share(tr), labels[i]))
		tes = append(tes, fmt.Sprintf("%s (%s)", share(te), labels[i]))
	}
	if !known {
		return ""
	}
	d := ds[len(ds)-1]
	s := d.Kind + " split"
	if d.Scheme == Folds {
		s += fmt.Sprintf(" (%d folds × %d repeats", d.Folds, max(d.Repeats, 1))
		if d.RepeatsSplits() {
			s += ", refold false"
		}
		s += ")"
	}
	s += ": a trial's training sample shares " + strings.Join(compact(trs), ", ") + " of its rows with another trial's, and its test set " +
		strings.Join(compact(tes), ", ") + " (expected, over pairs of trials)"
	switch test {
	case TestDesignT:
		switch {
		case d.RepeatsSplits():
			s += fmt.Sprintf("; design-t averages the %d repeats of each fold, which share its split, and tests the %d folds' means", d.Repeats, d.Folds)
		case d.Scheme == Folds:
			s += "; design-t takes the folds as uncorrelated: two folds of one partition share fewer rows than independent draws would"
		default:
			s += "; design-t takes the trials as uncorrelated: given the data, trials that draw their splits independently are, whatever rows they share"
		}
	case TestCorrectedT:
		var rhos []string
		for i, d := range ds {
			if d.Train > 0 && d.Test > 0 {
				rhos = append(rhos, fmt.Sprintf("%.2g (%s)", float64(d.Test)/float64(d.Train+d.Test), labels[i]))
			}
		}
		s += "; corrected-t assumes a correlation n_test/(n_train + n_test) between trials: " + strings.Join(compact(rhos), ", ")
	default:
		s += "; the test takes the trials as independent"
	}
	return s + " (docs/statistics.md)"
}

// Short words the design's overlap for a check row: "trials share 25%
// of training rows, 50% of test rows"; with ", tested over 10 folds'
// means" where the trials repeat splits; "" when unknown.
func (d Design) Short() string {
	tr, te := d.Overlap()
	if math.IsNaN(tr) && math.IsNaN(te) {
		return ""
	}
	s := fmt.Sprintf("trials share %s of training rows, %s of test rows", share(tr), share(te))
	if d.RepeatsSplits() {
		s += fmt.Sprintf(", tested over %d folds' means", d.Folds)
	}
	return s
}

// compact returns vs with runs of values equal up to their label
// ("50% (50)", "50% (100)") as one value without labels when all agree.
func compact(vs []string) []string {
	if len(vs) == 0 {
		return vs
	}
	first := strings.SplitN(vs[0], " (", 2)[0]
	for _, v := range vs[1:] {
		if strings.SplitN(v, " (", 2)[0] != first {
			return vs
		}
	}
	return []string{first}
}

// share formats an overlap: "25%", or "?" when unknown.
func share(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return pct(v)
}

// pct formats a share as a percentage: "25%", "0.4%".
func pct(v float64) string {
	p := 100 * v
	switch {
	case p == math.Trunc(p) || p >= 10:
		return fmt.Sprintf("%.0f%%", p)
	case p >= 1:
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.2g%%", p)
}
