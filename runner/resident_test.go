package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// residentLoads counts the loads of each fake-resident dataset by tag.
var residentLoads struct {
	sync.Mutex
	n map[string]int
}

func init() {
	datasets.Register("fake-resident", &datasets.Loader{
		Doc: "blobs carrying pad bytes of documents, counting its loads (test fixture)",
		Params: []param.Decl{
			{Name: "tag", Type: param.String, Default: "", Doc: "name under which the loads are counted"},
			{Name: "pad", Type: param.Int, Default: 0, Min: param.Bound(0), Doc: "bytes of document text"},
			{Name: "n", Type: param.Int, Default: 60, Min: param.Bound(4), Doc: "rows"},
			{Name: "fail", Type: param.Bool, Default: false, Doc: "fail to load"},
		},
		Load: func(ctx context.Context, env datasets.Env, p param.Values) (*datasets.Dataset, error) {
			residentLoads.Lock()
			if residentLoads.n == nil {
				residentLoads.n = map[string]int{}
			}
			residentLoads.n[p.String("tag")]++
			residentLoads.Unlock()
			if p.Bool("fail") {
				return nil, errors.New("broken on purpose")
			}
			blobs, _ := datasets.Lookup("fake-blobs")
			d, err := blobs.Load(ctx, env, param.Values{"n": p.Int("n"), "d": 2, "classes": 2, "spread": 1.0, "given": false})
			if err != nil {
				return nil, err
			}
			d.Text = make([]string, d.Rows())
			for i := range d.Text {
				d.Text[i] = strings.Repeat("x", p.Int("pad")/d.Rows())
			}
			return d, nil
		},
	})
}

// residentPad is the text each fake-resident dataset carries: far more
// than its matrix and than a fit of fake-centroid on it needs (about
// 300 KB by the default estimate), so that a limit of 1.5 × residentPad
// holds one dataset and its fits, not two datasets.
const residentPad = 2 << 20

// residentSpec returns a spec of n fake-resident datasets, each with
// trials of two grid points at two sizes.
func residentSpec(n int) *spec.Spec {
	s := blobsSpec()
	s.Datasets = nil
	for i := range n {
		id := string(rune('a' + i))
		s.Datasets = append(s.Datasets, spec.DatasetSpec{Name: "fake-resident", ID: id,
			Params: param.Values{"tag": id, "pad": residentPad, "n": 60, "fail": false},
			Split:  spec.Split{Kind: "holdout", Params: param.Values{"test": 0.25, "stratify": true}}})
	}
	s.Methods = s.Methods[:1]
	s.Curve = spec.Curve{Sizes: []float64{10, 20}, Trials: 2, Sampling: "balanced"}
	return s
}

// lifecycle records the residentTrace events of a run.
type lifecycle struct {
	mu     sync.Mutex
	events [][2]string // event, dataset id
}

func traceResidents(t *testing.T) *lifecycle {
	l := &lifecycle{}
	residentTrace = func(event, id string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.events = append(l.events, [2]string{event, id})
	}
	residentLoads.Lock()
	residentLoads.n = map[string]int{}
	residentLoads.Unlock()
	t.Cleanup(func() { residentTrace = nil })
	return l
}

// check checks that each dataset's trials end only while it is loaded,
// that it is released after its last trial ended, and returns the most
// datasets loaded at once.
func (l *lifecycle) check(t *testing.T) (peak int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	loaded := map[string]bool{}
	n := 0
	for k, e := range l.events {
		switch e[0] {
		case "load":
			if loaded[e[1]] {
				t.Fatalf("event %d: %s loads while loaded", k, e[1])
			}
			loaded[e[1]] = true
			n++
			peak = max(peak, n)
		case "release":
			if !loaded[e[1]] {
				t.Fatalf("event %d: %s released while not loaded", k, e[1])
			}
			loaded[e[1]] = false
			n--
		case "end":
			if !loaded[e[1]] {
				t.Fatalf("event %d: a trial of %s ended while its data was not loaded", k, e[1])
			}
		}
	}
	if n != 0 {
		t.Fatalf("%d datasets still loaded after the run: %v", n, loaded)
	}
	// Released after the last trial: no release between a dataset's
	// last load and its last trial's end.
	for id := range loaded {
		lastEnd, lastLoad := -1, -1
		for k, e := range l.events {
			switch {
			case e[1] == id && e[0] == "end":
				lastEnd = k
			case e[1] == id && e[0] == "load":
				lastLoad = k
			}
		}
		for k := lastLoad + 1; k < lastEnd; k++ {
			if e := l.events[k]; e[1] == id && e[0] == "release" {
				t.Errorf("%s released (event %d) before its last trial ended (event %d)", id, k, lastEnd)
			}
		}
	}
	return peak
}

// TestRunResidentDatasets checks a dataset's lifecycle in a run: loaded
// before its first trial, released after its last; under a limit that
// holds one dataset and its fits, one dataset is loaded at a time, each
// once; under a loose one all three are at once; the results are the same.
func TestRunResidentDatasets(t *testing.T) {
	var want []results.Result
	for _, c := range []struct {
		limit    int64
		workers  int
		wantPeak int
	}{
		{residentPad * 3 / 2, 1, 1},
		{residentPad * 3 / 2, 2, 1},
		{0, 1, 3},
		{0, 2, 3},
		{NoMemLimit, 2, 3},
	} {
		t.Run(fmt.Sprintf("limit=%d,j=%d", c.limit, c.workers), func(t *testing.T) {
			l := traceResidents(t)
			dir := t.TempDir()
			sum, err := Run(context.Background(), residentSpec(3), Options{Dir: dir, Workers: c.workers, MemLimit: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Failed != 0 || len(sum.Results) != 24 {
				t.Fatalf("%d results, %d failed; want 24 (3 datasets × 2 grid points × 2 sizes × 2 trials)", len(sum.Results), sum.Failed)
			}
			if peak := l.check(t); peak != c.wantPeak {
				t.Errorf("%d datasets loaded at once, want %d", peak, c.wantPeak)
			}
			residentLoads.Lock()
			loads := fmt.Sprint(residentLoads.n)
			residentLoads.Unlock()
			if loads != "map[a:1 b:1 c:1]" {
				t.Errorf("loads %s, want each dataset once", loads)
			}
			infos, err := results.ReadDatasetInfo(dir)
			if err != nil || len(infos) != 3 {
				t.Errorf("datasets.json: %v, %v; want the 3 datasets", infos, err)
			}
			if want == nil {
				want = strip(sum.Results)
			} else if !reflect.DeepEqual(strip(sum.Results), want) {
				t.Error("results differ from the first run's")
			}
		})
	}
}

// TestRunResidentCancelled checks that a run cancelled under a tight
// limit releases every dataset, and that resuming it loads again those
// with trials left (not the finished ones) and completes it with the
// results of an uninterrupted run.
func TestRunResidentCancelled(t *testing.T) {
	traceResidents(t)
	full, err := Run(context.Background(), residentSpec(3), Options{Dir: t.TempDir(), Workers: 2, MemLimit: residentPad * 3 / 2})
	if err != nil {
		t.Fatal(err)
	}

	l := traceResidents(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Run(ctx, residentSpec(3), Options{Dir: dir, Workers: 2, MemLimit: residentPad * 3 / 2, Progress: &cancelAfter{n: 10, cancel: cancel}})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Ran < 10 || sum.Ran >= 24 {
		t.Fatalf("interrupted=%v ran=%d; want interrupted after 10 of 24", sum.Interrupted, sum.Ran)
	}
	if peak := l.check(t); peak != 1 {
		t.Errorf("%d datasets loaded at once, want 1", peak)
	}

	l = traceResidents(t)
	sum, err = Run(context.Background(), residentSpec(3), Options{Dir: dir, Workers: 2, MemLimit: residentPad * 3 / 2})
	if err != nil {
		t.Fatal(err)
	}
	l.check(t)
	residentLoads.Lock()
	loads := residentLoads.n
	residentLoads.Unlock()
	if loads["a"] != 0 || loads["c"] != 1 {
		t.Errorf("resumed run loaded %v; want c (trials left) and not a (finished after 10 trials)", loads)
	}
	if !reflect.DeepEqual(strip(sum.Results), strip(full.Results)) {
		t.Error("the resumed run's results differ from an uninterrupted run's")
	}
}

// TestRunResidentDataErrors checks that a dataset loaded after the first
// trials (under a limit that holds one dataset) that does not load, or
// fails the data check, stops the run with the error a run checking every
// dataset before its first trial gives, and that the trials of the
// datasets before it are stored.
func TestRunResidentDataErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		params param.Values
		want   string
	}{
		{"load", param.Values{"fail": true}, "broken on purpose"},
		{"check", param.Values{"n": 16}, "training size 20"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sp := residentSpec(2)
			for k, v := range c.params {
				sp.Datasets[1].Params[k] = v
			}
			_, loose := Run(context.Background(), sp, Options{Dir: t.TempDir(), Workers: 2})
			l := traceResidents(t)
			dir := t.TempDir()
			_, tight := Run(context.Background(), sp, Options{Dir: dir, Workers: 2, MemLimit: residentPad * 3 / 2})
			if loose == nil || tight == nil || !strings.Contains(tight.Error(), c.want) {
				t.Fatalf("errors %v and %v; want both to say %q", loose, tight, c.want)
			}
			t.Log(tight)
			if loose.Error() != tight.Error() {
				t.Errorf("error %q, want %q as when checked before the first trial", tight, loose)
			}
			l.check(t)
			recs, _, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
			if err != nil || len(recs) != 8 {
				t.Errorf("%d results stored (%v), want the 8 trials of dataset a", len(recs), err)
			}
		})
	}
}

// TestResidentsOrder checks the order residents hands out trials whose
// datasets alternate in the plan: the plan's under a loose limit, dataset
// by dataset under one that holds a single dataset.
func TestResidentsOrder(t *testing.T) {
	sp := residentSpec(2)
	sp.Curve = spec.Curve{Sizes: []float64{10}, Trials: 2, Sampling: "balanced"}
	sp.Methods[0].Grid = sp.Methods[0].Grid[:1]
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Trials) != 4 {
		t.Fatalf("%d trials, want 4", len(plan.Trials))
	}
	tr := plan.Trials
	pending := []*spec.Trial{tr[0], tr[2], tr[1], tr[3]} // a, b, a, b
	for _, c := range []struct {
		limit int64
		want  string
	}{
		{100 << 20, "a b a b"},
		{residentPad * 3 / 2, "a a b b"},
	} {
		l := traceResidents(t)
		ctx := context.Background()
		p := newResidents(sp, datasets.Env{}, pending, false, c.limit, newMemBudget(c.limit), 1, t.TempDir(), map[string]results.DatasetInfo{})
		if err := p.start(ctx); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			trial, ld, ok := p.next(ctx)
			if !ok {
				break
			}
			if ld == nil || ld.data == nil {
				t.Fatalf("trial of %s handed out without its data", trial.Dataset.ID)
			}
			got = append(got, trial.Dataset.ID)
			p.ended(trial)
		}
		if err := p.close(); err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("limit %d: order %s, want %s", c.limit, s, c.want)
		}
		l.check(t)
	}
}

// TestRunCollectsData checks that the datasets of a run are collected by
// the time Run returns: the caller's next work (the reports) reuses their
// memory instead of stacking on a heap still holding them (issue 41).
func TestRunCollectsData(t *testing.T) {
	const pad = 32 << 20
	sp := residentSpec(1)
	sp.Datasets[0].Params["pad"] = pad
	heap := func() uint64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	before := heap()
	sum, err := Run(context.Background(), sp, Options{Dir: t.TempDir(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	after := heap()
	if sum.Failed > 0 || sum.Ran == 0 {
		t.Fatalf("%d trials ran, %d failed; want all to run", sum.Ran, sum.Failed)
	}
	// The dataset's documents (pad bytes) left as garbage would still be
	// counted until the next collection.
	if after > before+pad/4 {
		t.Errorf("heap objects %d MB after Run, %d MB before: the run's %d MB dataset is not collected", after>>20, before>>20, pad>>20)
	}
}
