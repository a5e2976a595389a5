package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// TrialRun is one trial as a protocol sees it: the data after the
// dataset's transforms (those fitted on the pool included), the trial's
// partition and seeds, and the means to fit the method and score it. The
// protocol fills Result's sizes, timings and choices as it goes.
type TrialRun struct {
	Trial *spec.Trial
	Spec  *spec.Spec
	// Data is the dataset after its corpus-level transforms and the
	// transforms fitted on this trial's pool.
	Data *datasets.Dataset
	// Part is the trial's partition of Data's rows.
	Part *Partition
	// Seeds are the trial's seeds (also in Result.Seeds).
	Seeds results.Seeds
	// Result is the trial's result; the protocol sets Size, TrainRows,
	// TestRows, FitSeconds, Iterations, Chosen and the like.
	Result *results.Result

	x      *executor
	ld     *loadedData
	dataID string         // identity of Data's content; "" until asked for
	state  *methods.State // carried by the trial's successive fits
	warm   *methods.State // their starting points (methods.Env.Warm)
	// fitted is the Info the last fit's model reported when Fit
	// returned: a transductive model (lgc) does its iterations in
	// Predict, which adds what they grew by.
	fitted methods.Info
	// unlabelledX is the protocol's unlabelled pool for Env.Unlabelled of
	// its next fit (SetUnlabelled), or nil.
	unlabelledX matrix.Matrix
	// reserved is the trial's share of the run's memory budget, held
	// from its first fit to its end.
	reserved int64
	// after, if set by the protocol (After), completes the Result once
	// work shared with other trials (a full-pool fit) is done; the
	// trial's worker does not wait for it.
	after func() error
}

// DataID returns an identity of Data's content: trials whose Data hold
// the same rows share it. It keys caches of work on the data.
func (t *TrialRun) DataID() string {
	if t.dataID == "" {
		t.dataID = t.ld.id()
	}
	return t.dataID
}

// SetUnlabelled sets the rows the trial's next fits see as
// methods.Env.Unlabelled, without labels (the active protocol's
// unlabelled pool); nil for none.
func (t *TrialRun) SetUnlabelled(x matrix.Matrix) { t.unlabelledX = x }

// Unlabelled returns what SetUnlabelled set.
func (t *TrialRun) Unlabelled() matrix.Matrix { return t.unlabelledX }

// Share returns the value of key shared by the trials of the run, which
// compute makes once: the first trial to ask runs compute and gets its
// value; a trial that asks while another computes it gets wait instead,
// which returns the value once it is made (see After). A value made is
// kept for the trials that ask later, among the run's most recent 1024.
// The key names what the value is of: the protocol, the data (DataID),
// the rows, the series.
func (t *TrialRun) Share(key string, compute func() (any, error)) (v any, err error, wait func() (any, error)) {
	return t.x.shared.start(key, compute)
}

// After sets f to complete the trial's Result once work it shares with
// other trials is done (a wait from Share): the protocol returns its
// observations, the trial's worker goes on to the next trial, and the
// result is stored when f returns (failed if f fails).
func (t *TrialRun) After(f func() error) { t.after = f }

// Apart runs f as work apart from the trial's sequence of fits: the fits
// f makes start from a fresh methods.State, see no unlabelled rows and
// use seed as their method seed. When f returns, the trial's state, method
// seed, warm start, unlabelled rows and Result.Iterations are as before;
// Apart returns the iterations f's fits and predictions took.
func (t *TrialRun) Apart(seed uint64, f func() error) (iterations int, err error) {
	res := t.Result
	method, state, warm, iters, unlabelled := t.Seeds.Method, t.state, t.warm, res.Iterations, t.unlabelledX
	// A nil state makes Fit start a fresh State and Warm.
	t.Seeds.Method, t.state, t.unlabelledX = seed, nil, nil
	defer func() {
		t.Seeds.Method, t.state, t.warm, res.Iterations, t.unlabelledX = method, state, warm, iters, unlabelled
	}()
	err = f()
	return res.Iterations - iters, err
}

// OneVsRest reports whether the dataset's classes become one-vs-rest
// binary tasks (tasks: one-vs-rest).
func (t *TrialRun) OneVsRest() bool { return t.Trial.Dataset.Tasks == "one-vs-rest" }

// Order returns the pool's rows in the order training samples take them
// (curve.sampling, from the trial's sample seed): a sample of n rows is
// the first n, so samples are nested across sizes and shared by every
// method of the trial.
func (t *TrialRun) Order() ([]int, error) {
	d := t.Data
	k := 0
	if d.IsClassification() {
		k = len(d.Classes)
	}
	order, err := datasets.Order(t.Part.Pool, d.Y, k, datasets.Sampling(t.Spec.Curve.Sampling), spec.Derive(t.Seeds.Sample, "train"))
	if err != nil {
		return nil, fmt.Errorf("dataset %q: sampling: %w", t.Trial.Dataset.ID, err)
	}
	return order, nil
}

// Sets returns the training and test sets for the rows train and test,
// with the dataset's fit: train transforms fitted on train and applied to
// both.
func (t *TrialRun) Sets(ctx context.Context, train, test []int) (trainSet, testSet *datasets.Dataset, err error) {
	trainSet, testSet = t.Data.Subset(train), t.Data.Subset(test)
	// The first transform is fitted on the rows train of Data (or of the
	// training set, when the loader's preprocessing was refitted on it);
	// each later one on every row of the training set its predecessors
	// produced.
	fitOn, rows, id := t.Data, train, ""
	trainSet, testSet, prepID, err := t.refitPrep(trainSet, testSet, train)
	if err != nil {
		return nil, nil, err
	}
	if prepID != "" {
		fitOn, rows, id = trainSet, trainSet.Indices(), prepID
	}
	for _, ts := range t.Trial.Dataset.Transforms {
		if ts.Fit != spec.FitTrain {
			continue
		}
		if id == "" {
			id = t.DataID()
		}
		f, key, err := t.x.fitted(ctx, fitOn, id, rows, ts)
		if err != nil {
			return nil, nil, err
		}
		if trainSet, err = applyFitted(f, trainSet, ts); err != nil {
			return nil, nil, err
		}
		if testSet, err = applyFitted(f, testSet, ts); err != nil {
			return nil, nil, err
		}
		fitOn, rows, id = trainSet, trainSet.Indices(), key
	}
	return trainSet, testSet, nil
}

// Fit chooses the trial's grid point with the method's select rule (on
// train, or for an oracle rule on test) and fits the method at that point
// on train. It records the choice, the fit time and the iterations in
// Result, and whether the fit stopped at its iteration cap (the last
// fit's, for a protocol that fits several times).
func (t *TrialRun) Fit(ctx context.Context, train, test *datasets.Dataset) (methods.Model, error) {
	if err := t.checkNeeds(train); err != nil {
		return nil, err
	}
	need, err := t.checkMemory(train, test)
	if err != nil {
		return nil, err
	}
	if err := t.reserve(ctx, need); err != nil {
		return nil, err
	}
	if t.OneVsRest() && !train.IsClassification() {
		return nil, fmt.Errorf("dataset %q: tasks: one-vs-rest needs a classification dataset", t.Trial.Dataset.ID)
	}
	m := t.Trial.Method
	res := t.Result
	point := t.Trial.Point
	memo := &methods.Memo{}
	if point < 0 {
		sel, err := LookupSelector(m.Select.RuleName())
		if err != nil {
			return nil, fmt.Errorf("method %q: %w", m.Label, err)
		}
		start := time.Now()
		c := &Choice{Run: t, Candidates: t.Trial.Choices(), Train: train, Test: test, Memo: memo, Score: math.NaN()}
		point, err = sel.Choose(ctx, c)
		if err != nil {
			return nil, err
		}
		if !math.IsNaN(c.Score) {
			v := c.Score
			res.SelectScore = &v
		}
		res.SelectSeconds += time.Since(start).Seconds()
		res.Oracle = sel.Oracle
		if len(t.Trial.Choices()) > 1 {
			res.Chosen = map[string]any{}
			chosen := m.Select.Over
			if len(chosen) == 0 {
				chosen = m.Varying
			}
			for _, name := range chosen {
				res.Chosen[name] = m.Grid[point][name]
			}
		}
	}
	start := time.Now()
	if t.state == nil {
		t.state, t.warm = &methods.State{}, &methods.State{}
	}
	model, err := t.fitPoint(ctx, point, train, &methods.Env{Seed: t.Seeds.Method, Memo: memo, State: t.state, Warm: t.warm, Unlabelled: t.unlabelledX})
	elapsed := time.Since(start).Seconds()
	if ft, ok := model.(methods.FitTimer); ok && err == nil {
		elapsed = ft.FitSeconds() // an external program's wall time
	}
	res.FitSeconds += elapsed
	if err != nil {
		return nil, err
	}
	info, ok := fitInfo(model)
	res.Iterations += info.Iterations
	res.NotConverged = ok && !info.Converged
	t.fitted = info
	return model, nil
}

// fitPoint fits the trial's method at grid point g on train.
func (t *TrialRun) fitPoint(ctx context.Context, g int, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	m := t.Trial.Method
	meth, err := methods.New(m.Name, m.Grid[g])
	if err != nil {
		return nil, err
	}
	return fitTasks(ctx, meth, train, t.OneVsRest(), env)
}

// collectFit collects the garbage of the fit just ended and returns the
// free memory to the system when t's dataset is large (trialGC): the
// solver's temporaries would otherwise stay resident beside the data
// while the prediction allocates its scores in new pages. On the 20
// Newsgroups LIBSVM file (issue 41) the process's peak RSS is then the
// fit's, about 1.2 MB lower than the prediction's was.
func (t *TrialRun) collectFit() {
	if t.Data != nil && residentBytes(t.Data) >= trialGC {
		debug.FreeOSMemory()
	}
}

// Predict returns the prediction on set of the model Fit returned,
// checked: the shape the dataset calls for, and no NaN score or value (a
// NaN is a failed fit, never a stored number). Iterations the model runs
// while predicting count with its fit's.
func (t *TrialRun) Predict(model methods.Model, set *datasets.Dataset) (*methods.Prediction, error) {
	p, err := t.predict(model, set)
	if err != nil {
		return nil, err
	}
	if info, ok := fitInfo(model); ok && info != t.fitted {
		// Iterations the fitted model ran while predicting (a
		// transductive method's propagation) count with its fit's.
		if info.Iterations > t.fitted.Iterations {
			t.Result.Iterations += info.Iterations - t.fitted.Iterations
		}
		t.Result.NotConverged = !info.Converged
		t.fitted = info
	}
	return p, nil
}

// predict is Predict without the bookkeeping of the fitted model's
// iterations: for the models a select rule scores on its folds.
func (t *TrialRun) predict(model methods.Model, set *datasets.Dataset) (*methods.Prediction, error) {
	p, err := methods.PredictSet(model, set)
	if err != nil {
		return nil, fmt.Errorf("method %q: %w", t.Trial.Method.Label, err)
	}
	if err := checkPrediction(p, set, t.OneVsRest()); err != nil {
		return nil, fmt.Errorf("method %q: %w", t.Trial.Method.Label, err)
	}
	return p, nil
}

func checkPrediction(p *methods.Prediction, set *datasets.Dataset, ovr bool) error {
	n := set.Rows()
	if set.IsClassification() {
		k := len(set.Classes)
		if p.K != k || len(p.Scores) != n*k {
			return fmt.Errorf("prediction has K=%d and %d scores; want K=%d and %d scores for %d rows", p.K, len(p.Scores), k, n*k, n)
		}
		if ovr && !p.OneVsRest {
			return errors.New("one-vs-rest trial produced a plain prediction")
		}
		for i, v := range p.Scores {
			if math.IsNaN(v) {
				return fmt.Errorf("prediction score of row %d, class %q is NaN", i/k, set.Classes[i%k])
			}
		}
		return nil
	}
	if len(p.Values) != n {
		return fmt.Errorf("prediction has %d values; want %d", len(p.Values), n)
	}
	for i, v := range p.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("predicted value of row %d is %v (want a finite number: the fit diverged or overflowed?)", i, v)
		}
	}
	return nil
}

// Score returns the spec's metrics of p on set, with each metric's
// per-part details as "name/part".
func (t *TrialRun) Score(p *methods.Prediction, set *datasets.Dataset) (results.Metrics, error) {
	truth := set.Truth()
	out := make(results.Metrics, len(t.Spec.Metrics))
	sc := metric.NewScorer(p, truth) // auc and auc_weighted sort the scores once
	for _, name := range t.Spec.Metrics {
		v, err := sc.Evaluate(name)
		if err != nil {
			return nil, err
		}
		if math.IsInf(v, 0) {
			// NaN is a metric undefined on this test set (the AUC of
			// one class); an infinite one, a prediction that overflowed.
			return nil, fmt.Errorf("metric %s is %v: want a finite value (a prediction overflowed?)", name, v)
		}
		out[name] = v
		for part, pv := range metric.Details(name, p, truth) {
			out[name+"/"+part] = pv
		}
	}
	return out, nil
}

// Extras returns the named values model records (methods.Extraser), or
// nil.
func Extras(model methods.Model) results.Metrics {
	e, ok := model.(methods.Extraser)
	if !ok {
		return nil
	}
	m := e.Extras()
	if len(m) == 0 {
		return nil
	}
	return results.Metrics(m)
}

// SaveArtifacts stores model's artifacts, if it has any, under the trial's
// key and lists them in Result.
func (t *TrialRun) SaveArtifacts(model methods.Model) error {
	return t.x.saveArtifacts(model, t.Result)
}

// fitTasks fits meth on train. With ovr the classes become one-vs-rest
// binary tasks: fitted jointly by a methods.MultiTask method, one fit per
// task otherwise.
func fitTasks(ctx context.Context, meth methods.Method, train *datasets.Dataset, ovr bool, env *methods.Env) (methods.Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !ovr {
		return meth.Fit(ctx, train, env)
	}
	k := len(train.Classes)
	if mt, ok := meth.(methods.MultiTask); ok {
		return mt.FitTasks(ctx, train.X, methods.OneVsRest(train), train, env)
	}
	// A task does not start from another task's solution.
	cold := *env
	cold.Warm = nil
	env = &cold
	ovrm := &ovrModel{classes: train.Classes, models: make([]methods.Model, k)}
	for c := 0; c < k; c++ {
		bin := *train
		bin.Classes = []string{"not " + train.Classes[c], train.Classes[c]}
		bin.Y = make([]float64, train.Rows())
		for i := range bin.Y {
			if train.Label(i) == c {
				bin.Y[i] = 1
			}
		}
		model, err := meth.Fit(ctx, &bin, env)
		if err != nil {
			return nil, fmt.Errorf("task %q vs rest: %w", train.Classes[c], err)
		}
		ovrm.models[c] = model
	}
	return ovrm, nil
}

// ovrModel is k binary models, one per class against the rest; its score
// for class c is the binary model's score difference.
type ovrModel struct {
	classes []string
	models  []methods.Model
}

func (m *ovrModel) Predict(X matrix.Matrix) *methods.Prediction {
	p, _ := m.PredictErr(X)
	return p
}

// PredictErr is Predict, with the error of a task's model that failed to
// predict (methods.ErrPredictor).
func (m *ovrModel) PredictErr(X matrix.Matrix) (*methods.Prediction, error) {
	return m.PredictSet(&datasets.Dataset{X: X})
}

// PredictSet is PredictErr on the rows of set, whose documents reach a
// task's model that reads them (methods.SetPredictor).
func (m *ovrModel) PredictSet(set *datasets.Dataset) (*methods.Prediction, error) {
	n, _ := set.X.Dims()
	k := len(m.models)
	scores := make([]float64, n*k)
	for c, model := range m.models {
		p, err := methods.PredictSet(model, set)
		if err != nil {
			return nil, fmt.Errorf("task %q vs rest: %w", m.classes[c], err)
		}
		if p.K != 2 {
			// A binary model answered with other than two classes: the
			// scores stay NaN, which the prediction check reports.
			for i := 0; i < n; i++ {
				scores[i*k+c] = math.NaN()
			}
			continue
		}
		for i := 0; i < n; i++ {
			scores[i*k+c] = p.Score(i, 1) - p.Score(i, 0)
		}
	}
	return &methods.Prediction{Scores: scores, K: k, OneVsRest: true}, nil
}

func (m *ovrModel) Info() methods.Info {
	info := methods.Info{Converged: true}
	for _, model := range m.models {
		if in, ok := model.(methods.Informer); ok {
			i := in.Info()
			info.Iterations += i.Iterations
			info.Converged = info.Converged && i.Converged
		}
	}
	return info
}

// fitInfo returns how model's fit went, and whether it says
// (methods.Informer).
func fitInfo(m methods.Model) (methods.Info, bool) {
	if in, ok := m.(methods.Informer); ok {
		return in.Info(), true
	}
	return methods.Info{}, false
}
