package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// methodParams gives values to the required parameters of method plugins,
// which the suite cannot invent. A plugin with a required parameter missing
// here fails TestMethods, which names it.
var methodParams = map[string]map[string]any{
	// command runs methods/command's fake learner (POSIX sh and awk: the
	// most frequent training label), so that the suite needs no peer.
	"command": {
		"train":   []any{"/bin/sh", "{workdir}/../../methods/command/testdata/fake-learner.sh", "train", "{train}", "{model}"},
		"predict": []any{"/bin/sh", "{workdir}/../../methods/command/testdata/fake-learner.sh", "predict", "{test}", "{model}", "{predictions}"},
	},
}

// unsupported lists the problems a method plugin documents it does not
// handle, with the reason from its documentation. An empty storage means
// both dense and sparse.
var unsupported = []struct{ method, problem, storage, reason string }{
	{"kernel-hp", "regression", "", "kernel-hp takes exactly one input column (methods/hp: one-input Gaussian kernels, e.g. mcycle times)"},
	{"med", "three-class", "", "med's Fit trains one binary task; several classes go through FitTasks (methods/med), checked under tasks/"},
	{"svm", "three-class", "", "svm is binary; several classes go through the runner's one-vs-rest (svm's Fit: \"svm is binary (use tasks: one-vs-rest)\")"},
}

// unsupportedParams lists the param values a method plugin documents
// the suite's problems cannot take, with the reason.
var unsupportedParams = []struct{ method, variant, reason string }{
	{"command", "format=jsonl", "format jsonl writes a text dataset's documents, which the suite's problems do not keep (methods/command's TestWriteJSONL and TestRunJSONL check it)"},
}

func unsupportedParamReason(method, variant string) string {
	for _, u := range unsupportedParams {
		if u.method == method && u.variant == variant {
			return u.reason
		}
	}
	return ""
}

func unsupportedReason(method, problem, storage string) string {
	for _, u := range unsupported {
		if u.method == method && u.problem == problem && (u.storage == "" || u.storage == storage) {
			return u.reason
		}
	}
	return ""
}

// The storages of a problem's features.
var storages = []string{"dense", "sparse"}

const (
	// seed is the Env.Seed of every fit.
	seed = 7
	// promptly bounds the time from a cancellation to the fit's return; it
	// is generous because the tests share a loaded machine.
	promptly = 2 * time.Second
)

// A fitter fits m on the training set of a problem: Method.Fit, or
// MultiTask.FitTasks on the one-vs-rest tasks of its classes.
type fitter func(ctx context.Context, m methods.Method, train *datasets.Dataset, env *methods.Env) (methods.Model, error)

func fit(ctx context.Context, m methods.Method, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	return m.Fit(ctx, train, env)
}

func fitTasks(ctx context.Context, m methods.Method, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	return m.(methods.MultiTask).FitTasks(ctx, train.X, oneVsRest(train), train, env)
}

// oneVsRest returns the ±1 targets of one task per class of d.
func oneVsRest(d *datasets.Dataset) [][]float64 {
	out := make([][]float64, len(d.Classes))
	for c := range out {
		out[c] = make([]float64, d.Rows())
		for i := range out[c] {
			out[c][i] = -1
			if d.Label(i) == c {
				out[c][i] = 1
			}
		}
	}
	return out
}

// shape is what a prediction on n rows must look like.
type shape struct {
	regression bool
	k          int  // classes or tasks
	oneVsRest  bool // must set OneVsRest
}

func shapeOf(pr problem, tasks bool) shape {
	if pr.kind == methods.Regression {
		return shape{regression: true}
	}
	return shape{k: len(pr.train.Classes), oneVsRest: tasks}
}

// TestMethods fits every registered method at its declared defaults on
// every problem of the kinds it declares, dense and sparse (and, for a
// MultiTask method, on the one-vs-rest tasks of the three-class problem),
// and checks each fit with checkModel; then it fits the first problem with
// each declared parameter moved to another valid value.
func TestMethods(t *testing.T) {
	for _, u := range unsupported {
		if _, err := methods.Lookup(u.method); err != nil || !slices.Contains(problemNames, u.problem) {
			t.Errorf("unsupported lists method %q on problem %q: no such method or problem", u.method, u.problem)
		}
	}
	for name := range methodParams {
		if _, err := methods.Lookup(name); err != nil {
			t.Errorf("methodParams: %v", err)
		}
	}
	probs := map[string][]problem{}
	for _, s := range storages {
		probs[s] = problems(s)
	}
	for _, name := range methods.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pl, err := methods.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			p := resolve(t, "method "+name, pl.Params, methodParams[name])
			if pl.Validate != nil {
				if err := pl.Validate(p); err != nil {
					t.Fatalf("Validate rejects the declared defaults %s: %v", p.Label(), err)
				}
			}
			build := func(t *testing.T, p param.Values) methods.Method {
				t.Helper()
				m, err := pl.New(p)
				if err != nil {
					t.Fatalf("New(%s): %v", p.Label(), err)
				}
				return m
			}
			_, multi := build(t, p).(methods.MultiTask)
			var first *problem // the first problem the method handles, dense
			for _, s := range storages {
				for _, pr := range probs[s] {
					if pl.Kinds&pr.kind == 0 {
						continue // not a problem of the method's kinds
					}
					reason := unsupportedReason(name, pr.name, s)
					if first == nil && reason == "" {
						first = &pr
					}
					t.Run(pr.name+"/"+s, func(t *testing.T) {
						if reason != "" {
							t.Skip(reason)
						}
						checkModel(t, func() methods.Method { return build(t, p) }, fit, pr, shapeOf(pr, false))
					})
					if multi && pr.name == "three-class" {
						t.Run("tasks/"+s, func(t *testing.T) {
							checkModel(t, func() methods.Method { return build(t, p) }, fitTasks, pr, shapeOf(pr, true))
						})
					}
				}
			}
			if first == nil {
				t.Fatalf("no problem of the suite fits kinds %v", pl.Kinds)
			}
			for _, d := range pl.Params {
				for _, v := range variants(d, p[d.Name]) {
					t.Run("params/"+variantName(d.Name, v), func(t *testing.T) {
						if reason := unsupportedParamReason(name, variantName(d.Name, v)); reason != "" {
							t.Skip(reason)
						}
						q := p.Clone()
						q[d.Name] = v
						if pl.Validate != nil {
							if err := pl.Validate(q); err != nil {
								t.Skipf("Validate rejects %s: %v", q.Label(), err)
							}
						}
						m, err := pl.New(q)
						if err != nil {
							t.Skipf("New rejects %s: %v", q.Label(), err)
						}
						model, err := m.Fit(context.Background(), cloneDataset(first.train), &methods.Env{Seed: seed})
						if err != nil {
							t.Fatalf("%s on %s: %v", q.Label(), first.name, err)
						}
						checkPrediction(t, "Predict", model.Predict(first.test.X), first.test.Rows(), shapeOf(*first, false))
					})
				}
			}
		})
	}
}

// checkModel fits a method built by newMethod on pr's training set and
// checks the model: the shape and finiteness of its predictions, that
// predicting twice and refitting with the same seed (with the first fit's
// memo, and with none) give the same predictions bit for bit, that neither
// Fit nor Predict changes the training set or the predicted rows, that its
// artifacts are well formed, and that a cancelled fit returns promptly with
// an error wrapping the context's.
func checkModel(t *testing.T, newMethod func() methods.Method, fit fitter, pr problem, want shape) {
	train, test := cloneDataset(pr.train), cloneDataset(pr.test)
	memo := new(methods.Memo)
	model, err := fit(context.Background(), newMethod(), train, &methods.Env{Seed: seed, Memo: memo})
	if err != nil {
		t.Fatalf("fit: %v", err)
	}
	pred := model.Predict(test.X)
	if !checkPrediction(t, "Predict", pred, test.Rows(), want) && pred == nil {
		return
	}
	if d := diffPrediction(pred, model.Predict(test.X)); d != "" {
		t.Errorf("predicting the same rows twice gives different predictions: %s", d)
	}
	if d := diffDataset(pr.train, train); d != nil {
		t.Errorf("Fit or Predict changed the training set: %v", d)
	}
	if d := diffMatrix(pr.test.X, test.X); d != "" {
		t.Errorf("Predict changed the rows it predicted: %v", d)
	}
	checkArtifacts(t, model)
	for _, refit := range []struct {
		what string
		memo *methods.Memo
	}{{"the first fit's memo", memo}, {"no memo", nil}} {
		m, err := fit(context.Background(), newMethod(), cloneDataset(pr.train), &methods.Env{Seed: seed, Memo: refit.memo})
		if err != nil {
			t.Errorf("refit with the same seed and %s: %v", refit.what, err)
			continue
		}
		if d := diffPrediction(pred, m.Predict(test.X)); d != "" {
			t.Errorf("refit with the same seed and %s predicts differently: %s", refit.what, d)
		}
	}
	checkCancel(t, newMethod, fit, pr)
}

// checkPrediction reports whether p has the shape want on n rows, and only
// finite values.
func checkPrediction(t *testing.T, what string, p *methods.Prediction, n int, want shape) bool {
	t.Helper()
	ok := true
	fail := func(format string, args ...any) {
		t.Errorf(what+": "+format, args...)
		ok = false
	}
	if p == nil {
		fail("nil prediction")
		return false
	}
	if want.regression {
		if len(p.Values) != n {
			fail("%d values for %d rows", len(p.Values), n)
		}
		if p.K != 0 || len(p.Scores) != 0 {
			fail("a regression prediction with K = %d and %d scores; want Values only", p.K, len(p.Scores))
		}
		if i := nonFinite(p.Values); i >= 0 {
			fail("Values[%d] = %v; a prediction must be a finite number", i, p.Values[i])
		}
		return ok
	}
	if p.Values != nil {
		fail("a classification prediction with %d Values; want Scores only", len(p.Values))
	}
	if p.K != want.k || len(p.Scores) != n*want.k {
		fail("K = %d and %d scores for %d rows; want K = %d and %d scores", p.K, len(p.Scores), n, want.k, n*want.k)
	}
	if want.oneVsRest && !p.OneVsRest {
		fail("a multi-task prediction without OneVsRest set")
	}
	if i := nonFinite(p.Scores); i >= 0 {
		fail("Scores[%d] = %v (row %d); a score must be a finite number", i, p.Scores[i], i/max(p.K, 1))
	}
	return ok
}

// diffPrediction describes how b differs from a, bit for bit, or returns "".
func diffPrediction(a, b *methods.Prediction) string {
	if a.K != b.K || a.OneVsRest != b.OneVsRest || len(a.Scores) != len(b.Scores) || len(a.Values) != len(b.Values) {
		return fmt.Sprintf("K %d, OneVsRest %v, %d scores, %d values; first K %d, OneVsRest %v, %d scores, %d values",
			b.K, b.OneVsRest, len(b.Scores), len(b.Values), a.K, a.OneVsRest, len(a.Scores), len(a.Values))
	}
	for _, f := range []struct {
		name string
		x, y []float64
	}{{"Scores", a.Scores, b.Scores}, {"Values", a.Values, b.Values}} {
		n, first, worst := 0, -1, 0.0
		for i := range f.x {
			if !sameFloats(f.x[i:i+1], f.y[i:i+1]) {
				n++
				if first < 0 {
					first = i
				}
				worst = max(worst, math.Abs(f.x[i]-f.y[i]))
			}
		}
		if n > 0 {
			return fmt.Sprintf("%d of %d %s differ, the first at %d (%v, first %v), by up to %.3g",
				n, len(f.x), f.name, first, f.y[first], f.x[first], worst)
		}
	}
	return ""
}

// checkArtifacts checks the artifacts of a model that has some: each is
// named and is exactly one of a table and a plot, of consistent shape.
func checkArtifacts(t *testing.T, model methods.Model) {
	t.Helper()
	a, ok := model.(methods.Artifacter)
	if !ok {
		return
	}
	for i, art := range a.Artifacts() {
		where := fmt.Sprintf("artifact %d (%q)", i, art.Name)
		if art.Name == "" {
			t.Errorf("%s has no name", where)
		}
		if (art.Table == nil) == (art.Plot == nil) {
			t.Errorf("%s: want exactly one of Table and Plot", where)
			continue
		}
		if tb := art.Table; tb != nil {
			if len(tb.Values) != len(tb.Rows) {
				t.Errorf("%s: %d rows of values for %d row names", where, len(tb.Values), len(tb.Rows))
			}
			for r, row := range tb.Values {
				if len(row) != len(tb.Columns) {
					t.Errorf("%s: row %d has %d values for %d columns", where, r, len(row), len(tb.Columns))
					break
				}
			}
		}
		if pl := art.Plot; pl != nil {
			for _, s := range pl.Series {
				if len(s.X) != len(s.Y) {
					t.Errorf("%s: series %q has %d x and %d y values", where, s.Label, len(s.X), len(s.Y))
				}
			}
		}
	}
}

// checkCancel fits with a context cancelled before the fit starts, which
// must fail with an error wrapping context.Canceled, and with one cancelled
// as soon as the fit first polls it, which must either finish without
// looking again or fail the same way, within promptly of the cancellation.
func checkCancel(t *testing.T, newMethod func() methods.Method, fit fitter, pr problem) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := fit(ctx, newMethod(), cloneDataset(pr.train), &methods.Env{Seed: seed})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("fit with an already cancelled context returned error %v after %v; want an error wrapping context.Canceled", err, took)
	} else if took > promptly {
		t.Errorf("fit with an already cancelled context took %v; want at most %v", took, promptly)
	}

	pc := newCancelOnPoll()
	_, err = fit(pc, newMethod(), cloneDataset(pr.train), &methods.Env{Seed: seed})
	returned := time.Now()
	at, after := pc.state()
	switch {
	case at.IsZero():
		// The fit never looked at its context; the check above saw it
		// refuse to start.
	case err != nil && !errors.Is(err, context.Canceled):
		t.Errorf("fit cancelled after it started returned error %v; want one wrapping context.Canceled", err)
	case err != nil && returned.Sub(at) > promptly:
		t.Errorf("fit cancelled after it started returned %v after the cancellation; want at most %v", returned.Sub(at), promptly)
	case err == nil && after > 0:
		t.Errorf("fit saw its context cancelled (%d look(s) after the cancellation) but returned a model and no error", after)
	}
}

// cancelOnPoll is a context that cancels itself the first time the fit
// looks at it: a first Err returns nil, a first Done the closed channel.
type cancelOnPoll struct {
	context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	at    time.Time // when it was cancelled
	after int       // looks that could see the cancellation
}

func newCancelOnPoll() *cancelOnPoll {
	ctx, cancel := context.WithCancel(context.Background())
	return &cancelOnPoll{Context: ctx, cancel: cancel}
}

func (c *cancelOnPoll) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		c.cancel()
		c.at = time.Now()
		return nil
	}
	c.after++
	return c.Context.Err()
}

func (c *cancelOnPoll) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		c.cancel()
		c.at = time.Now()
	}
	c.after++
	return c.Context.Done()
}

func (c *cancelOnPoll) state() (at time.Time, after int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at, c.after
}
