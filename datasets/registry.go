package datasets

import (
	"context"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/registry"
)

// Env is what a dataset or transform plugin may use beyond its parameters.
type Env struct {
	// DataDir is the data directory (see DataDir); Open resolves files in it.
	DataDir string
	// CacheDir is a directory where a plugin may keep derived files.
	CacheDir string
	// Warn, if non-nil, receives problems a plugin recovered from, which
	// the run reports (a damaged cache file, refitted).
	Warn func(error)
}

// Loader is a dataset plugin: it declares its parameters and loads a
// Dataset from resolved values.
type Loader struct {
	// Doc is a one-line description for `repro list datasets`.
	Doc string
	// Params declares the parameters Load receives.
	Params []param.Decl
	// Load builds the dataset. It must be deterministic in its inputs.
	Load func(ctx context.Context, env Env, p param.Values) (*Dataset, error)
	// Validate, if set, checks resolved params beyond the declarations,
	// before anything loads (see methods.Plugin.Validate).
	Validate func(p param.Values) error
	// Files, if set, returns the data files Load reads at p, relative to
	// the data directory as the params name them; `repro data` looks up
	// where each comes from in package fetch's catalogue.
	Files func(p param.Values) []string
	// Memory, if set, estimates the most memory Load holds at once at p
	// (what it reads, the documents it keeps and the matrix it builds),
	// from the size of its files in env's data directory, say. The runner
	// holds it in the run's memory budget while the dataset loads, as it
	// holds a fit's estimate, so that a large load waits for the fits
	// running beside it.
	Memory func(env Env, p param.Values) int64
}

// Transform is a transform plugin. It runs in one of two ways, as the
// experiment's `fit:` says:
//
//   - on the whole dataset, once, when it loads (fit unset): an unsupervised
//     computation over the corpus (feature graphs, k-gram compression)
//     whose output the runner caches on disk by content — Apply;
//   - fitted in each trial on a declared part of the rows (fit: pool, every
//     non-test row; fit: train, the training rows) and then applied to all
//     of them (PCA of the pool) — Fit. The runner caches fitted transforms
//     by the content of the rows they are fitted on and their params.
//
// A plugin sets Apply, Fit or both.
type Transform struct {
	// Doc is a one-line description for `repro list transforms`.
	Doc string
	// Params declares the parameters Apply and Fit receive.
	Params []param.Decl
	// Apply returns the transformed dataset. It must not look at the
	// labels unless Supervised is set, and must be deterministic.
	Apply func(ctx context.Context, env Env, d *Dataset, p param.Values) (*Dataset, error)
	// Fit learns the transform from the rows of d, which the runner hands
	// over without labels (Y and Classes nil) unless Supervised is set.
	// It must be deterministic.
	Fit func(ctx context.Context, env Env, d *Dataset, p param.Values) (Fitted, error)
	// Supervised declares that the transform reads labels.
	Supervised bool
	// Rows declares that a corpus-level transform keeps only some of
	// the rows (a subsample, a filter); every other keeps them all.
	Rows bool
	// Learns declares that what the transform makes of a row depends on
	// the other rows it runs on (column statistics, a vocabulary, a
	// dictionary, components, a graph of co-occurrences): run on the
	// whole dataset it sees the test rows, which the report says unless
	// the spec fits it per trial or declares the protocol transductive
	// (fit: all).
	Learns bool
	// Version is part of the cache key: bump it when the output changes.
	Version int
	// Validate, if set, checks resolved params beyond the declarations.
	Validate func(p param.Values) error
	// Memory, if set, estimates the bytes Fit (and Transform) or Apply
	// allocates at p on rows of X with cols columns and nnz stored
	// entries (rows·cols when dense), its peak. The runner refuses a
	// transform whose estimate exceeds the run's memory limit before it
	// starts, rather than let it exhaust the machine: a fit per trial
	// fails that trial, an Apply every trial of its dataset.
	Memory func(rows, cols, nnz int, p param.Values) int64
	// DataMemory, if set, estimates the same peak from the input dataset
	// itself, for a transform whose memory follows what the shape does
	// not say (the words of d.Text, for a transform of the documents);
	// the runner uses it instead of Memory.
	DataMemory func(d *Dataset, p param.Values) int64
}

// MemoryOf returns t's estimate of the memory it needs at p on d
// (DataMemory, else Memory), and false when it declares none.
func (t *Transform) MemoryOf(d *Dataset, p param.Values) (int64, bool) {
	switch {
	case t.DataMemory != nil:
		return t.DataMemory(d, p), true
	case t.Memory != nil:
		r, c := d.X.Dims()
		return t.Memory(r, c, d.X.NNZ(), p), true
	}
	return 0, false
}

// Fitted is a transform fitted on some rows, applied to any rows of the
// same dataset (the pool and the test fold alike).
type Fitted interface {
	// Transform returns d with the transform applied: new columns, same
	// rows and labels. It must not modify d.
	Transform(d *Dataset) (*Dataset, error)
}

// Loaders is the registry of dataset plugins.
var Loaders = registry.New[*Loader]("dataset")

// Transforms is the registry of transform plugins.
var Transforms = registry.New[*Transform]("transform")

// Register makes a dataset plugin available under name. It panics if name
// is empty or already registered, or if l.Load is nil.
func Register(name string, l *Loader) {
	if l == nil || l.Load == nil {
		panic("datasets: Register of a nil loader: " + name)
	}
	Loaders.Register(name, l)
}

// RegisterTransform makes a transform plugin available under name.
func RegisterTransform(name string, t *Transform) {
	if t == nil || (t.Apply == nil && t.Fit == nil) {
		panic("datasets: RegisterTransform of a transform with neither Apply nor Fit: " + name)
	}
	Transforms.Register(name, t)
}

// Lookup returns the dataset plugin called name.
func Lookup(name string) (*Loader, error) { return Loaders.Lookup(name) }

// LookupTransform returns the transform plugin called name.
func LookupTransform(name string) (*Transform, error) { return Transforms.Lookup(name) }

// Names returns the registered dataset plugin names, sorted.
func Names() []string { return Loaders.Names() }

// TransformNames returns the registered transform names, sorted.
func TransformNames() []string { return Transforms.Names() }
