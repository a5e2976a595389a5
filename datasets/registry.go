package datasets

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/repro-ml/repro/runner/param"
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

var (
	mu         sync.RWMutex
	loaders    = map[string]*Loader{}
	transforms = map[string]*Transform{}
)

// Register makes a dataset plugin available under name. It panics if name
// is empty or already registered, or if l.Load is nil.
func Register(name string, l *Loader) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || l == nil || l.Load == nil {
		panic("datasets: Register of an empty name or nil loader")
	}
	if _, dup := loaders[name]; dup {
		panic("datasets: Register called twice for " + name)
	}
	loaders[name] = l
}

// RegisterTransform makes a transform plugin available under name.
func RegisterTransform(name string, t *Transform) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || t == nil || t.Apply == nil {
		panic("datasets: RegisterTransform of an empty name or nil transform")
	}
	if _, dup := transforms[name]; dup {
		panic("datasets: RegisterTransform called twice for " + name)
	}
	transforms[name] = t
}

// Lookup returns the dataset plugin called name.
func Lookup(name string) (*Loader, error) {
	mu.RLock()
	defer mu.RUnlock()
	if l, ok := loaders[name]; ok {
		return l, nil
	}
	return nil, unknown("dataset", name, names(loaders))
}

// LookupTransform returns the transform plugin called name.
func LookupTransform(name string) (*Transform, error) {
	mu.RLock()
	defer mu.RUnlock()
	if t, ok := transforms[name]; ok {
		return t, nil
	}
	return nil, unknown("transform", name, names(transforms))
}

// Names returns the registered dataset plugin names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return names(loaders)
}

// TransformNames returns the registered transform names, sorted.
func TransformNames() []string {
	mu.RLock()
	defer mu.RUnlock()
	return names(transforms)
}

func names[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UnknownError reports a plugin name that is not registered.
type UnknownError struct {
	Kind, Name string
	Known      []string
	Suggest    string
}

func (e *UnknownError) Error() string {
	s := fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
	if e.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	}
	return s + fmt.Sprintf("; registered: %v", e.Known)
}

func unknown(kind, name string, known []string) error {
	return &UnknownError{Kind: kind, Name: name, Known: known, Suggest: param.Closest(name, known)}
}
