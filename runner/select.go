package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/spec"
)

// Choice is what a selector chooses with: the trial, the candidate grid
// points, the training set and — for an oracle rule only — the test set.
type Choice struct {
	Run        *TrialRun
	Candidates []int
	Train      *datasets.Dataset
	Test       *datasets.Dataset
	// Memo is shared with the final fit on Train.
	Memo *methods.Memo
	// Score is set by the rule to the chosen point's score under the
	// select metric: its mean over the validation folds (cv) or its value
	// on the test set (test). It stays NaN when the rule scored nothing
	// (a single candidate) or every score was undefined.
	Score float64
}

func init() {
	spec.Selectors.Register("fixed", &Selector{
		Selector: spec.Selector{
			Doc:  "no selection: every grid point is its own variant, reported as \"label (p=v …)\"",
			Fits: func(int, spec.Select) int { return 1 },
			Report: func(_ spec.Select, grid int) string {
				if grid <= 1 {
					return "fixed"
				}
				return "fixed (each grid point its own series)"
			},
		},
		Choose: func(_ context.Context, c *Choice) (int, error) {
			if len(c.Candidates) != 1 {
				return 0, fmt.Errorf("select rule fixed: %d candidates, want 1", len(c.Candidates))
			}
			return c.Candidates[0], nil
		},
	})
	spec.Selectors.Register("cv", &Selector{
		Selector: spec.Selector{
			Doc:     "k-fold cross-validation on each training set by select.metric, then a refit on the whole training set at the best point",
			Chooses: true,
			Fits:    func(n int, s spec.Select) int { return n*s.Folds + 1 },
			Folds:   true,
			Describe: func(s spec.Select) string {
				d := fmt.Sprintf(" (%d folds by %s)", s.Folds, s.Metric)
				if len(s.Over) > 0 {
					d += " over " + strings.Join(s.Over, ", ")
				}
				return d
			},
			Report: func(s spec.Select, _ int) string {
				return fmt.Sprintf("cv (%d folds by %s, refit)", s.Folds, s.Metric)
			},
		},
		Choose: chooseCV,
	})
	spec.Selectors.Register("test", &Selector{
		Selector: spec.Selector{
			Doc:     "the best point on the test set itself: the oracle choice some papers use, flagged in reports",
			Chooses: true,
			Oracle:  true,
			Fits:    func(n int, _ spec.Select) int { return n },
			Describe: func(s spec.Select) string {
				return fmt.Sprintf(" (by %s on the test set: oracle)", s.Metric)
			},
			Report: func(s spec.Select, _ int) string {
				return fmt.Sprintf("test set by %s: ORACLE choice", s.Metric)
			},
		},
		Choose: chooseTest,
	})
}

// best returns the candidate with the best score under metric name, ties
// keeping the first in grid order; an undefined (NaN) score loses to any
// defined one. score returns an error for a candidate that failed; every
// candidate failing is an error naming the first failure.
func best(ctx context.Context, c *Choice, name string, score func(g int) (float64, error)) (int, error) {
	m := c.Run.Trial.Method
	if len(c.Candidates) == 1 {
		return c.Candidates[0], nil
	}
	bestG, bestScore := -1, math.NaN()
	var firstErr error
	for _, g := range c.Candidates {
		v, err := score(g)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("grid point {%s}: %w", m.Grid[g].Label(), err)
			}
			continue
		}
		if bestG < 0 || better(name, v, bestScore) {
			if !math.IsNaN(v) || bestG < 0 {
				bestG, bestScore = g, v
			}
		}
	}
	if bestG < 0 {
		return 0, fmt.Errorf("method %q: every grid point failed; first: %w", m.Label, firstErr)
	}
	c.Score = bestScore
	return bestG, nil
}

// better reports whether a beats b under metric name; NaN loses.
func better(name string, a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	m, err := metric.Lookup(name)
	if err == nil && m.HigherIsBetter {
		return a > b
	}
	return a < b
}

// chooseCV scores each candidate by its mean validation metric over
// stratified folds of the training set.
func chooseCV(ctx context.Context, c *Choice) (int, error) {
	t := c.Run
	m := t.Trial.Method
	if len(c.Candidates) == 1 {
		return c.Candidates[0], nil
	}
	train := c.Train
	rows := train.Indices()
	k := 0
	if train.IsClassification() {
		k = len(train.Classes)
	}
	folds, err := datasets.Folds(rows, train.Y, k, m.Select.Folds, spec.Derive(t.Seeds.Sample, "cv"))
	if err != nil {
		return 0, fmt.Errorf("method %q: %w", m.Label, err)
	}
	// Each fold's fits run in grid order and share the fold's Warm: a
	// solver may start from the previous grid point's solution.
	type foldData struct {
		fit, val *datasets.Dataset
		memo     *methods.Memo
		warm     *methods.State
	}
	fd := make([]foldData, len(folds))
	for f, held := range folds {
		fd[f] = foldData{fit: train.Subset(datasets.Complement(rows, held)), val: train.Subset(held), memo: &methods.Memo{}, warm: &methods.State{}}
	}
	// Each fold's fits run in grid order on one goroutine; the folds run
	// at once when workers of the run are idle (the last trials).
	type score struct {
		v   float64
		err error
	}
	scores := make([][]score, len(fd))
	pos := map[int]int{}
	for i, g := range c.Candidates {
		pos[g] = i
	}
	runFold := func(f int) {
		scores[f] = make([]score, len(c.Candidates))
		for i, g := range c.Candidates {
			if err := ctx.Err(); err != nil {
				scores[f][i].err = err
				continue
			}
			env := &methods.Env{Seed: spec.Derive(t.Seeds.Method, "cv", itoa(f)), Memo: fd[f].memo, Warm: fd[f].warm}
			v, err := t.validate(ctx, g, fd[f].fit, fd[f].val, env)
			scores[f][i] = score{v, err}
		}
		// What the fold's fits kept (an elastic-net path per α, a
		// transform of the fold's rows) is not needed by the other folds
		// or the refit: free it now, so that a selection holds the memos
		// of the folds running at once, not of all folds.
		fd[f].memo.Clear()
		fd[f] = foldData{}
	}
	eachFold(t.x, len(fd), t.reserved, runFold)
	return best(ctx, c, m.Select.Metric, func(g int) (float64, error) {
		// The score is the mean over the folds where the metric is
		// defined: a fold whose validation rows hold one class has no AUC.
		sum, defined := 0.0, 0
		for f := range fd {
			s := scores[f][pos[g]]
			if s.err != nil {
				return 0, fmt.Errorf("fold %d: %w", f, s.err)
			}
			if !math.IsNaN(s.v) {
				sum += s.v
				defined++
			}
		}
		if defined == 0 {
			return 0, fmt.Errorf("%s is undefined on every validation fold (too few rows of some class?)", m.Select.Metric)
		}
		return sum / float64(defined), nil
	})
}

// eachFold calls run(f) for every f < n: on the calling goroutine, and on
// as many more as x has idle workers to lend (each borrowing need bytes
// of the memory budget) when a fold starts. A panic in a borrowed
// goroutine is raised again on the caller's, where the trial's recover
// reports it.
func eachFold(x *executor, n int, need int64, run func(f int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	work := func() {
		for {
			f := int(next.Add(1)) - 1
			if f >= n {
				return
			}
			run(f)
		}
	}
	for int(next.Load()) < n {
		for int(next.Load()) < n-1 && x.borrow(need) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer x.giveBack(need)
				defer func() {
					if p := recover(); p != nil {
						mu.Lock()
						if panicked == nil {
							panicked = p
						}
						mu.Unlock()
						next.Store(int64(n)) // start no more folds
					}
				}()
				work()
			}()
		}
		f := int(next.Add(1)) - 1
		if f >= n {
			break
		}
		run(f)
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// chooseTest scores each candidate on the test set: the oracle choice.
// Its fits share the memo with the final refit.
func chooseTest(ctx context.Context, c *Choice) (int, error) {
	t := c.Run
	return best(ctx, c, t.Trial.Method.Select.Metric, func(g int) (float64, error) {
		return t.validate(ctx, g, c.Train, c.Test, &methods.Env{Seed: t.Seeds.Method, Memo: c.Memo})
	})
}

// validate fits grid point g on fit and returns the select metric on val.
func (t *TrialRun) validate(ctx context.Context, g int, fit, val *datasets.Dataset, env *methods.Env) (float64, error) {
	model, err := t.fitPoint(ctx, g, fit, env)
	if err != nil {
		return 0, err
	}
	p, err := t.predict(model, val)
	if err != nil {
		return 0, err
	}
	return metric.Evaluate(t.Trial.Method.Select.Metric, p, val.Truth())
}
