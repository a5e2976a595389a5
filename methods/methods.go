package methods

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
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
	// point fitted on it, its one-vs-rest tasks, the final fit of the
	// trial): kernel matrices, factorizations, graph products. Fits reach
	// it through Remember. Nil disables caching.
	Memo *Memo
	// State carries values from one fit of a trial to the next (see
	// State); nil for the fits of a select rule and for protocols that fit
	// once.
	State *State
	// Warm carries starting points from one fit to the next, where a
	// solver may start from the last solution instead of zero: the grid
	// points a select rule fits on one fold, in grid order, and a
	// protocol's successive fits of a trial (an active-learning trial's
	// refits on a growing labelled set). Unlike State it must not change
	// what a fit converges to, only how fast (within the solver's
	// tolerance). Nil for one-vs-rest tasks: a task does not start from
	// another's solution.
	Warm *State
	// Unlabelled holds rows a transductive method may look at without
	// their labels, with the training set's columns: the active protocol's
	// unlabelled pool (the pool rows not in the training set); nil for the
	// fits of a select rule and for other protocols. EE's expected error
	// is measured on them.
	Unlabelled matrix.Matrix
}

// Key names a value in a Memo. Keys are compared by value: Op names what is
// computed, qualified by the package computing it ("kernel.gram",
// "lsq.design"), and Args the parameters it depends on in a canonical text
// form ("rbf:0.5/normalize=true"), never an address (%p), which names
// nothing once the memory is reused.
//
// A Memo serves the fits on one training set's rows, so a key need not name
// the rows. The targets may differ between fits sharing a Memo (the
// one-vs-rest tasks of a multi-class set), so a value that depends on them
// names them by content (ContentID); anything else it depends on that the
// rows do not fix is named explicitly, e.g. a feature graph by its name.
type Key struct {
	Op   string
	Args string
}

// String returns "Op(Args)", or Op when Args is empty.
func (k Key) String() string {
	if k.Args == "" {
		return k.Op
	}
	return k.Op + "(" + k.Args + ")"
}

// ContentID returns an identity of xs that depends on its values only, not
// on where they are stored: a hex SHA-256 prefix of their bits. Keys use it
// to name data a value depends on, such as a task's targets.
func ContentID[T int | int32 | float64](xs []T) string {
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	put := func(u uint64) {
		if buf = binary.LittleEndian.AppendUint64(buf, u); len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	switch v := any(xs).(type) {
	case []float64:
		for _, x := range v {
			put(math.Float64bits(x))
		}
	case []int:
		for _, x := range v {
			put(uint64(x))
		}
	case []int32: // hashed as the same values in an []int
		for _, x := range v {
			put(uint64(int64(x)))
		}
	}
	h.Write(buf)
	return fmt.Sprintf("%d:%x", len(xs), h.Sum(nil)[:12])
}

// Memo is a cache of values computed on one training set and shared by the
// fits on it, filled through Remember. The zero Memo is empty and ready to
// use; a Memo is safe for concurrent use.
type Memo struct {
	mu sync.Mutex
	m  map[Key]*memoEntry
}

type memoEntry struct {
	once sync.Once
	typ  reflect.Type // the T of the Remember that computed v
	v    any
	err  error
}

// Len returns the number of values the memo holds or is computing.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

// Clear drops every value of the memo, so that the memory they hold can
// be reclaimed while the memo itself is still referenced; a later
// Remember computes again.
func (m *Memo) Clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.m)
}

// entry returns the entry of key, creating it if needed.
func (m *Memo) entry(key Key) *memoEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[Key]*memoEntry{}
	}
	e, ok := m.m[key]
	if !ok {
		e = &memoEntry{}
		m.m[key] = e
	}
	return e
}

// Remember returns the value of type T cached under key in env's Memo,
// computing it with fn the first time: fn runs once per key even when fits
// run concurrently (later callers wait for it), and its error is cached
// too. With a nil env or Memo, Remember just calls fn. If key holds a value
// of another type, Remember returns an error naming both types.
func Remember[T any](env *Env, key Key, fn func() (T, error)) (T, error) {
	if env == nil || env.Memo == nil {
		return fn()
	}
	want := reflect.TypeFor[T]()
	e := env.Memo.entry(key)
	e.once.Do(func() {
		v, err := fn()
		e.typ, e.v, e.err = want, v, err // a panicking fn leaves typ nil
	})
	var zero T
	if e.typ != want {
		return zero, fmt.Errorf("methods: memo key %v holds a %v, not a %v", key, e.typ, want)
	}
	if e.err != nil {
		return zero, e.err
	}
	v, _ := e.v.(T) // a nil interface value stays the zero T
	return v, nil
}

// Info describes how a fit went.
type Info struct {
	Iterations int
	Converged  bool
	Objective  float64
}

// ErrPredictor is implemented by models whose prediction can fail for a
// reason of their own, such as an external program's exit status: the
// runner calls PredictErr instead of Predict and fails the trial with its
// error.
type ErrPredictor interface {
	PredictErr(X matrix.Matrix) (*Prediction, error)
}

// Predict returns m's prediction on X: m.PredictErr(X) when m is an
// ErrPredictor, else m.Predict(X), or an error if that is nil.
func Predict(m Model, X matrix.Matrix) (*Prediction, error) {
	if ep, ok := m.(ErrPredictor); ok {
		return ep.PredictErr(X)
	}
	p := m.Predict(X)
	if p == nil {
		return nil, errors.New("model returned no prediction")
	}
	return p, nil
}

// SetPredictor is implemented by models that read more of the rows to
// predict than their features: the documents of a text dataset
// (Dataset.Text), which an external program tokenizes itself. PredictSet
// calls it instead of PredictErr or Predict.
type SetPredictor interface {
	PredictSet(set *datasets.Dataset) (*Prediction, error)
}

// PredictSet returns m's prediction on the rows of set: m.PredictSet(set)
// when m is a SetPredictor, else Predict(m, set.X).
func PredictSet(m Model, set *datasets.Dataset) (*Prediction, error) {
	if sp, ok := m.(SetPredictor); ok {
		return sp.PredictSet(set)
	}
	return Predict(m, set.X)
}

// FitTimer is implemented by models that measure their own fit time: an
// external program's wall time, without the time repro spends writing
// its input. The runner records FitSeconds as the fit's time instead of
// the time Fit took.
type FitTimer interface {
	FitSeconds() float64
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

// Extraser is implemented by models that record named values beside the
// metrics of the observation they are scored at: the number of components
// a dimensionality-reducing learner chose, a dictionary size. Reports table
// and plot an extra named in `report: {y: [...]}`.
type Extraser interface {
	Extras() map[string]float64
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
	// Memory, if set, estimates the bytes a fit at grid point p on data of
	// shape s allocates beyond the data itself, its peak: dense vectors
	// over the columns, solver histories, Gram matrices, copies of X, and
	// what Predict allocates for s.Test rows. The runner refuses a fit
	// whose estimate exceeds the run's memory limit before it starts,
	// rather than let it exhaust the machine. Without it the runner uses
	// DefaultMemory, which assumes a dense copy of X and an n×n matrix.
	// Build estimates with Floats and Bytes, which saturate instead of
	// overflowing.
	Memory func(s Shape, p param.Values) int64
	// Free, if set, declares the parameters the plugin takes besides
	// Params, whatever their names (param.Plugin.Free): the grid values
	// of a command method, which reach its placeholders. Validate
	// rejects the names it cannot use.
	Free *param.Decl
	// Needs, if set, returns what a fit at grid point p requires of the
	// dataset beyond Kinds (a feature graph, one input column, at most
	// two classes): `repro list methods` prints it at the declared
	// defaults (Handles), and validate --data and the runner refuse a
	// dataset lacking it at the method's line. Without it the method
	// takes any dataset of its Kinds, classes of any number included.
	Needs func(p param.Values) Needs
	// Programs, if set, returns the external programs a fit at grid
	// point p runs, one argument vector each (a program, then its
	// arguments, placeholders unexpanded), which `repro validate` prints
	// and looks up on PATH and `--no-commands` refuses; empty for a
	// method that runs none.
	Programs func(p param.Values) [][]string
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
