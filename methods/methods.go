package methods

import (
	"context"
	"fmt"
	"sync"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/registry"
)

// Kind is a set of problem kinds a method handles (metric.Kind).
type Kind = metric.Kind

// The problem kinds.
const (
	Classification = metric.Classification
	Regression     = metric.Regression
)

// Method is a configured learning method: one grid point of a plugin.
type Method interface {
	// Fit trains on train and returns a model. It must be deterministic
	// given train and env.Seed, and should return ctx.Err() promptly when
	// ctx is cancelled.
	Fit(ctx context.Context, train *datasets.Dataset, env *Env) (Model, error)
}

// Model is a fitted model.
type Model interface {
	// Predict returns the model's outputs for the rows of X, which has the
	// training set's columns.
	Predict(X matrix.Matrix) *Prediction
}

// Prediction holds a model's outputs on n rows (metric.Prediction).
type Prediction = metric.Prediction

// Env carries what a fit may use besides the training set.
type Env struct {
	// Seed is the method's own sub-seed, derived from the trial's identity.
	Seed uint64
	// Memo caches values shared by the fits on one training set (every grid
	// point and the refit of a cross-validated trial): kernel matrices,
	// factorizations, graph products. Nil disables caching.
	Memo *Memo
	// State carries values from one fit of a trial to the next (see
	// State); nil for the fits of a select rule and for protocols that fit
	// once.
	State *State
	// Unlabelled holds rows a transductive method may look at without
	// their labels, with the training set's columns: the active protocol's
	// unlabelled pool (the pool rows not in the training set); nil for the
	// fits of a select rule and for other protocols. EE's expected error
	// is measured on them.
	Unlabelled matrix.Matrix
}

// Remember returns the value cached under key, computing it with fn the first
// time. It is safe for concurrent use; with a nil Memo it just calls fn.
func (e *Env) Remember(key string, fn func() (any, error)) (any, error) {
	if e == nil || e.Memo == nil {
		return fn()
	}
	return e.Memo.Get(key, fn)
}

// Memo is a concurrency-safe cache of computed values keyed by string.
type Memo struct {
	mu sync.Mutex
	m  map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// Get returns the value for key, calling fn once to compute it.
func (m *Memo) Get(key string, fn func() (any, error)) (any, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[string]*memoEntry{}
	}
	e, ok := m.m[key]
	if !ok {
		e = &memoEntry{}
		m.m[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = fn() })
	return e.v, e.err
}

// Info describes how a fit went.
type Info struct {
	Iterations int
	Converged  bool
	Objective  float64
}

// Informer is implemented by models that report how their fit went.
type Informer interface {
	Info() Info
}

// MultiTask is implemented by methods that train several binary tasks
// jointly over one input space.
type MultiTask interface {
	// FitTasks trains on X with one ±1 target vector per task (Y[t][i])
	// and returns a model whose Predict sets K = len(Y) and OneVsRest.
	FitTasks(ctx context.Context, X matrix.Matrix, Y [][]float64, train *datasets.Dataset, env *Env) (Model, error)
}

// Sequential is implemented by methods that produce a whole learning curve
// from one run, such as active learners that choose which labels to buy.
type Sequential interface {
	// FitSequence starts from pool (whose labels it may reveal to itself
	// one query at a time) and, each time the number of labels it has
	// bought reaches the next of budgets (increasing), calls yield with the
	// current model and any extra per-step values to record (e.g. the
	// number of features chosen). It stops early if yield returns an error.
	FitSequence(ctx context.Context, pool *datasets.Dataset, budgets []int, env *Env,
		yield func(labels int, m Model, extra map[string]float64) error) error
}

// Artifacter is implemented by models that produce artifacts beyond
// metrics for reports to render.
type Artifacter interface {
	Artifacts() []Artifact
}

// Artifact is a table or a plot a model produces. Exactly one of Table and
// Plot is set.
type Artifact struct {
	Name  string // identifier, used in file names: "coefficients"
	Title string
	Table *Table
	Plot  *Plot
}

// Table is a numeric table with named rows and columns, e.g. coefficients
// by variable. Reports average tables of the same shape across trials.
type Table struct {
	Columns []string
	Rows    []string
	Values  [][]float64 // len(Rows) × len(Columns); NaN renders empty
}

// Plot is a set of named series over one pair of axes.
type Plot struct {
	XLabel, YLabel string
	LogX           bool
	Series         []Series
}

// Series is one line (or scatter, with Points) of a Plot.
type Series struct {
	Label  string
	X, Y   []float64
	Points bool
}

// Plugin registers a method family member under a name.
type Plugin struct {
	// Doc is a one-line description for `repro list methods`.
	Doc string
	// Kinds is the set of problem kinds the method handles.
	Kinds Kind
	// Params declares the parameters New receives.
	Params []param.Decl
	// New returns the Method for one grid point of resolved parameters.
	New func(p param.Values) (Method, error)
	// Validate, if set, checks one grid point beyond what the declarations
	// express (a value's inner syntax, a relation between two params). The
	// spec decoder calls it for every grid point before anything runs; it
	// returns nil, or errors that are (or join) *param.InvalidError so each
	// is reported at its own value's line and column.
	Validate func(p param.Values) error
}

// Methods is the registry of method plugins.
var Methods = registry.New[*Plugin]("method")

// Register makes a method plugin available under name. It panics if name is
// empty or already registered, or p.New is nil.
func Register(name string, p *Plugin) {
	if p == nil || p.New == nil {
		panic("methods: Register of a nil plugin: " + name)
	}
	Methods.Register(name, p)
}

// Lookup returns the method plugin called name. An unknown name gives a
// *registry.UnknownError listing the registered names.
func Lookup(name string) (*Plugin, error) { return Methods.Lookup(name) }

// Names returns the registered method names, sorted.
func Names() []string { return Methods.Names() }

// New builds the Method of plugin name at the resolved values p.
func New(name string, p param.Values) (Method, error) {
	pl, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	m, err := pl.New(p)
	if err != nil {
		return nil, fmt.Errorf("method %q: %w", name, err)
	}
	return m, nil
}
