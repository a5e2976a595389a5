package runner

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/clip"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// A run's datasets are resident only while its trials need them: a
// dataset loads (and runs its corpus-level transforms) before its first
// trial starts and is released when its last trial has ended. While it is
// resident it holds its estimate (residentCharge) in the run's memory
// budget, the one its fits share: a dataset loads only when its estimate
// fits beside the datasets already resident and the fits running, or when
// no other is resident. Until then the trials of the resident datasets
// run first, in plan order, and release them: under a tight limit the
// plan runs dataset by dataset; under a loose one, in its own order.
//
// Before any trial starts, the datasets whose estimates fit at once load,
// at most one per worker at a time, and are checked together (checkLoaded)
// as the run always checked its data; a dataset that loads later is
// checked when it loads, and a problem then stops the run with the same
// error. The size of a dataset is known only once it has loaded: under a
// limit, a dataset not loaded before in this run loads alone (one loaded
// before, with its size known, beside others), and is assumed as large as
// the largest so far when the budget decides whether it may load; when
// the datasets loaded before the first trial hold more than the limit,
// the last to be used are released again, to load when their turn comes.
// Without a limit the datasets load at once, one per worker.

// residentGC is the size of a released dataset above which the executor's
// caches are emptied and the memory returned to the system at once
// (debug.FreeOSMemory), so that the next dataset loads into a collected
// heap rather than beside the garbage of the last.
const residentGC = 64 << 20

// trialGC is the size of a dataset above which the garbage of a trial's
// fit is collected and the free memory returned to the system before the
// trial predicts (TrialRun.collectFit).
const trialGC = 8 << 20

// residentTrace, if set (by tests), is told of each dataset's load,
// release and trial end, in the order they happen.
var residentTrace func(event, id string)

// residents loads the datasets of a run's pending trials, hands out the
// trials in an order their data allows and releases each dataset after
// its last trial.
type residents struct {
	spec     *spec.Spec
	env      datasets.Env
	memLimit int64
	budget   *memBudget // nil without a limit: datasets load as the workers allow
	maxLoads int        // datasets loading at once
	dir      string     // where datasets.json is written
	// stop ends the run when a dataset loaded after the first trial
	// fails (its error is err).
	stop func()
	// purge empties the executor's caches of fitted transforms and
	// their outputs when a large dataset is released.
	purge func()

	mu      sync.Mutex
	sets    []*resident // by index in spec.Datasets
	order   []*resident // by first use: the plan position of their first pending trial
	loading int
	largest int64 // the largest charge measured so far; 0 before any
	startup bool  // loading the datasets checked before any trial
	infos   map[string]results.DatasetInfo
	loaded  bool  // some dataset loaded in this run
	err     error // the first problem of a dataset loaded after the first trial
	wake    chan struct{}
	loads   sync.WaitGroup
}

// resident is one dataset entry of the run.
type resident struct {
	spec  *spec.DatasetSpec
	index int
	// queue holds the trials not yet handed out, in plan order; pos
	// their positions in the plan's pending trials.
	queue   []*spec.Trial
	pos     []int
	running int  // trials handed out and not ended
	info    bool // loads for datasets.json though no trial uses it (rebuild)
	state   residentState
	ld      *loadedData
	charge  int64 // bytes held in the budget: the guess while loading
	size    int64 // the charge measured when it last loaded; 0 before
	err     error // why it did not load, before the first trial
	facts   *datasets.Dataset
}

type residentState int

const (
	absent residentState = iota
	loading
	ready
)

// needed reports whether a trial or datasets.json still needs r's data.
func (r *resident) needed() bool { return len(r.queue) > 0 || r.running > 0 || r.info }

func newResidents(sp *spec.Spec, env datasets.Env, pending []*spec.Trial, all bool, memLimit int64, budget *memBudget, workers int, dir string, infos map[string]results.DatasetInfo) *residents {
	p := &residents{spec: sp, env: env, memLimit: memLimit, budget: budget, maxLoads: max(workers, 1), dir: dir,
		infos: infos, wake: make(chan struct{}, 1), stop: func() {}, purge: func() {}}
	byID := map[*spec.DatasetSpec]*resident{}
	for i := range sp.Datasets {
		r := &resident{spec: &sp.Datasets[i], index: i}
		p.sets = append(p.sets, r)
		byID[r.spec] = r
	}
	for k, t := range pending {
		r := byID[t.Dataset]
		if r == nil {
			continue // not one of spec's entries: the trial fails ("not loaded")
		}
		if len(r.queue) == 0 {
			p.order = append(p.order, r)
		}
		r.queue, r.pos = append(r.queue, t), append(r.pos, k)
	}
	if all {
		// Datasets no trial uses load last, for datasets.json only.
		for _, r := range p.sets {
			if len(r.queue) == 0 {
				r.info = true
				p.order = append(p.order, r)
			}
		}
	}
	return p
}

func (p *residents) trace(event, id string) {
	if residentTrace != nil {
		residentTrace(event, id)
	}
}

// signal wakes the goroutine waiting for a dataset to load or be
// released.
func (p *residents) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// start loads the datasets the memory budget admits before any trial
// runs, checks them against spec and writes datasets.json. Its error is
// the run's: the first dataset in spec order that did not load, or every
// problem the check found. A cancelled ctx is no error: the trials then do
// not start.
func (p *residents) start(ctx context.Context) error {
	p.mu.Lock()
	p.startup = true
	done := ctx.Done()
	for {
		p.startLoadsLocked(ctx)
		if p.loading == 0 {
			break
		}
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-done:
			done = nil // the loads under way end: wait for them
		}
		p.mu.Lock()
	}
	p.startup = false
	loaded := map[string]*loadedData{}
	for _, r := range p.sets {
		if r.err != nil {
			err := r.err
			p.mu.Unlock()
			return &DataError{clip.Error(dataError(p.spec, r.index, err))}
		}
		if r.state == ready {
			loaded[r.spec.ID] = r.ld
		}
	}
	// What the spec asks of the data is checked before any trial runs.
	if err := checkLoaded(p.spec, loaded); err != nil {
		p.mu.Unlock()
		return err
	}
	if len(loaded) > 0 {
		if err := writeJSON(filepath.Join(p.dir, results.DatasetsFile), p.infos); err != nil {
			p.mu.Unlock()
			return err
		}
	}
	var held []int64
	for _, r := range p.sets {
		r.info = false
		if r.state == ready && !r.needed() {
			held = append(held, p.dropLocked(r))
		}
	}
	// Guessed sizes may have admitted more than the limit holds: the
	// datasets used last wait for their turn.
	if p.budget != nil {
		over := p.budget.over()
		for _, n := range held {
			over -= n
		}
		for k := len(p.order) - 1; k > 0 && over > 0; k-- {
			if r := p.order[k]; r.state == ready && r.charge > 0 {
				over -= r.charge
				held = append(held, p.dropLocked(r))
			}
		}
	}
	p.mu.Unlock()
	for _, n := range held {
		p.settle(n)
	}
	if len(loaded) > 0 {
		// What loading left (read buffers, the parsers' and the
		// check's work) is collected before the first trial, whose
		// fits then reuse its memory rather than grow the heap beside
		// it. (Returning it to the system as well, FreeOSMemory,
		// measured worse: 50.5 against 47.9 MB peak on the 20
		// Newsgroups LIBSVM file, issue 41.)
		runtime.GC()
	}
	return nil
}

// startLoadsLocked starts loading, in order of first use, the datasets
// needed next that the budget admits, at most maxLoads at a time; p.mu
// is held.
func (p *residents) startLoadsLocked(ctx context.Context) {
	if ctx.Err() != nil || p.err != nil {
		return
	}
	for _, r := range p.order {
		if r.state != absent || r.err != nil || (len(r.queue) == 0 && !r.info) {
			continue
		}
		if p.loading >= p.maxLoads {
			return
		}
		guess := r.size
		if guess == 0 {
			guess = p.largest
		}
		if p.budget != nil {
			// A size not known yet may be any: such a dataset
			// loads alone, and what it measures decides the next.
			if r.size == 0 && p.loading > 0 {
				return
			}
			if !p.budget.admitData(guess) {
				return // the first in line waits: no dataset overtakes it
			}
		}
		r.state, r.charge = loading, guess
		p.loading++
		p.trace("load", r.spec.ID)
		p.loads.Add(1)
		go p.load(ctx, r)
	}
}

// load loads r's dataset and makes it resident.
func (p *residents) load(ctx context.Context, r *resident) {
	defer p.loads.Done()
	var d *datasets.Dataset
	err := loadMemory(p.env, r.spec, p.memLimit)
	if err == nil {
		d, err = loadDatasetIn(ctx, p.env, r.spec, p.memLimit, p.budget)
	}
	p.mu.Lock()
	held := p.loadedLocked(ctx, r, d, err)
	p.mu.Unlock()
	if held >= 0 {
		p.settle(held)
	}
	p.signal()
}

// loadedLocked makes d, or r's load error err, r's; p.mu is held. A
// dataset no trial needs (loaded for datasets.json) is released at once,
// the bytes it held returned for settle; -1 otherwise.
func (p *residents) loadedLocked(ctx context.Context, r *resident, d *datasets.Dataset, err error) (held int64) {
	p.loading--
	var mem *MemoryError
	switch {
	case err != nil && ctx.Err() != nil:
		// Cancelled: neither loaded nor a problem.
		p.unchargeLocked(r)
		r.state = absent
		p.trace("release", r.spec.ID)
		return -1
	case errors.As(err, &mem):
		// A transform refused for its memory fails the dataset's
		// trials, not the run.
		p.unchargeLocked(r)
		r.ld, r.state = &loadedData{spec: r.spec, err: err}, ready
		return -1
	case err != nil:
		p.unchargeLocked(r)
		r.state = absent
		p.trace("release", r.spec.ID)
		if p.startup {
			r.err = err
		} else {
			p.failLocked(&DataError{clip.Error(dataError(p.spec, r.index, err))})
		}
		return -1
	}
	size := residentCharge(r.spec, d)
	if p.budget != nil {
		p.budget.addData(size - r.charge)
	}
	r.charge, r.size = size, size
	p.largest = max(p.largest, size)
	p.loaded = true
	r.ld, r.state = &loadedData{spec: r.spec, data: d}, ready
	r.facts = factsOf(d)
	info := infoOf(r.spec, d)
	changed := !reflect.DeepEqual(p.infos[r.spec.ID], info)
	p.infos[r.spec.ID] = info
	if p.startup {
		return -1 // checked with the others before the first trial
	}
	if errs := append(checkDataset(p.spec, r.index, d), p.sameRowsLocked(r)...); len(errs) > 0 {
		p.failLocked(spec.JoinErrors(errs))
		return -1
	}
	if changed {
		if err := writeJSON(filepath.Join(p.dir, results.DatasetsFile), p.infos); err != nil {
			p.failLocked(err)
			return -1
		}
	}
	r.info = false
	if !r.needed() {
		return p.dropLocked(r)
	}
	return -1
}

// sameRowsLocked checks the entries sharing samples with r (samples_of)
// against the facts of those loaded so far; p.mu is held.
func (p *residents) sameRowsLocked(r *resident) []spec.FieldError {
	return checkSameRows(p.spec, func(i int) *datasets.Dataset {
		if s := p.sets[i]; s == r || s.spec.SamplesOf == r.spec.ID || r.spec.SamplesOf == s.spec.ID {
			return s.facts
		}
		return nil
	})
}

// factsOf returns what checkSameRows compares of d, without its matrix:
// the rows, labels and given split, kept after d is released.
func factsOf(d *datasets.Dataset) *datasets.Dataset {
	return &datasets.Dataset{X: matrix.NewDense(d.Rows(), 0, nil), Y: d.Y, Classes: d.Classes, Split: d.Split}
}

// failLocked records the run's first dataset problem and stops the run;
// p.mu is held.
func (p *residents) failLocked(err error) {
	if p.err == nil {
		p.err = err
		p.stop()
	}
}

// unchargeLocked gives back the budget r holds; p.mu is held.
func (p *residents) unchargeLocked(r *resident) {
	if p.budget != nil {
		p.budget.addData(-r.charge)
	}
	r.charge = 0
}

// next returns the next trial to run and its data, waiting for a dataset
// to load if none needed is resident: the first pending trial in plan
// order whose dataset is resident. It reports false when no trial is left,
// ctx is done or a dataset failed. The trial counts as running until
// ended.
func (p *residents) next(ctx context.Context) (*spec.Trial, *loadedData, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.err != nil || ctx.Err() != nil {
			return nil, nil, false
		}
		p.startLoadsLocked(ctx)
		var best *resident
		left := false
		for _, r := range p.order {
			if len(r.queue) == 0 {
				continue
			}
			left = true
			if r.state == ready && (best == nil || r.pos[0] < best.pos[0]) {
				best = r
			}
		}
		if best != nil {
			t := best.queue[0]
			best.queue, best.pos = best.queue[1:], best.pos[1:]
			best.running++
			return t, best.ld, true
		}
		if !left {
			return nil, nil, false
		}
		p.mu.Unlock()
		select {
		case <-p.wake:
		case <-ctx.Done():
		}
		p.mu.Lock()
	}
}

// ended tells p that trial t, handed out by next, has ended (finished,
// failed or cancelled): after the last trial of its dataset, the dataset
// is released.
func (p *residents) ended(t *spec.Trial) {
	p.mu.Lock()
	held := int64(-1)
	for _, r := range p.sets {
		if r.spec != t.Dataset {
			continue
		}
		p.trace("end", r.spec.ID)
		r.running--
		if r.state == ready && !r.needed() {
			held = p.dropLocked(r)
		}
	}
	p.mu.Unlock()
	if held >= 0 {
		p.settle(held)
	}
	p.signal()
}

// dropLocked releases r's data and returns the bytes it held in the
// budget, for settle to give back; p.mu is held.
func (p *residents) dropLocked(r *resident) int64 {
	held := r.charge
	r.ld, r.charge, r.state = nil, 0, absent
	p.trace("release", r.spec.ID)
	return held
}

// settle gives back the held bytes of a released dataset, once the
// memory of a large one has been collected.
func (p *residents) settle(held int64) {
	if held >= residentGC {
		p.purge()
		debug.FreeOSMemory()
	}
	if p.budget != nil {
		p.budget.addData(-held)
	}
	p.signal()
}

// close waits for the loads under way (ctx is done or no trial needs
// them) and releases every dataset still resident. It returns the first
// problem of a dataset loaded after the first trial.
//
// When a dataset was loaded, the released datasets, models and caches
// are collected and their memory returned to the system (after the
// executor's caches are emptied, debug.FreeOSMemory): what the caller
// does next (the reports) then works in memory of its own size, not in
// new pages on top of a heap still holding the run's garbage.
func (p *residents) close() error {
	p.loads.Wait()
	p.mu.Lock()
	var held int64
	for _, r := range p.sets {
		if r.state == ready {
			held += p.dropLocked(r)
		}
	}
	err, loaded := p.err, p.loaded
	p.loaded = false // a second close (deferred) collects nothing new
	p.mu.Unlock()
	if p.budget != nil {
		p.budget.addData(-held)
	}
	if loaded {
		p.purge()
		debug.FreeOSMemory()
	}
	return err
}

// purge removes the values computed so far; those being computed stay,
// for the callers waiting on them.
func (c *lruCache[V]) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, e := range c.m {
		select {
		case <-e.done:
			c.order.Remove(e.elem)
			delete(c.m, key)
		default:
		}
	}
}

// DataError is a dataset of the spec that could not be loaded for a run:
// a data file missing, unreadable or not what the spec says it is. Run
// returns it (wrapping a *spec.SpecError where a param is to blame), so
// that a command can tell the data's fault from the machine's.
type DataError struct{ Err error }

func (e *DataError) Error() string { return e.Err.Error() }
func (e *DataError) Unwrap() error { return e.Err }
