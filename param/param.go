// Package param declares the typed parameters of repro's plugins and checks
// the values an experiment gives them.
//
// A plugin (method, dataset, transform, split kind, protocol) declares its
// parameters as the tagged fields of a struct (see Of), from which its
// []Decl is derived, checks beyond a type and range included (the check
// tag); the runner validates every value of an experiment against that
// list, fills in defaults, and the plugin receives the values decoded into
// its struct (Decode). `repro list` prints the same declarations, so what
// is documented is what is checked.
//
// The experiment spec's own sections are declared the same way: a Section
// is a mapping whose keys are its Fields, a SectionList a list of such
// mappings, and a Params field holds the parameters of the plugin a
// section's Tag names. Table renders declarations as the Markdown field
// tables of docs/spec.md.
package param

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/registry"
)

// Type is the type of a parameter's value.
type Type int

// The parameter types. A List type takes a YAML sequence as one value; a
// grid over a list parameter is written as a sequence of sequences.
const (
	Float Type = iota
	Int
	Bool
	String
	Enum // a String restricted to Decl.Choices
	FloatList
	IntList
	StringList
	Map // a string→string mapping, e.g. column groups

	// The shapes of the spec's own sections. They are declared by the
	// runner, never by a plugin's parameters.
	Section     // a mapping whose keys are Decl.Fields
	SectionList // a list of mappings, each with the keys Decl.Fields
	Params      // the parameters of the plugin the enclosing section's Tag names
)

var typeNames = [...]string{"float", "int", "bool", "string", "enum", "[]float", "[]int", "[]string", "map", "mapping", "list", "params"}

// String returns the name used in `repro list` and error messages.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// IsList reports whether values of t are sequences of scalars.
func (t Type) IsList() bool { return t == FloatList || t == IntList || t == StringList }

// Elem returns the type of an element of a list type, or t itself.
func (t Type) Elem() Type {
	switch t {
	case FloatList:
		return Float
	case IntList:
		return Int
	case StringList:
		return String
	}
	return t
}

// Decl declares one parameter of a plugin.
type Decl struct {
	Name    string
	Type    Type
	Default any      // nil: required
	Min     *float64 // numeric lower bound (inclusive unless MinExclusive), nil: none
	Max     *float64 // numeric upper bound (inclusive unless MaxExclusive), nil: none
	// MinExclusive and MaxExclusive make Min and Max strict bounds, each
	// side on its own: ρ in (0, 1] is Min 0, MinExclusive, Max 1.
	MinExclusive, MaxExclusive bool
	Choices                    []string // for Enum
	Doc                        string   // one line

	// The fields below are optional; plugins' parameters rarely need them.
	// The spec's own sections use them all.

	// Elem names one value (or one list element) in messages: "unknown
	// metric", "duplicate size"; "value" if empty.
	Elem string
	// Optional marks a field that may be absent without a Default: its
	// value is then the zero value, or what DefaultDoc says.
	Optional bool
	// DefaultDoc describes a default that is not a constant (`name`, "the
	// first of metrics") for documentation.
	DefaultDoc string
	// Want says, for a missing required value, what is wanted: "missing;
	// want " + Want. If empty, the message gives Range and Doc.
	Want string
	// NonEmpty rejects an empty list; Unique rejects a list with two equal
	// elements (compared by Format).
	NonEmpty, Unique bool
	// OmitDefault leaves the parameter out of trial keys while it holds
	// its default: for a parameter added to a plugin after results were
	// stored, whose keys then stay valid (spec.KeyParams).
	OmitDefault bool
	// Check, if set, checks each value (each element of a list) beyond
	// type, range and choices. It returns what is wrong as a predicate
	// of the value, "is not a whole number of rows; want …": the
	// message is the value as written followed by it.
	Check func(v any) error

	// Fields declares the keys of a Section, or of every mapping of a
	// SectionList.
	Fields []Decl
	// Tag names the field of a Section or SectionList whose value selects
	// a plugin (a dataset's name, a split's kind); Plugin returns that
	// plugin's parameters: the keys of the mapping's Params field, or,
	// when it has none, the mapping's keys besides Fields. A Section with
	// a Tag may be written as the tag's value alone (protocol: active).
	Tag    string
	Plugin func(name string) (*Plugin, error)
	// Grid marks a Params field whose values may be lists: each list is a
	// grid axis (a list of lists for a list-typed parameter).
	Grid bool
}

// Plugin is what a spec decoder needs to know of a plugin a Tag names: its
// parameters and the hook that checks a set of their values.
type Plugin struct {
	Params []Decl
	// Validate, if set, checks one set of resolved values beyond the
	// declarations; it returns nil or (joined) *InvalidError.
	Validate func(Values) error
	// Free, if set, declares every parameter the plugin takes besides
	// Params, whatever its name: a key Params does not declare is
	// decoded with Free (its Name set to the key) instead of being
	// reported as unknown. Validate then rejects the names the plugin
	// cannot use (a command method's grid names, which must appear as
	// placeholders).
	Free *Decl
}

// WithFree returns p with a declaration, a copy of p.Free named k, for
// every name k of keys that p.Params does not declare, in the order of
// keys; p itself when p.Free is nil.
func (p *Plugin) WithFree(keys []string) *Plugin {
	if p == nil || p.Free == nil {
		return p
	}
	q := *p
	q.Params = append([]Decl(nil), p.Params...)
	for _, k := range keys {
		if _, ok := Find(q.Params, k); !ok {
			d := *p.Free
			d.Name = k
			q.Params = append(q.Params, d)
		}
	}
	return &q
}

// IsSection reports whether d declares a mapping or a list of mappings.
func (d Decl) IsSection() bool { return d.Type == Section || d.Type == SectionList }

// ElemName returns the word for one value in messages: Elem, or "value".
func (d Decl) ElemName() string {
	if d.Elem == "" {
		return "value"
	}
	return d.Elem
}

// Bound returns a pointer to v, for Decl.Min and Decl.Max.
func Bound(v float64) *float64 { return &v }

// Required reports whether the parameter has no default and is not
// Optional.
func (d Decl) Required() bool { return d.Default == nil && !d.Optional }

// Range describes the allowed values in words, e.g. "float in [0, +inf)".
func (d Decl) Range() string {
	s := d.Type.String()
	switch {
	case d.Type == Enum:
		return s + " (one of " + strings.Join(d.Choices, ", ") + ")"
	case d.Min != nil || d.Max != nil:
		lo, hi := "-inf", "+inf"
		if d.Min != nil {
			lo = fmtBound(*d.Min)
		}
		if d.Max != nil {
			hi = fmtBound(*d.Max)
		}
		lb, rb := "[", "]"
		if d.MinExclusive {
			lb = "("
		}
		if d.MaxExclusive {
			rb = ")"
		}
		if d.Min == nil {
			lb = "("
		}
		if d.Max == nil {
			rb = ")"
		}
		return s + " in " + lb + lo + ", " + hi + rb
	}
	return s
}

// DefaultString formats the default for listings: "required" if there is
// none, "" quoted for an empty string, and floats (alone or in lists) to
// four significant digits, so that 10^(-1/2) lists as 0.3162.
func (d Decl) DefaultString() string {
	switch x := d.Default.(type) {
	case nil:
		return "required"
	case string:
		if x == "" {
			return `""`
		}
	case float64:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = strconv.FormatFloat(f, 'g', 4, 64)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return Format(d.Default)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// fmtBound formats a bound in Range: whole numbers below 10^15 without an
// exponent (2147483647, not 2.147483647e+09). Format, which keys use, is
// unchanged.
func fmtBound(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmtNum(f)
}

// Format renders a parameter value compactly and deterministically, as used
// in labels, keys and reports: 0.1, 25, true, word, [1 2 3], {a: x, b: y}.
func Format(v any) string {
	switch x := v.(type) {
	case float64:
		return fmtNum(x)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = fmtNum(f)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case []int:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = strconv.Itoa(f)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case []string:
		return "[" + strings.Join(x, " ") + "]"
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + x[k]
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// Convert checks a decoded YAML scalar or sequence against d and returns it
// in d's Go type: float64, int, bool, string, []float64, []int, []string or
// map[string]string. The error says what was expected.
func (d Decl) Convert(v any) (any, error) {
	out, err := convert(d.Type, v, d)
	if err != nil {
		return nil, err
	}
	if err := d.checkRange(out); err != nil {
		return nil, err
	}
	if d.Check != nil {
		if d.Type.IsList() {
			for i, e := range elems(out) {
				if err := d.Check(e); err != nil {
					return nil, fmt.Errorf("element %d: %s %w", i, describe(e), err)
				}
			}
		} else if err := d.Check(out); err != nil {
			return nil, fmt.Errorf("%s %w", describe(out), err)
		}
	}
	return out, nil
}

// elems returns the elements of a converted list value.
func elems(v any) []any {
	var out []any
	switch x := v.(type) {
	case []float64:
		for _, e := range x {
			out = append(out, e)
		}
	case []int:
		for _, e := range x {
			out = append(out, e)
		}
	case []string:
		for _, e := range x {
			out = append(out, e)
		}
	}
	return out
}

func (d Decl) checkRange(v any) error {
	var nums []float64
	switch x := v.(type) {
	case float64:
		nums = []float64{x}
	case int:
		nums = []float64{float64(x)}
	case []float64:
		nums = x
	case []int:
		for _, i := range x {
			nums = append(nums, float64(i))
		}
	}
	for _, f := range nums {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s is not allowed; want a finite %s", fmtNum(f), d.Range())
		}
		if d.Min != nil && (f < *d.Min || d.MinExclusive && f == *d.Min) {
			return fmt.Errorf("%s is out of range; want %s", fmtNum(f), d.Range())
		}
		if d.Max != nil && (f > *d.Max || d.MaxExclusive && f == *d.Max) {
			return fmt.Errorf("%s is out of range; want %s", fmtNum(f), d.Range())
		}
	}
	return nil
}

func convert(t Type, v any, d Decl) (any, error) {
	switch t {
	case Float:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int:
			return float64(x), nil
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return f, nil
			}
		}
		return nil, fmt.Errorf("got %s, want a number", describe(v))
	case Int:
		switch x := v.(type) {
		case int:
			return x, nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int(x), nil
			}
		}
		return nil, fmt.Errorf("got %s, want an integer", describe(v))
	case Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("got %s, want true or false", describe(v))
	case String:
		switch x := v.(type) {
		case string:
			return x, nil
		case int, float64, bool:
			return Format(x), nil
		}
		return nil, fmt.Errorf("got %s, want a string", describe(v))
	case Enum:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("got %s, want one of %s", describe(v), strings.Join(d.Choices, ", "))
		}
		for _, c := range d.Choices {
			if s == c {
				return s, nil
			}
		}
		msg := fmt.Sprintf("unknown %s %s", d.ElemName(), Quote(s))
		if c := Closest(s, d.Choices); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		return nil, fmt.Errorf("%s, want one of %s", msg, strings.Join(d.Choices, ", "))
	case FloatList, IntList, StringList:
		xs, ok := v.([]any)
		if !ok {
			// A lone scalar is a one-element list.
			xs = []any{v}
		}
		elem := map[Type]Type{FloatList: Float, IntList: Int, StringList: String}[t]
		switch t {
		case FloatList:
			out := make([]float64, len(xs))
			for i, x := range xs {
				f, err := convert(elem, x, Decl{})
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out[i] = f.(float64)
			}
			return out, nil
		case IntList:
			out := make([]int, len(xs))
			for i, x := range xs {
				f, err := convert(elem, x, Decl{})
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out[i] = f.(int)
			}
			return out, nil
		default:
			out := make([]string, len(xs))
			for i, x := range xs {
				f, err := convert(elem, x, Decl{})
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out[i] = f.(string)
			}
			return out, nil
		}
	case Map:
		switch x := v.(type) {
		case map[string]string:
			return x, nil
		case map[string]any:
			out := make(map[string]string, len(x))
			for k, e := range x {
				s, err := convert(String, e, Decl{})
				if err != nil {
					return nil, fmt.Errorf("key %s: %w", Quote(k), err)
				}
				out[k] = s.(string)
			}
			return out, nil
		}
		return nil, fmt.Errorf("got %s, want a mapping of names to strings", describe(v))
	}
	return nil, fmt.Errorf("unknown parameter type %v", t)
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return Quote(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case bool:
		return strconv.FormatBool(x)
	}
	return Format(v)
}

// Values holds a plugin's resolved parameter values, keyed by name, each in
// its declared Go type. Getters panic on a name the plugin did not declare
// or a type mismatch: both are programmer errors, caught by the plugin's tests.
type Values map[string]any

func (v Values) get(name string) any {
	x, ok := v[name]
	if !ok {
		panic(fmt.Sprintf("param: no value for %q", name))
	}
	return x
}

// Float returns the float parameter name.
func (v Values) Float(name string) float64 { return v.get(name).(float64) }

// Int returns the int parameter name.
func (v Values) Int(name string) int { return v.get(name).(int) }

// Bool returns the bool parameter name.
func (v Values) Bool(name string) bool { return v.get(name).(bool) }

// String returns the string or enum parameter name.
func (v Values) String(name string) string { return v.get(name).(string) }

// Floats returns the []float parameter name.
func (v Values) Floats(name string) []float64 { return v.get(name).([]float64) }

// Ints returns the []int parameter name.
func (v Values) Ints(name string) []int { return v.get(name).([]int) }

// Strings returns the []string parameter name.
func (v Values) Strings(name string) []string { return v.get(name).([]string) }

// Map returns the map parameter name.
func (v Values) Map(name string) map[string]string { return v.get(name).(map[string]string) }

// Has reports whether name has a value.
func (v Values) Has(name string) bool { _, ok := v[name]; return ok }

// Names returns the parameter names in sorted order.
func (v Values) Names() []string {
	out := make([]string, 0, len(v))
	for k := range v {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Clone returns a shallow copy of v.
func (v Values) Clone() Values {
	out := make(Values, len(v))
	for k, x := range v {
		out[k] = x
	}
	return out
}

// Label renders v as "a=1 b=x" in name order.
func (v Values) Label() string {
	parts := make([]string, 0, len(v))
	for _, k := range v.Names() {
		parts = append(parts, k+"="+Format(v[k]))
	}
	return strings.Join(parts, " ")
}

// Defaults returns the defaults of decls as Values (required ones omitted).
func Defaults(decls []Decl) Values {
	out := Values{}
	for _, d := range decls {
		if d.Default != nil {
			out[d.Name] = d.Default
		}
	}
	return out
}

// Find returns the declaration called name.
func Find(decls []Decl, name string) (Decl, bool) {
	for _, d := range decls {
		if d.Name == name {
			return d, true
		}
	}
	return Decl{}, false
}

// Names returns the names of decls in declaration order.
func Names(decls []Decl) []string {
	out := make([]string, len(decls))
	for i, d := range decls {
		out[i] = d.Name
	}
	return out
}

// Closest returns the candidate nearest to s by edit distance, or "" if none
// is close enough to be a plausible typo. It is registry.Closest.
func Closest(s string, candidates []string) string { return registry.Closest(s, candidates) }

// InvalidError reports a bad value of one parameter found by a plugin's
// Validate hook, so that the spec decoder can point at the value's own line
// and column: the parameter's node, or with Elem ≥ 0 the element Elem of a
// list value (the second kernel of a kernel list), or with Key set the
// value of key Key of a map value (one group of a table's groups).
type InvalidError struct {
	Param string // the parameter's name
	Elem  int    // index within a list value, or -1 for the whole value
	Key   string // key within a map value, or ""
	Err   error  // what is wrong, ending with "; want …"
}

// Invalid returns an *InvalidError for the whole value of param name.
func Invalid(name string, format string, args ...any) *InvalidError {
	return &InvalidError{Param: name, Elem: -1, Err: fmt.Errorf(format, args...)}
}

// InvalidElem returns an *InvalidError for element i of list param name.
func InvalidElem(name string, i int, format string, args ...any) *InvalidError {
	return &InvalidError{Param: name, Elem: i, Err: fmt.Errorf(format, args...)}
}

// InvalidKey returns an *InvalidError for the value of key of map param
// name.
func InvalidKey(name, key string, format string, args ...any) *InvalidError {
	return &InvalidError{Param: name, Elem: -1, Key: key, Err: fmt.Errorf(format, args...)}
}

func (e *InvalidError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s.%s: %v", e.Param, e.Key, e.Err)
	}
	if e.Elem >= 0 {
		return fmt.Sprintf("%s[%d]: %v", e.Param, e.Elem, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Param, e.Err)
}

func (e *InvalidError) Unwrap() error { return e.Err }
