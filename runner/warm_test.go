package runner

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// warmLog records, for each fit of fake-warm, the grid points fitted
// before it with the same env.Warm ("cold" when Warm is nil).
var warmLog struct {
	sync.Mutex
	seen []string
}

type warmMethod struct {
	p float64
	centroid
}

func (m *warmMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	entry := "cold"
	if env.Warm != nil {
		before, _ := methods.Load[[]float64](env.Warm, "fake-warm")
		entry = fmt.Sprint(before)
		methods.Store(env.Warm, "fake-warm", append(before[:len(before):len(before)], m.p))
	}
	warmLog.Lock()
	warmLog.seen = append(warmLog.seen, entry)
	warmLog.Unlock()
	return m.centroid.Fit(ctx, train, env)
}

func init() {
	methods.Register("fake-warm", &methods.Plugin{
		Doc:    "nearest centroid that logs the warm starts it is offered (test fixture)",
		Kinds:  methods.Classification,
		Params: []param.Decl{{Name: "p", Type: param.Float, Default: 1.0, Doc: "a grid point"}},
		New:    func(p param.Values) (methods.Method, error) { return &warmMethod{p: p.Float("p")}, nil },
	})
}

// TestCVWarmStartsInGridOrder: the fits of a cv select rule on one fold
// share a Warm and run in grid order, each fold its own; the final fit
// gets the trial's (empty in a curve trial: nothing was fitted before it)
// and one-vs-rest tasks none.
func TestCVWarmStartsInGridOrder(t *testing.T) {
	for _, tasks := range []bool{false, true} {
		warmLog.Lock()
		warmLog.seen = nil
		warmLog.Unlock()
		sp := blobsSpec()
		sp.Methods = []spec.MethodSpec{method("fake-warm", "warm", "cv", []string{"p"}, []any{1.0, 2.0, 3.0})}
		sp.Methods[0].Select.Folds = 3
		if tasks {
			sp.Datasets[0].Tasks = "one-vs-rest"
		}
		sp.Curve = spec.Curve{Sizes: []float64{30}, Trials: 1, Sampling: "balanced"}
		sum := runSpec(t, sp, t.TempDir(), 2, nil)
		if sum.Failed != 0 {
			t.Fatalf("tasks %v: %d failed: %v", tasks, sum.Failed, sum.Results[0].Error)
		}
		got := append([]string(nil), warmLog.seen...)
		sort.Strings(got)
		// The final fit gets the trial's own Warm, empty in a curve trial.
		want := []string{"[1 2]", "[1 2]", "[1 2]", "[1]", "[1]", "[1]", "[]", "[]", "[]", "[]"}
		if tasks {
			want = make([]string, 10*3) // three classes, each task cold
			for i := range want {
				want[i] = "cold"
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tasks %v: warm starts offered %v, want %v", tasks, got, want)
		}
	}
}

// concurrent counts the fake-slow fits running at once.
var concurrent struct {
	sync.Mutex
	now, most int
}

type slowMethod struct{ centroid }

func (m *slowMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	concurrent.Lock()
	concurrent.now++
	concurrent.most = max(concurrent.most, concurrent.now)
	concurrent.Unlock()
	time.Sleep(30 * time.Millisecond)
	concurrent.Lock()
	concurrent.now--
	concurrent.Unlock()
	return m.centroid.Fit(ctx, train, env)
}

func init() {
	methods.Register("fake-slow", &methods.Plugin{
		Doc:    "nearest centroid that takes 30 ms per fit (test fixture)",
		Kinds:  methods.Classification,
		Params: []param.Decl{{Name: "p", Type: param.Float, Default: 1.0, Doc: "a grid point"}},
		New:    func(p param.Values) (methods.Method, error) { return &slowMethod{}, nil },
	})
}

// TestCVFoldsUseIdleWorkers: a run of one trial at -j 3 fits its three
// cv folds at once on the workers that have no trial; at -j 1 one fit at
// a time; the results are the same.
func TestCVFoldsUseIdleWorkers(t *testing.T) {
	var recs [][]results.Result
	for _, tc := range []struct{ workers, most int }{{1, 1}, {3, 3}} {
		concurrent.Lock()
		concurrent.most = 0
		concurrent.Unlock()
		sp := blobsSpec()
		sp.Methods = []spec.MethodSpec{method("fake-slow", "slow", "cv", []string{"p"}, []any{1.0, 2.0})}
		sp.Methods[0].Select.Folds = 3
		sp.Curve = spec.Curve{Sizes: []float64{30}, Trials: 1, Sampling: "balanced"}
		sum := runSpec(t, sp, t.TempDir(), tc.workers, nil)
		if sum.Failed != 0 {
			t.Fatalf("-j %d: %d failed", tc.workers, sum.Failed)
		}
		if concurrent.most != tc.most {
			t.Errorf("-j %d: at most %d fits at once, want %d", tc.workers, concurrent.most, tc.most)
		}
		recs = append(recs, strip(sum.Results))
	}
	if !reflect.DeepEqual(recs[0], recs[1]) {
		t.Error("-j 1 and -j 3 gave different results")
	}
}

// memoLog records, at each fit of fake-memo, how many of the memos seen so
// far hold a value.
var memoLog struct {
	sync.Mutex
	seen []*methods.Memo
	most int
}

type memoMethod struct{ centroid }

func (m *memoMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if _, err := methods.Remember(env, methods.Key{Op: "fake-memo"}, func() ([]float64, error) { return make([]float64, 8), nil }); err != nil {
		return nil, err
	}
	memoLog.Lock()
	if !slices.Contains(memoLog.seen, env.Memo) {
		memoLog.seen = append(memoLog.seen, env.Memo)
	}
	held := 0
	for _, mm := range memoLog.seen {
		if mm.Len() > 0 {
			held++
		}
	}
	memoLog.most = max(memoLog.most, held)
	memoLog.Unlock()
	return m.centroid.Fit(ctx, train, env)
}

func init() {
	methods.Register("fake-memo", &methods.Plugin{
		Doc:    "nearest centroid that keeps a value in its memo (test fixture)",
		Kinds:  methods.Classification,
		Params: []param.Decl{{Name: "p", Type: param.Float, Default: 1.0, Doc: "a grid point"}},
		New:    func(p param.Values) (methods.Method, error) { return &memoMethod{}, nil },
	})
}

// TestCVFreesFoldMemos: at -j 1 a cv selection over 4 folds holds one
// fold's memo at a time (what a fold's fits remembered is dropped when the
// fold is done), and the final fit only its own.
func TestCVFreesFoldMemos(t *testing.T) {
	memoLog.Lock()
	memoLog.seen, memoLog.most = nil, 0
	memoLog.Unlock()
	sp := blobsSpec()
	sp.Methods = []spec.MethodSpec{method("fake-memo", "memo", "cv", []string{"p"}, []any{1.0, 2.0, 3.0})}
	sp.Methods[0].Select.Folds = 4
	sp.Curve = spec.Curve{Sizes: []float64{30}, Trials: 1, Sampling: "balanced"}
	sum := runSpec(t, sp, t.TempDir(), 1, nil)
	if sum.Failed != 0 {
		t.Fatalf("%d failed: %v", sum.Failed, sum.Results[0].Error)
	}
	memoLog.Lock()
	defer memoLog.Unlock()
	if len(memoLog.seen) != 5 {
		t.Errorf("%d memos seen, want 5 (4 folds and the final fit)", len(memoLog.seen))
	}
	if memoLog.most != 1 {
		t.Errorf("at most %d memos held values at once, want 1 (the running fold's; the final fit's after the last fold's was freed)", memoLog.most)
	}
}
