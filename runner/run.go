package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/atomicfile"
	"github.com/repro-ml/repro/internal/clip"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
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
	// Only, if set, limits the run to the trials it accepts (a smoke run:
	// the first trial at the smallest size); the others are neither run
	// nor counted as done.
	Only func(*spec.Trial) bool
	// Locked reports that the caller holds the lock of Dir (LockDir), as
	// `repro run` does to render the reports before another process may
	// touch the directory; Run then does not lock it again.
	Locked bool
	// Shard, if set (N > 0), limits the run to the trials of one shard
	// of the plan (Plan.Shards), stored in the shard's own results file
	// (Shard.File) under the shard's own lock (LockShard) rather than the
	// directory's, so that the shards of a job array run at once on one
	// directory. Fresh then discards only the shard's file.
	Shard results.Shard
	// MemLimit is the memory, in bytes, the fits running at once may
	// need by their methods' estimates (methods.Plugin.Memory), beside
	// the datasets resident: a trial whose fit alone needs more fails
	// with a *MemoryError before it allocates, and the run goes on;
	// trials whose fits together need more wait for each other; a
	// dataset loads when its size fits beside those resident (or none
	// is), the trials of those running first. If 0, DefaultMemLimit() is
	// used; NoMemLimit turns the check off (datasets load as the workers
	// allow, each still released after its last trial).
	MemLimit int64
	// Warn, if non-nil, is called at once with each problem that does not
	// stop the run: a torn or corrupt line of the results file, before
	// any trial runs; a damaged cache file a plugin refitted
	// (datasets.Env.Warn), when a trial meets it, from the trial's
	// goroutine (one call at a time). Summary.Warnings holds them too.
	Warn func(error)
}

// Progress receives a run's progress.
type Progress interface {
	// Start is called once with the number of trials to run and the
	// number already finished in the store.
	Start(total, done int)
	// Done is called after each trial (success or failure).
	Done(r *results.Result)
	// Finish is called once at the end.
	Finish()
}

// Summary is the outcome of Run.
type Summary struct {
	Plan *spec.Plan
	// Results are the latest results of the plan's trials, in plan order.
	Results []results.Result
	// Skipped is how many trials were already finished in the store.
	Skipped int
	// Ran is how many trials ran in this call; Failed how many of those
	// (and of the skipped ones) ended in an error.
	Ran, Failed int
	// Interrupted reports that the context was cancelled before every
	// trial ran; rerunning resumes.
	Interrupted bool
	// Warnings are problems that did not stop the run (corrupt lines,
	// damaged cache files).
	Warnings []error
}

// Run runs every trial of spec not already finished in opts.Dir, appending
// each result to the store as it finishes. Failed trials are retried. When
// ctx is cancelled Run stops starting trials, lets running ones see the
// cancellation, keeps what finished and returns with Interrupted set.
//
// Run holds the lock of opts.Dir (see LockDir) while it runs: a second Run
// on the same directory fails at once with a *LockedError.
func Run(ctx context.Context, sp *spec.Spec, opts Options) (*Summary, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	var capped error
	if limit := MaxWorkers(); opts.Workers > limit {
		capped = fmt.Errorf("%d workers requested; capped at %d (%d × the %d CPUs)", opts.Workers, limit, workersPerCPU, runtime.NumCPU())
		opts.Workers = limit
	}
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(filepath.Dir(filepath.Clean(opts.Dir)), ".cache")
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		return nil, err
	}
	var in map[string]bool
	if opts.Shard.N > 0 {
		in = shardKeys(plan, opts.Shard)
		only := opts.Only
		opts.Only = func(t *spec.Trial) bool { return in[t.Key] && (only == nil || only(t)) }
	}
	if !opts.Locked {
		lock := results.LockDir
		if opts.Shard.N > 0 {
			lock = func(dir string) (func(), error) { return results.LockShard(dir, opts.Shard) }
		}
		unlock, err := lock(opts.Dir)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	if opts.Fresh {
		fresh := []string{results.ResultsFile, results.DatasetsFile, "artifacts", results.ShardDir}
		if opts.Shard.N > 0 {
			fresh = []string{opts.Shard.File()}
		}
		for _, name := range fresh {
			if err := os.RemoveAll(filepath.Join(opts.Dir, name)); err != nil {
				return nil, err
			}
		}
	}
	var store *results.Store
	var existing []results.Result
	var warns []error
	if opts.Shard.N > 0 {
		store, existing, warns, err = results.OpenShardStore(opts.Dir, opts.Shard, in)
	} else {
		store, existing, warns, err = results.OpenStore(opts.Dir)
	}
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if opts.Shard.N == 0 {
		if existing, warns, err = results.WithShards(opts.Dir, existing, warns); err != nil {
			return nil, err
		}
	}
	if err := WriteSpec(opts.Dir, sp); err != nil {
		return nil, err
	}
	if err := writeEnv(opts.Dir, opts.Workers); err != nil {
		return nil, err
	}
	if capped != nil {
		warns = append([]error{capped}, warns...)
	}
	warns = append(warns, conflicting(existing)...)
	sum := &Summary{Plan: plan, Warnings: warns}
	if opts.Warn != nil {
		for _, w := range warns {
			opts.Warn(w)
		}
	}
	done := map[string]bool{}
	for _, r := range results.Latest(existing) {
		done[r.Key] = r.Finished(sp.Metrics)
	}
	var pending []*spec.Trial
	for _, t := range plan.Trials {
		switch {
		case opts.Only != nil && !opts.Only(t):
		case done[t.Key]:
			sum.Skipped++
		default:
			pending = append(pending, t)
		}
	}
	sharePartitions(pending)
	// Workers without a trial to run lend themselves to the folds of
	// those that run (executor.idle).
	lend := 0
	if opts.Workers > len(pending) {
		lend = opts.Workers - max(len(pending), 1)
		opts.Workers = max(len(pending), 1)
	}

	// Plugins report what they recovered from (a damaged cache file)
	// while trials run, from any worker.
	var warnMu sync.Mutex
	env := datasets.Env{DataDir: opts.DataDir, CacheDir: opts.CacheDir, Warn: func(w error) {
		warnMu.Lock()
		defer warnMu.Unlock()
		sum.Warnings = append(sum.Warnings, w)
		if opts.Warn != nil {
			opts.Warn(w)
		}
	}}
	memLimit := opts.MemLimit
	if memLimit == 0 {
		memLimit = DefaultMemLimit()
	}
	// A damaged datasets.json is rebuilt from the data: every dataset
	// loads, not only those with trials left to run.
	infos, err := results.ReadDatasetInfo(opts.Dir)
	rebuild := err != nil
	if rebuild {
		w := fmt.Errorf("%w; rebuilding it from the data", err)
		sum.Warnings = append(sum.Warnings, w)
		if opts.Warn != nil {
			opts.Warn(w)
		}
	}
	if infos == nil {
		infos = map[string]results.DatasetInfo{}
	}
	var budget *memBudget
	if memLimit > 0 {
		budget = newMemBudget(memLimit)
	}
	// A result that cannot be stored, or a dataset loaded after the
	// first trial that fails, stops the run: trials run after it would
	// be lost too.
	outer := ctx
	ctx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	data := newResidents(sp, env, pending, rebuild, memLimit, budget, opts.Workers, opts.Dir, infos)
	data.stop = stopRun
	defer data.close()
	if err := data.start(ctx); err != nil {
		return nil, err
	}

	if opts.Progress != nil {
		opts.Progress.Start(len(pending), sum.Skipped)
	}
	x := &executor{spec: sp, dir: opts.Dir, env: env, fits: newFitCache(2*opts.Workers + 2),
		applied: newLRU[*datasets.Dataset](opts.Workers + 1), shared: newLRU[any](1024), memLimit: memLimit,
		budget: budget, idle: make(chan struct{}, opts.Workers+lend)}
	for range lend {
		x.idle <- struct{}{}
	}
	data.purge = func() {
		x.applied.purge()
		x.fits.purge()
	}
	jobs := make(chan job)
	recs := make(chan *results.Result)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r, after := x.execute(ctx, j.t, j.ld)
				if after != nil {
					// The trial waits for another's work; its
					// worker goes on.
					wg.Add(1)
					go func() {
						defer wg.Done()
						after()
						data.ended(j.t)
						if r.Failed() && ctx.Err() != nil {
							return
						}
						recs <- r
					}()
					continue
				}
				data.ended(j.t)
				if r.Failed() && ctx.Err() != nil {
					continue // cancelled mid-trial: not a result
				}
				recs <- r
			}
			// No trial left to start: this worker's CPU is free for
			// the folds of the trials still running (chooseCV).
			x.idle <- struct{}{}
		}()
	}
	// Trials start in plan order as their datasets are resident
	// (residents.next).
	go func() {
		defer close(jobs)
		for {
			t, ld, ok := data.next(ctx)
			if !ok {
				return
			}
			select {
			case jobs <- job{t, ld}:
			case <-ctx.Done():
				data.ended(t)
				return
			}
		}
	}()
	go func() { wg.Wait(); close(recs) }()
	var appendErr error
	for r := range recs {
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
	if err := data.close(); err != nil {
		return nil, err
	}
	sum.Interrupted = outer.Err() != nil && sum.Ran < len(pending)
	sum.Results = spec.ForPlan(plan, existing)
	for _, r := range sum.Results {
		if r.Failed() {
			sum.Failed++
		}
	}
	return sum, nil
}

// loadOutcome is one dataset's outcome of loadAll.
type loadOutcome struct {
	data *datasets.Dataset
	err  error
}

// loadAll loads, at most workers at once, the datasets of spec that the
// pending trials use (every dataset if all is set), and returns their
// outcomes by index in spec.Datasets (nil where not needed). Loading and
// the transforms of one dataset are independent of the others', so a
// run with several datasets does not wait for them one after the other.
func loadAll(ctx context.Context, env datasets.Env, sp *spec.Spec, pending []*spec.Trial, all bool, memLimit int64, workers int) []*loadOutcome {
	out := make([]*loadOutcome, len(sp.Datasets))
	used := map[*spec.DatasetSpec]bool{}
	for _, t := range pending {
		used[t.Dataset] = true
	}
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i := range sp.Datasets {
		ds := &sp.Datasets[i]
		if !all && !used[ds] {
			continue
		}
		out[i] = &loadOutcome{}
		wg.Add(1)
		go func(o *loadOutcome) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			o.data, o.err = loadDataset(ctx, env, ds, memLimit)
		}(out[i])
	}
	wg.Wait()
	return out
}

// workersPerCPU bounds the workers of a run: trials are CPU-bound, and
// each worker holds a training set and a model in memory.
const workersPerCPU = 4

// MaxWorkers returns the most trials Run runs at once.
func MaxWorkers() int { return workersPerCPU * runtime.NumCPU() }

// conflicting warns of keys stored twice as finished with different
// metrics: the later line is used, but two runs of one trial should agree.
func conflicting(stored []results.Result) []error {
	first := map[string]*results.Result{}
	var out []error
	for i := range stored {
		r := &stored[i]
		if r.Failed() {
			continue
		}
		prev, ok := first[r.Key]
		if !ok {
			first[r.Key] = r
			continue
		}
		a, _ := json.Marshal(prev.Points())
		b, _ := json.Marshal(r.Points())
		if string(a) != string(b) {
			out = append(out, fmt.Errorf("%s: trial %s (%s, %s, trial %d) is stored twice with different metrics; the later line is used",
				results.ResultsFile, r.Key, r.Dataset, spec.SeriesName(r.Method, r.Variant), r.Trial))
		}
	}
	return out
}

// sharePartitions orders the trials of datasets with transforms fitted per
// trial by dataset and trial index (stably, so plan order within), so that
// the trials sharing a partition — and its fitted transforms — run close
// together and find them in the cache. Results do not depend on the order
// trials run in.
func sharePartitions(trials []*spec.Trial) {
	fitted := func(t *spec.Trial) bool {
		for _, ts := range t.Dataset.Transforms {
			if ts.PerTrial() {
				return true
			}
		}
		return false
	}
	pos := map[*spec.DatasetSpec]int{}
	for _, t := range trials {
		if _, ok := pos[t.Dataset]; !ok {
			pos[t.Dataset] = len(pos)
		}
	}
	key := func(t *spec.Trial) [2]int {
		if !fitted(t) {
			return [2]int{pos[t.Dataset], 0}
		}
		return [2]int{pos[t.Dataset], t.Index}
	}
	sort.SliceStable(trials, func(i, j int) bool {
		a, b := key(trials[i]), key(trials[j])
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
}

// WriteSpec writes the resolved spec to dir/spec.yaml.
func WriteSpec(dir string, sp *spec.Spec) error {
	b, err := sp.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, spec.SpecFile), b, 0o644)
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
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// maxResultError bounds the error text a failed trial records.
const maxResultError = 4 * clip.Msg

// job is a trial handed to a worker, with its dataset.
type job struct {
	t  *spec.Trial
	ld *loadedData
}

type loadedData struct {
	spec   *spec.DatasetSpec
	data   *datasets.Dataset
	err    error // why data could not be loaded (a *MemoryError), failing its trials
	idOnce sync.Once
	hash   string
}

type executor struct {
	spec *spec.Spec
	dir  string
	env  datasets.Env
	fits *fitCache
	// applied holds the data a pool-fitted transform produced, by the
	// key of its fit: the trials of one pool (kfold's repeats with
	// refold: false, the methods of a fold) project it once.
	applied *lruCache[*datasets.Dataset]
	// shared holds the values trials share by key (TrialRun.Share): the
	// active protocol's full-pool scores (param full) by pool and
	// method, one fit per fold, not per repeat.
	shared   *lruCache[any]
	memLimit int64      // bytes a fit may need; ≤ 0: no check
	budget   *memBudget // memLimit shared by the trials running at once; nil without a limit
	// idle holds a token for each worker that has no trial left to
	// start; a running trial may borrow one to fit a fold at once with
	// its others (borrow), so that the last trials of a run keep every
	// worker busy.
	idle chan struct{}
}

// borrow takes an idle worker's token, and need bytes of the memory
// budget for the work it will run, if both are free now; giveBack
// returns them.
func (x *executor) borrow(need int64) bool {
	if x == nil || x.idle == nil {
		return false
	}
	select {
	case <-x.idle:
	default:
		return false
	}
	if x.budget != nil && !x.budget.tryAcquire(need) {
		x.idle <- struct{}{}
		return false
	}
	return true
}

// giveBack returns what borrow(need) took.
func (x *executor) giveBack(need int64) {
	if x.budget != nil {
		x.budget.release(need)
	}
	x.idle <- struct{}{}
}

// execute runs one trial and returns its result; it never panics. If
// after is not nil, the result is complete once after has returned: the
// trial waits there for work another trial is doing.
func (x *executor) execute(ctx context.Context, t *spec.Trial, ld *loadedData) (res *results.Result, after func()) {
	sp := x.spec
	res = &results.Result{
		Key: t.Key, Dataset: t.Dataset.ID, Method: t.Method.Label, Plugin: t.Method.Name,
		Trial: t.Index, Variant: t.Variant(),
	}
	res.Seeds.Sample = splitAt(sp.Seed, t.Dataset, t.Index).Sample
	res.Seeds.Method = spec.Derive(sp.Seed, "method", t.Dataset.ID, t.SeedName(), param.Format(t.Size), itoa(t.Index))
	defer func() {
		if p := recover(); p != nil {
			res.Metrics, res.Extras, res.Observations, res.Bootstrap = nil, nil, nil, nil
			res.Error = fmt.Sprintf("panic: %v\n%s", p, trimStack(debug.Stack()))
		}
	}()
	fail := func(err error) {
		res.Error = clip.Text(err.Error(), maxResultError)
		res.Metrics, res.Extras, res.Observations, res.Bootstrap = nil, nil, nil, nil
	}
	then, err := x.run(ctx, t, ld, res)
	if err != nil {
		fail(err)
		return res, nil
	}
	if then != nil {
		after = func() {
			if err := then(); err != nil {
				fail(err)
			}
		}
	}
	return res, after
}

func trimStack(b []byte) string {
	lines := strings.Split(string(b), "\n")
	if len(lines) > 24 {
		lines = lines[:24]
	}
	return strings.Join(lines, "\n")
}

// run splits the dataset for the trial, fits the pool's transforms and
// hands the trial to its protocol. A non-nil after completes res once the
// work the trial waits for (TrialRun.After) is done.
func (x *executor) run(ctx context.Context, t *spec.Trial, ld *loadedData, res *results.Result) (after func() error, err error) {
	if ld == nil {
		return nil, fmt.Errorf("dataset %q not loaded", t.Dataset.ID)
	}
	if ld.err != nil {
		return nil, ld.err
	}
	d := ld.data
	splitter, err := LookupSplitter(t.Dataset.Split.KindName())
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", t.Dataset.ID, err)
	}
	at := splitAt(x.spec.Seed, t.Dataset, t.Index)
	part, err := splitter.Split(d, t.Dataset.Split.Params, at)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: split: %w", t.Dataset.ID, err)
	}
	id := ""
	for _, ts := range t.Dataset.Transforms {
		if ts.Fit != spec.FitPool {
			continue
		}
		if id == "" {
			id = ld.id()
		}
		f, key, err := x.fitted(ctx, d, id, part.Pool, ts)
		if err != nil {
			return nil, err
		}
		// The output is determined by the fit's key (the content and
		// rows it was fitted on) and the input, the whole dataset that
		// content identifies: the trials of one pool share it.
		in := d
		if d, err = x.applied.get(key, func() (*datasets.Dataset, error) { return applyFitted(f, in, ts) }); err != nil {
			return nil, err
		}
		id = key
	}
	proto, err := LookupProtocol(x.spec.Protocol.ProtocolName())
	if err != nil {
		return nil, err
	}
	tr := &TrialRun{Trial: t, Spec: x.spec, Data: d, Part: part, Seeds: res.Seeds, Result: res, x: x, dataID: id, ld: ld}
	defer tr.releaseMemory()
	obs, err := proto.Run(ctx, tr, x.spec.ProtocolParams(t.Method))
	if err != nil {
		return nil, err
	}
	switch {
	case len(obs) == 0:
		return nil, fmt.Errorf("protocol %s yielded no observation", x.spec.Protocol.ProtocolName())
	case proto.PerSize && len(obs) == 1:
		res.Metrics, res.Extras, res.Bootstrap = obs[0].Metrics, obs[0].Extras, obs[0].Bootstrap
	default:
		res.Observations = obs
		last := obs[len(obs)-1]
		res.Metrics, res.Extras = last.Metrics, last.Extras
	}
	return tr.after, nil
}

func (x *executor) saveArtifacts(model methods.Model, res *results.Result) error {
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
