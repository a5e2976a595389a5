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
}

// Transform is a transform plugin: an unsupervised computation over a whole
// dataset whose result the runner caches on disk by content.
type Transform struct {
	// Doc is a one-line description for `repro list transforms`.
	Doc string
	// Params declares the parameters Apply receives.
	Params []param.Decl
	// Apply returns the transformed dataset. It must not look at the
	// labels unless Supervised is set, and must be deterministic.
	Apply func(ctx context.Context, env Env, d *Dataset, p param.Values) (*Dataset, error)
	// Version is part of the cache key: bump it when Apply's output changes.
	Version int
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
	if t == nil || t.Apply == nil {
		panic("datasets: RegisterTransform of a nil transform: " + name)
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
