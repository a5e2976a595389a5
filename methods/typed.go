package methods

import (
	"fmt"

	"github.com/repro-ml/repro/param"
)

// Typed is a method plugin whose parameters are the fields of the struct
// T, declared by their tags (see param.Of): RegisterTyped derives the
// Plugin's Params (and Free) from T once, and every hook receives the
// grid point as a T instead of a param.Values.
type Typed[T any] struct {
	// Doc is a one-line description for `repro list methods`.
	Doc string
	// Kinds is the set of problem kinds the method handles.
	Kinds Kind
	// New returns the Method for one grid point.
	New func(p T) (Method, error)
	// Validate, if set, checks one grid point beyond the declarations
	// (Plugin.Validate). A value that failed its declaration is the zero
	// value here.
	Validate func(p T) error
	// Memory, if set, estimates the bytes of a fit (Plugin.Memory).
	// Like Programs, it receives a missing value as the zero value.
	Memory func(s Shape, p T) int64
	// Programs, if set, returns the external programs a fit runs
	// (Plugin.Programs).
	Programs func(p T) [][]string
	// Needs, if set, returns what a fit requires of the dataset
	// (Plugin.Needs); it receives a missing value as the zero value.
	Needs func(p T) Needs
}

// RegisterTyped makes the method plugin t available under name, as
// Register does with t.Plugin(). It panics if T's tags are malformed.
func RegisterTyped[T any](name string, t Typed[T]) { Register(name, t.Plugin()) }

// Plugin returns the Plugin of t: its declarations derived from T, its
// hooks decoding the values they receive into a T.
func (t Typed[T]) Plugin() *Plugin {
	s := param.Of[T]()
	p := &Plugin{Doc: t.Doc, Kinds: t.Kinds, Params: s.Params, Free: s.Free}
	if t.New != nil {
		p.New = func(v param.Values) (Method, error) {
			x, err := param.Decode[T](v)
			if err != nil {
				return nil, err
			}
			return t.New(x)
		}
	}
	if t.Validate != nil {
		p.Validate = func(v param.Values) error {
			x, err := param.DecodeLax[T](v)
			if err != nil {
				return err
			}
			return t.Validate(x)
		}
	}
	if t.Memory != nil {
		p.Memory = func(sh Shape, v param.Values) int64 { return t.Memory(sh, mustDecode[T](v)) }
	}
	if t.Programs != nil {
		p.Programs = func(v param.Values) [][]string { return t.Programs(mustDecode[T](v)) }
	}
	if t.Needs != nil {
		p.Needs = func(v param.Values) Needs { return t.Needs(mustDecode[T](v)) }
	}
	return p
}

// mustDecode decodes the values a Memory or Programs hook receives, which
// the spec decoder has checked: a missing value is the zero value (as for
// Validate), a value of the wrong type a programming error, as a getter's
// panic was.
func mustDecode[T any](v param.Values) T {
	x, err := param.DecodeLax[T](v)
	if err != nil {
		panic(fmt.Sprintf("methods: %v", err))
	}
	return x
}
