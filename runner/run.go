package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
)

// Options controls Run.
type Options struct {
	// Dir is the output directory (results, reports).
	Dir string
	// DataDir is the data directory datasets read files from.
	DataDir string
	// CacheDir holds cached transform outputs; if empty, Dir/../.cache is used.
	CacheDir string
	// Workers is the number of trials run at once; if 0, runtime.NumCPU().
	Workers int
	// Fresh discards the results already in Dir before running.
	Fresh bool
	// Progress, if non-nil, is told about the run as it goes.
	Progress Progress
	// Warn, if non-nil, is called at once with each problem that does not
	// stop the run (a torn or corrupt line of the results file), before
	// any trial runs; Summary.Warnings holds them too.
	Warn func(error)
}

// Progress receives a run's progress.
type Progress interface {
	// Start is called once with the number of trials to run and the
	// number already finished in the store.
	Start(total, done int)
	// Done is called after each trial (success or failure).
	Done(r *Result)
	// Finish is called once at the end.
	Finish()
}

// Summary is the outcome of Run.
type Summary struct {
	Plan *Plan
	// Results are the latest results of the plan's trials, in plan order.
	Results []Result
	// Skipped is how many trials were already finished in the store.
	Skipped int
	// Ran is how many trials ran in this call; Failed how many of those
	// (and of the skipped ones) ended in an error.
	Ran, Failed int
	// Interrupted reports that the context was cancelled before every
	// trial ran; rerunning resumes.
	Interrupted bool
	// Warnings are problems that did not stop the run (corrupt lines).
	Warnings []error
}

// Run runs every trial of spec not already finished in opts.Dir, appending
// each result to the store as it finishes. Failed trials are retried. When
// ctx is cancelled Run stops starting trials, lets running ones see the
// cancellation, keeps what finished and returns with Interrupted set.
//
// Run holds the lock of opts.Dir (see LockDir) while it runs: a second Run
// on the same directory fails at once with a *LockedError.
func Run(ctx context.Context, spec *Spec, opts Options) (*Summary, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(filepath.Dir(filepath.Clean(opts.Dir)), ".cache")
	}
	plan, err := NewPlan(spec)
	if err != nil {
		return nil, err
	}
	unlock, err := LockDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if opts.Fresh {
		for _, name := range []string{ResultsFile, DatasetsFile, "artifacts"} {
			if err := os.RemoveAll(filepath.Join(opts.Dir, name)); err != nil {
				return nil, err
			}
		}
	}
	store, existing, warns, err := OpenStore(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := WriteSpec(opts.Dir, spec); err != nil {
		return nil, err
	}
	if err := writeEnv(opts.Dir, opts.Workers); err != nil {
		return nil, err
	}
	sum := &Summary{Plan: plan, Warnings: warns}
	if opts.Warn != nil {
		for _, w := range warns {
			opts.Warn(w)
		}
	}
	done := map[string]bool{}
	for _, r := range Latest(existing) {
		done[r.Key] = !r.Failed()
	}
	var pending []*Trial
	for _, t := range plan.Trials {
		if done[t.Key] {
			sum.Skipped++
		} else {
			pending = append(pending, t)
		}
	}

	env := datasets.Env{DataDir: opts.DataDir, CacheDir: opts.CacheDir}
	loaded := map[string]*loadedData{}
	infos, _ := ReadDatasetInfo(opts.Dir)
	if infos == nil {
		infos = map[string]DatasetInfo{}
	}
	for i := range spec.Datasets {
		ds := &spec.Datasets[i]
		need := false
		for _, t := range pending {
			need = need || t.Dataset == ds
		}
		if !need {
			continue
		}
		d, err := LoadDataset(ctx, env, ds)
		if err != nil {
			return nil, err
		}
		loaded[ds.ID] = &loadedData{spec: ds, data: d}
		infos[ds.ID] = infoOf(ds, d)
	}
	if len(loaded) > 0 {
		if err := writeJSON(filepath.Join(opts.Dir, DatasetsFile), infos); err != nil {
			return nil, err
		}
	}

	if opts.Progress != nil {
		opts.Progress.Start(len(pending), sum.Skipped)
	}
	x := &executor{spec: spec, dir: opts.Dir}
	// A result that cannot be stored stops the run: trials run after it
	// would be lost too.
	outer := ctx
	ctx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	jobs := make(chan *Trial)
	results := make(chan *Result)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				r := x.execute(ctx, t, loaded[t.Dataset.ID])
				if r.Failed() && ctx.Err() != nil {
					continue // cancelled mid-trial: not a result
				}
				results <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, t := range pending {
			select {
			case jobs <- t:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var appendErr error
	for r := range results {
		if appendErr != nil {
			continue // not stored: neither ran nor done
		}
		if appendErr = store.Append(r); appendErr != nil {
			stopRun()
			continue
		}
		sum.Ran++
		existing = append(existing, *r)
		if opts.Progress != nil {
			opts.Progress.Done(r)
		}
	}
	if opts.Progress != nil {
		opts.Progress.Finish()
	}
	if appendErr != nil {
		return nil, appendErr
	}
	sum.Interrupted = outer.Err() != nil && sum.Ran < len(pending)
	sum.Results = ForPlan(plan, existing)
	for _, r := range sum.Results {
		if r.Failed() {
			sum.Failed++
		}
	}
	return sum, nil
}

// SpecFile is the name of the resolved spec in an output directory.
const SpecFile = "spec.yaml"

// WriteSpec writes the resolved spec to dir/spec.yaml.
func WriteSpec(dir string, spec *Spec) error {
	b, err := spec.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SpecFile), b, 0o644)
}

// Version is repro's version, recorded in env.json.
var Version = "0.1.0-dev"

func writeEnv(dir string, workers int) error {
	env := map[string]any{
		"repro_version": Version,
		"go_version":    runtime.Version(),
		"os":            runtime.GOOS,
		"arch":          runtime.GOARCH,
		"cpus":          runtime.NumCPU(),
		"workers":       workers,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				env["vcs_revision"] = s.Value
			}
		}
	}
	return writeJSON(filepath.Join(dir, "env.json"), env)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadDatasetInfo reads dir/datasets.json; a missing file is (nil, nil).
func ReadDatasetInfo(dir string) (map[string]DatasetInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, DatasetsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]DatasetInfo
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", DatasetsFile, err)
	}
	return m, nil
}

type loadedData struct {
	spec *DatasetSpec
	data *datasets.Dataset
}

type executor struct {
	spec *Spec
	dir  string
}

// execute runs one trial and returns its result; it never panics.
func (x *executor) execute(ctx context.Context, t *Trial, ld *loadedData) (res *Result) {
	spec := x.spec
	res = &Result{
		Key: t.Key, Dataset: t.Dataset.ID, Method: t.Method.Label, Plugin: t.Method.Name,
		Trial: t.Index, Variant: t.Variant(),
	}
	res.Seeds.Sample = Derive(spec.Seed, "sample", t.Dataset.ID, itoa(t.Index))
	res.Seeds.Method = Derive(spec.Seed, "method", t.Dataset.ID, t.seedName(), param.Format(t.Size), itoa(t.Index))
	defer func() {
		if p := recover(); p != nil {
			res.Metrics, res.Curve = nil, nil
			res.Error = fmt.Sprintf("panic: %v\n%s", p, trimStack(debug.Stack()))
		}
	}()
	if err := x.run(ctx, t, ld, res); err != nil {
		res.Error = err.Error()
		res.Metrics, res.Curve = nil, nil
	}
	return res
}

func trimStack(b []byte) string {
	lines := strings.Split(string(b), "\n")
	if len(lines) > 24 {
		lines = lines[:24]
	}
	return strings.Join(lines, "\n")
}

func (x *executor) run(ctx context.Context, t *Trial, ld *loadedData, res *Result) error {
	if ld == nil {
		return fmt.Errorf("dataset %q not loaded", t.Dataset.ID)
	}
	d := ld.data
	pool, test, err := splitRows(d, t.Dataset, res.Seeds.Sample)
	if err != nil {
		return fmt.Errorf("dataset %q: split: %w", t.Dataset.ID, err)
	}
	k := 0
	if d.IsClassification() {
		k = len(d.Classes)
	}
	sampling := datasets.Sampling(x.spec.Curve.Sampling)
	order, err := datasets.Order(pool, d.Y, k, sampling, Derive(res.Seeds.Sample, "train"))
	if err != nil {
		return fmt.Errorf("dataset %q: sampling: %w", t.Dataset.ID, err)
	}
	if t.Sequential {
		return x.runSequential(ctx, t, d, order, test, res)
	}
	n, err := resolveSize(t.Size, len(pool))
	if err != nil {
		return err
	}
	trainRows := append([]int(nil), order[:n]...)
	sort.Ints(trainRows)
	switch t.Dataset.Split.KindName() {
	case "rest":
		test = datasets.Complement(d.Indices(), trainRows)
	case "train":
		test = trainRows // in-sample: for figures of a fit, not for generalization
	}
	if len(test) == 0 {
		return fmt.Errorf("dataset %q: empty test set", t.Dataset.ID)
	}
	train, testSet := d.Subset(trainRows), d.Subset(test)
	res.Size, res.TrainRows, res.TestRows = n, len(trainRows), len(test)

	ovr := t.Dataset.Tasks == "one-vs-rest"
	if ovr && !d.IsClassification() {
		return fmt.Errorf("dataset %q: tasks: one-vs-rest needs a classification dataset", t.Dataset.ID)
	}
	m := t.Method
	point := t.Point
	memo := &methods.Memo{}
	if point < 0 {
		start := time.Now()
		var err error
		switch m.Select.Rule {
		case "cv":
			point, err = x.selectCV(ctx, t, train, res.Seeds, ovr)
		case "test":
			point, err = x.selectTest(ctx, t, train, testSet, res.Seeds.Method, ovr, memo)
			res.Oracle = true
		default:
			err = fmt.Errorf("method %q: unknown select rule %q", m.Label, m.Select.Rule)
		}
		if err != nil {
			return err
		}
		res.SelectSeconds = time.Since(start).Seconds()
		if len(t.Choices()) > 1 {
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
	meth, err := methods.New(m.Name, m.Grid[point])
	if err != nil {
		return err
	}
	env := &methods.Env{Seed: res.Seeds.Method, Memo: memo}
	start := time.Now()
	pred, model, iters, err := fitPredict(ctx, meth, train, testSet, ovr, env)
	res.FitSeconds = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	res.Iterations = iters
	res.Metrics, err = x.score(pred, testSet, ovr)
	if err != nil {
		return err
	}
	return x.saveArtifacts(model, res)
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

// splitRows returns the training pool and the test rows of d under ds's
// split. For kind "rest" the test rows depend on the sample and are nil.
func splitRows(d *datasets.Dataset, ds *DatasetSpec, seed uint64) (pool, test []int, err error) {
	all := d.Indices()
	switch ds.Split.KindName() {
	case "given":
		if d.Split == nil {
			return nil, nil, errors.New("split kind given, but the dataset has no train/test split of its own; use holdout or rest")
		}
		pool, test = d.SplitRows()
		return pool, test, nil
	case "holdout":
		k := 0
		s := datasets.Random
		if ds.Split.Params.Bool("stratify") {
			if !d.IsClassification() {
				return nil, nil, errors.New("stratify needs a classification dataset")
			}
			k, s = len(d.Classes), datasets.Stratified
		}
		order, err := datasets.Order(all, d.Y, k, s, Derive(seed, "holdout"))
		if err != nil {
			return nil, nil, err
		}
		ts := ds.Split.Params.Float("test")
		nt := int(ts)
		if ts < 1 {
			nt = int(math.Round(ts * float64(len(all))))
		}
		if nt < 1 || nt >= len(all) {
			return nil, nil, fmt.Errorf("holdout test size %d out of range for %d rows", nt, len(all))
		}
		test = append([]int(nil), order[:nt]...)
		pool = append([]int(nil), order[nt:]...)
		sort.Ints(test)
		sort.Ints(pool)
		return pool, test, nil
	case "rest", "train":
		return all, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown split kind %q", ds.Split.Kind)
}

// fitPredict fits meth on train and predicts test. With ovr the classes
// become one-vs-rest binary tasks: fitted jointly by a methods.MultiTask
// method, independently otherwise.
func fitPredict(ctx context.Context, meth methods.Method, train, test *datasets.Dataset, ovr bool, env *methods.Env) (*methods.Prediction, methods.Model, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	if !ovr {
		model, err := meth.Fit(ctx, train, env)
		if err != nil {
			return nil, nil, 0, err
		}
		pred := model.Predict(test.X)
		return pred, model, iterations(model), nil
	}
	k := len(train.Classes)
	if mt, ok := meth.(methods.MultiTask); ok {
		Y := make([][]float64, k)
		for c := range Y {
			Y[c] = make([]float64, train.Rows())
			for i := range Y[c] {
				Y[c][i] = -1
				if train.Label(i) == c {
					Y[c][i] = 1
				}
			}
		}
		model, err := mt.FitTasks(ctx, train.X, Y, train, env)
		if err != nil {
			return nil, nil, 0, err
		}
		pred := model.Predict(test.X)
		if !pred.OneVsRest || pred.K != k {
			return nil, nil, 0, fmt.Errorf("multi-task model returned K=%d OneVsRest=%v, want K=%d one-vs-rest", pred.K, pred.OneVsRest, k)
		}
		return pred, model, iterations(model), nil
	}
	n := test.Rows()
	scores := make([]float64, n*k)
	iters := 0
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
			return nil, nil, 0, fmt.Errorf("task %q vs rest: %w", train.Classes[c], err)
		}
		p := model.Predict(test.X)
		if p.K != 2 {
			return nil, nil, 0, fmt.Errorf("task %q vs rest: binary model returned %d classes", train.Classes[c], p.K)
		}
		for i := 0; i < n; i++ {
			scores[i*k+c] = p.Score(i, 1) - p.Score(i, 0)
		}
		iters += iterations(model)
	}
	return &methods.Prediction{Scores: scores, K: k, OneVsRest: true}, nil, iters, nil
}

func iterations(m methods.Model) int {
	if in, ok := m.(methods.Informer); ok {
		return in.Info().Iterations
	}
	return 0
}

func (x *executor) score(pred *methods.Prediction, test *datasets.Dataset, ovr bool) (map[string]float64, error) {
	if ovr && !pred.OneVsRest {
		return nil, errors.New("one-vs-rest trial produced a plain prediction")
	}
	out := make(map[string]float64, len(x.spec.Metrics))
	for _, name := range x.spec.Metrics {
		v, err := metric.Evaluate(name, pred, test.Truth())
		if err != nil {
			return nil, err
		}
		out[name] = v
		for part, pv := range metric.Details(name, pred, test.Truth()) {
			out[name+"/"+part] = pv
		}
	}
	return out, nil
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

// selectCV picks the grid point with the best mean validation metric over
// stratified k folds of train. Ties keep the first point in grid order.
func (x *executor) selectCV(ctx context.Context, t *Trial, train *datasets.Dataset, seeds Seeds, ovr bool) (int, error) {
	m := t.Method
	choices := t.Choices()
	if len(choices) == 1 {
		return choices[0], nil
	}
	rows := train.Indices()
	k := 0
	if train.IsClassification() {
		k = len(train.Classes)
	}
	folds, err := datasets.Folds(rows, train.Y, k, m.Select.Folds, Derive(seeds.Sample, "cv"))
	if err != nil {
		return 0, fmt.Errorf("method %q: %w", m.Label, err)
	}
	type foldData struct {
		fit, val *datasets.Dataset
		memo     *methods.Memo
	}
	fd := make([]foldData, len(folds))
	for f, held := range folds {
		fd[f] = foldData{fit: train.Subset(datasets.Complement(rows, held)), val: train.Subset(held), memo: &methods.Memo{}}
	}
	best, bestScore := -1, math.NaN()
	var firstErr error
	for _, g := range choices {
		p := m.Grid[g]
		meth, err := methods.New(m.Name, p)
		if err != nil {
			return 0, err
		}
		// The score is the mean over the folds where the metric is
		// defined: a fold whose validation rows hold one class has no AUC.
		sum, defined := 0.0, 0
		for f := range fd {
			env := &methods.Env{Seed: Derive(seeds.Method, "cv", itoa(f)), Memo: fd[f].memo}
			pred, _, _, err := fitPredict(ctx, meth, fd[f].fit, fd[f].val, ovr, env)
			var v float64
			if err == nil {
				v, err = metric.Evaluate(m.Select.Metric, pred, fd[f].val.Truth())
			}
			if err != nil {
				if ctx.Err() != nil {
					return 0, ctx.Err()
				}
				if firstErr == nil {
					firstErr = fmt.Errorf("grid point {%s} fold %d: %w", p.Label(), f, err)
				}
				sum, defined = math.NaN(), 0
				break
			}
			if !math.IsNaN(v) {
				sum += v
				defined++
			}
		}
		score := math.NaN()
		if defined > 0 {
			score = sum / float64(defined)
		} else if firstErr == nil && !math.IsNaN(sum) {
			firstErr = fmt.Errorf("grid point {%s}: %s is undefined on every validation fold (too few rows of some class?)", p.Label(), m.Select.Metric)
		}
		if best < 0 || better(m.Select.Metric, score, bestScore) {
			if !math.IsNaN(score) || best < 0 {
				best, bestScore = g, score
			}
		}
	}
	if math.IsNaN(bestScore) {
		return 0, fmt.Errorf("method %q: cross-validation: every grid point failed; first: %w", m.Label, firstErr)
	}
	return best, nil
}

// selectTest picks the grid point with the best test metric: the oracle
// choice. Fits share memo with the final refit.
func (x *executor) selectTest(ctx context.Context, t *Trial, train, test *datasets.Dataset, seed uint64, ovr bool, memo *methods.Memo) (int, error) {
	m := t.Method
	choices := t.Choices()
	if len(choices) == 1 {
		return choices[0], nil
	}
	best, bestScore := -1, math.NaN()
	var firstErr error
	for _, g := range choices {
		p := m.Grid[g]
		meth, err := methods.New(m.Name, p)
		if err != nil {
			return 0, err
		}
		pred, _, _, err := fitPredict(ctx, meth, train, test, ovr, &methods.Env{Seed: seed, Memo: memo})
		var v float64
		if err == nil {
			v, err = metric.Evaluate(m.Select.Metric, pred, test.Truth())
		}
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("grid point {%s}: %w", p.Label(), err)
			}
			continue
		}
		if best < 0 || better(m.Select.Metric, v, bestScore) {
			best, bestScore = g, v
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("method %q: every grid point failed; first: %w", m.Label, firstErr)
	}
	return best, nil
}

// runSequential runs a sequential method over the whole curve.
func (x *executor) runSequential(ctx context.Context, t *Trial, d *datasets.Dataset, order, test []int, res *Result) error {
	if t.Dataset.Split.KindName() == "rest" {
		return fmt.Errorf("method %q is sequential: it needs a given or holdout split, not %q", t.Method.Label, t.Dataset.Split.Kind)
	}
	if t.Point < 0 {
		return fmt.Errorf("method %q is sequential: only select rule fixed is supported", t.Method.Label)
	}
	budgets := make([]int, len(x.spec.Curve.Sizes))
	for i, s := range x.spec.Curve.Sizes {
		n, err := resolveSize(s, len(order))
		if err != nil {
			return err
		}
		budgets[i] = n
	}
	// A count and a fraction may come to the same number of rows; the
	// learner is promised increasing budgets.
	sort.Ints(budgets)
	budgets = slices.Compact(budgets)
	meth, err := methods.New(t.Method.Name, t.Method.Grid[t.Point])
	if err != nil {
		return err
	}
	seq := meth.(methods.Sequential)
	// The pool keeps the sampling order, so a learner that starts from
	// "the first rows" starts from the same rows as every other method.
	pool := d.Subset(order)
	testSet := d.Subset(test)
	res.TrainRows, res.TestRows = len(order), len(test)
	start := time.Now()
	var lastModel methods.Model
	err = seq.FitSequence(ctx, pool, budgets, &methods.Env{Seed: res.Seeds.Method, Memo: &methods.Memo{}},
		func(labels int, m methods.Model, extra map[string]float64) error {
			metrics, err := x.score(m.Predict(testSet.X), testSet, false)
			if err != nil {
				return err
			}
			for k, v := range extra {
				metrics[k] = v
			}
			res.Curve = append(res.Curve, CurvePoint{Size: labels, Metrics: metrics})
			lastModel = m
			return nil
		})
	res.FitSeconds = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	if len(res.Curve) == 0 {
		return fmt.Errorf("method %q yielded no curve point", t.Method.Label)
	}
	last := res.Curve[len(res.Curve)-1]
	res.Size, res.Metrics = last.Size, last.Metrics
	return x.saveArtifacts(lastModel, res)
}

func (x *executor) saveArtifacts(model methods.Model, res *Result) error {
	a, ok := model.(methods.Artifacter)
	if !ok {
		return nil
	}
	arts := a.Artifacts()
	if len(arts) == 0 {
		return nil
	}
	dir := filepath.Join(x.dir, "artifacts", res.Key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, art := range arts {
		rel := filepath.Join("artifacts", res.Key, safeName(art.Name)+".json")
		if err := writeJSON(filepath.Join(x.dir, rel), nanSafe(art)); err != nil {
			return fmt.Errorf("artifact %q: %w", art.Name, err)
		}
		res.Artifacts = append(res.Artifacts, filepath.ToSlash(rel))
	}
	return nil
}

// nanSafe returns art with NaN and ±Inf table cells and plot points
// replaced by nil-able JSON values (encoding/json rejects NaN).
func nanSafe(art methods.Artifact) any {
	type table struct {
		Columns []string     `json:"Columns"`
		Rows    []string     `json:"Rows"`
		Values  [][]*float64 `json:"Values"`
	}
	out := map[string]any{"Name": art.Name, "Title": art.Title}
	if art.Table != nil {
		t := table{Columns: art.Table.Columns, Rows: art.Table.Rows}
		for _, row := range art.Table.Values {
			r := make([]*float64, len(row))
			for j, v := range row {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					v := v
					r[j] = &v
				}
			}
			t.Values = append(t.Values, r)
		}
		out["Table"] = t
	}
	if art.Plot != nil {
		p := *art.Plot
		p.Series = nil
		for _, s := range art.Plot.Series {
			c := methods.Series{Label: s.Label, Points: s.Points}
			for i := range s.X {
				if finite(s.X[i]) && finite(s.Y[i]) {
					c.X = append(c.X, s.X[i])
					c.Y = append(c.Y, s.Y[i])
				}
			}
			p.Series = append(p.Series, c)
		}
		out["Plot"] = p
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "artifact"
	}
	return b.String()
}
