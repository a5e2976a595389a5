package datasets

import (
	"context"
	"fmt"

	"github.com/repro-ml/repro/param"
)

// TypedLoader is a dataset plugin whose parameters are the fields of the
// struct T, declared by their tags (see param.Of): RegisterTyped derives
// the Loader's Params from T once, and every hook receives the values as
// a T instead of a param.Values.
type TypedLoader[T any] struct {
	// Doc is a one-line description for `repro list datasets`.
	Doc string
	// Load builds the dataset (Loader.Load).
	Load func(ctx context.Context, env Env, p T) (*Dataset, error)
	// Validate, if set, checks the values beyond the declarations
	// (Loader.Validate); a value that failed its declaration is the zero
	// value here.
	Validate func(p T) error
	// Files, if set, returns the data files Load reads (Loader.Files).
	Files func(p T) []string
	// Memory, if set, estimates the memory Load holds at most
	// (Loader.Memory).
	Memory func(env Env, p T) int64
}

// RegisterTyped makes the dataset plugin l available under name, as
// Register does with l.Loader(). It panics if T's tags are malformed.
func RegisterTyped[T any](name string, l TypedLoader[T]) { Register(name, l.Loader()) }

// Loader returns the Loader of l: its declarations derived from T, its
// hooks decoding the values they receive into a T.
func (l TypedLoader[T]) Loader() *Loader {
	out := &Loader{Doc: l.Doc, Params: param.Of[T]().Params}
	if l.Load != nil {
		out.Load = func(ctx context.Context, env Env, v param.Values) (*Dataset, error) {
			x, err := param.Decode[T](v)
			if err != nil {
				return nil, err
			}
			return l.Load(ctx, env, x)
		}
	}
	out.Validate = validateHook(l.Validate)
	if l.Files != nil {
		out.Files = func(v param.Values) []string { return l.Files(mustDecode[T](v)) }
	}
	if l.Memory != nil {
		out.Memory = func(env Env, v param.Values) int64 { return l.Memory(env, mustDecode[T](v)) }
	}
	return out
}

// TypedTransform is a transform plugin whose parameters are the fields of
// the struct T (see TypedLoader).
type TypedTransform[T any] struct {
	// Doc is a one-line description for `repro list transforms`.
	Doc string
	// Apply, Fit, Validate, Memory and DataMemory are Transform's, with
	// the values as a T.
	Apply      func(ctx context.Context, env Env, d *Dataset, p T) (*Dataset, error)
	Fit        func(ctx context.Context, env Env, d *Dataset, p T) (Fitted, error)
	Validate   func(p T) error
	Memory     func(rows, cols, nnz int, p T) int64
	DataMemory func(d *Dataset, p T) int64
	// Supervised, Rows, Learns and Version are Transform's.
	Supervised bool
	Rows       bool
	Learns     bool
	Version    int
}

// RegisterTypedTransform makes the transform plugin t available under
// name, as RegisterTransform does with t.Transform(). It panics if T's
// tags are malformed.
func RegisterTypedTransform[T any](name string, t TypedTransform[T]) {
	RegisterTransform(name, t.Transform())
}

// Transform returns the Transform of t: its declarations derived from T,
// its hooks decoding the values they receive into a T.
func (t TypedTransform[T]) Transform() *Transform {
	out := &Transform{Doc: t.Doc, Params: param.Of[T]().Params, Supervised: t.Supervised, Rows: t.Rows, Learns: t.Learns, Version: t.Version}
	if t.Apply != nil {
		out.Apply = func(ctx context.Context, env Env, d *Dataset, v param.Values) (*Dataset, error) {
			x, err := param.Decode[T](v)
			if err != nil {
				return nil, err
			}
			return t.Apply(ctx, env, d, x)
		}
	}
	if t.Fit != nil {
		out.Fit = func(ctx context.Context, env Env, d *Dataset, v param.Values) (Fitted, error) {
			x, err := param.Decode[T](v)
			if err != nil {
				return nil, err
			}
			return t.Fit(ctx, env, d, x)
		}
	}
	out.Validate = validateHook(t.Validate)
	if t.Memory != nil {
		out.Memory = func(rows, cols, nnz int, v param.Values) int64 { return t.Memory(rows, cols, nnz, mustDecode[T](v)) }
	}
	if t.DataMemory != nil {
		out.DataMemory = func(d *Dataset, v param.Values) int64 { return t.DataMemory(d, mustDecode[T](v)) }
	}
	return out
}

// validateHook returns the param.Values form of a typed Validate hook, or
// nil.
func validateHook[T any](validate func(T) error) func(param.Values) error {
	if validate == nil {
		return nil
	}
	return func(v param.Values) error {
		x, err := param.DecodeLax[T](v)
		if err != nil {
			return err
		}
		return validate(x)
	}
}

// mustDecode decodes the values a Files or Memory hook receives, which the
// spec decoder has checked: a missing value is the zero value, a value of
// the wrong type a programming error.
func mustDecode[T any](v param.Values) T {
	x, err := param.DecodeLax[T](v)
	if err != nil {
		panic(fmt.Sprintf("datasets: %v", err))
	}
	return x
}
