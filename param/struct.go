package param

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// A plugin may declare its parameters as the fields of a struct instead of
// a []Decl: Of derives the declarations from the struct's tags, Decode
// fills a struct from resolved Values and Encode turns one back into
// Values. A field is a parameter when it has a `param` tag:
//
//	type ridge struct {
//		Lambda float64 `param:"lambda" range:"[0, +inf)" default:"1" doc:"weight λ of the penalty"`
//		Solver string  `param:"solver" enum:"auto|primal|cg" default:"auto" doc:"how to solve"`
//		Train []string `param:"train,nonempty" doc:"the training program and its arguments"`
//		Vars map[string]string `param:",free" doc:"a grid value, passed as {NAME}"`
//	}
//
// The tag keys are:
//
//	param    the parameter's name, then options after commas: nonempty
//	         and unique (for lists, Decl.NonEmpty and Decl.Unique),
//	         omitdefault (Decl.OmitDefault: left out of trial keys at its
//	         default, for a parameter added after results were stored); or
//	         ",free" alone on a map[string]string field, which receives
//	         every value the struct does not declare (Plugin.Free).
//	doc      the one-line description (Decl.Doc).
//	default  the default, as `repro list` prints it: 1, 1e-10, true, word,
//	         [1 2 3], [] (an empty list), {} (an empty map); default:""
//	         is the empty string; no default tag: the parameter is
//	         required.
//	range    numeric bounds as Decl.Range prints them: [0, +inf), (0, 1],
//	         (-inf, 10]; a bracket includes its bound, a parenthesis
//	         excludes it, an infinite bound is open.
//	enum     the choices of a string parameter, separated by |: the
//	         parameter is then an Enum.
//	elem     the word for one value in messages (Decl.Elem).
//	check    the name of a method of the struct, func(T) M(v any) error,
//	         that checks a value beyond its type and range (Decl.Check):
//	         check:"CheckTest" calls T{}.CheckTest(v).
//
// The Go type of the field gives the Type: float64 Float, int Int, bool
// Bool, string String (Enum with an enum tag), []float64 FloatList, []int
// IntList, []string StringList, map[string]string Map. Embedded structs
// without a tag contribute their fields in place; an embedded struct may
// instead change the defaults of some of them with one tag,
// `defaults:"stop_words=none; ngrams=2"` (each value written as a
// default tag); fields without tags are not parameters. Any other tag key, a malformed value or an unsupported
// type is a programming error: Of panics, naming the struct and the field,
// when the plugin registers.

// Struct is the declarations derived from a struct type by Of.
type Struct struct {
	// Params declares the struct's parameters in field order.
	Params []Decl
	// Free declares the values of the free field, or is nil.
	Free *Decl

	typ    reflect.Type
	fields [][]int // the index path of the field of each of Params
	free   []int   // the index path of the free field, or nil
}

var structs sync.Map // reflect.Type → *Struct

// Of returns the declarations of the parameters of struct type T,
// derived once and cached. It panics if a tag is malformed (see above).
func Of[T any]() *Struct { return structOf(reflect.TypeFor[T]()) }

func structOf(t reflect.Type) *Struct {
	if s, ok := structs.Load(t); ok {
		return s.(*Struct)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("param: parameters of %v: not a struct", t))
	}
	s := &Struct{typ: t}
	s.walk(t, nil)
	seen := map[string]bool{}
	for _, d := range s.Params {
		if seen[d.Name] {
			panic(fmt.Sprintf("param: %v: two fields declare parameter %q", t, d.Name))
		}
		seen[d.Name] = true
	}
	got, _ := structs.LoadOrStore(t, s)
	return got.(*Struct)
}

// tagKeys are the tag keys Of reads; it refuses any other.
var tagKeys = map[string]bool{"param": true, "doc": true, "default": true, "range": true, "enum": true, "elem": true, "check": true}

func (s *Struct) walk(t reflect.Type, index []int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		path := append(append([]int(nil), index...), i)
		fail := func(format string, args ...any) {
			panic(fmt.Sprintf("param: %v.%s: %s", s.typ, f.Name, fmt.Sprintf(format, args...)))
		}
		if f.Tag == "" {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				s.walk(f.Type, path)
			}
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			tags, err := parseTag(f.Tag)
			if err != nil || len(tags) != 1 || tags[0][0] != "defaults" {
				fail("an embedded struct takes no tag but defaults:\"name=value; …\"")
			}
			def := tags[0][1]
			first := len(s.Params)
			s.walk(f.Type, path)
			if err := overrideDefaults(s.Params[first:], def); err != nil {
				fail("defaults %q: %v", def, err)
			}
			continue
		}
		tags, err := parseTag(f.Tag)
		if err != nil {
			fail("%v", err)
		}
		for _, kv := range tags {
			if !tagKeys[kv[0]] {
				fail("unknown tag key %q; want param, doc, default, range, enum, elem or check", kv[0])
			}
		}
		tag := func(k string) (string, bool) {
			for _, kv := range tags {
				if kv[0] == k {
					return kv[1], true
				}
			}
			return "", false
		}
		spec, ok := tag("param")
		if !ok {
			fail("tag %s has no param key; want param:\"name\"", f.Tag)
		}
		if !f.IsExported() {
			fail("a parameter's field must be exported")
		}
		name, opts, _ := strings.Cut(spec, ",")
		doc, _ := tag("doc")
		if name == "" && opts == "free" {
			if f.Type != reflect.TypeFor[map[string]string]() {
				fail("a free field is a map[string]string, not %v", f.Type)
			}
			if s.free != nil {
				fail("a second free field")
			}
			for _, k := range []string{"default", "range", "enum", "elem", "check"} {
				if _, ok := tag(k); ok {
					fail("a free field takes no %s tag", k)
				}
			}
			s.free = path
			s.Free = &Decl{Type: String, Doc: doc}
			continue
		}
		if name == "" {
			fail("param tag %q has no name", spec)
		}
		d := Decl{Name: name, Doc: doc}
		typ, ok := goTypes[f.Type]
		if !ok {
			fail("unsupported type %v; want float64, int, bool, string, []float64, []int, []string or map[string]string", f.Type)
		}
		d.Type = typ
		if opts != "" {
			for _, o := range strings.Split(opts, ",") {
				switch o {
				case "nonempty":
					d.NonEmpty = true
				case "unique":
					d.Unique = true
				case "omitdefault":
					d.OmitDefault = true
					continue
				default:
					fail("unknown param option %q; want nonempty, unique or omitdefault", o)
				}
				if !typ.IsList() {
					fail("option %s is for a list, not a %v", o, typ)
				}
			}
		}
		if e, ok := tag("enum"); ok {
			if typ != String {
				fail("enum tag on a %v; want a string", typ)
			}
			d.Type = Enum
			d.Choices = strings.Split(e, "|")
			for _, c := range d.Choices {
				if c == "" {
					fail("enum %q has an empty choice", e)
				}
			}
		}
		if r, ok := tag("range"); ok {
			if typ != Float && typ != Int && typ != FloatList && typ != IntList {
				fail("range tag on a %v; want a number or a list of numbers", typ)
			}
			if err := parseRange(r, &d); err != nil {
				fail("range %q: %v", r, err)
			}
		}
		d.Elem, _ = tag("elem")
		if c, ok := tag("check"); ok {
			check, err := checkMethod(s.typ, c)
			if err != nil {
				fail("check %q: %v", c, err)
			}
			d.Check = check
		}
		if def, ok := tag("default"); ok {
			v, err := parseDefault(d, def)
			if err != nil {
				fail("default %q: %v", def, err)
			}
			d.Default = v
		} else if d.OmitDefault {
			fail("option omitdefault without a default tag")
		}
		s.Params = append(s.Params, d)
		s.fields = append(s.fields, path)
	}
}

// checkMethod returns the Decl.Check that calls t's method name on t's
// zero value: a method func(T) M(v any) error.
func checkMethod(t reflect.Type, name string) (func(v any) error, error) {
	m, ok := t.MethodByName(name)
	errType := reflect.TypeFor[error]()
	switch {
	case !ok:
		return nil, fmt.Errorf("%v has no method %s (a value receiver's, exported)", t, name)
	case m.Type.NumIn() != 2 || m.Type.In(1) != reflect.TypeFor[any]() || m.Type.NumOut() != 1 || m.Type.Out(0) != errType:
		return nil, fmt.Errorf("method %s is %v; want func(v any) error", name, m.Type)
	}
	zero := reflect.Zero(t)
	return func(v any) error {
		out := m.Func.Call([]reflect.Value{zero, reflect.ValueOf(&v).Elem()})
		err, _ := out[0].Interface().(error)
		return err
	}, nil
}

var goTypes = map[reflect.Type]Type{
	reflect.TypeFor[float64]():           Float,
	reflect.TypeFor[int]():               Int,
	reflect.TypeFor[bool]():              Bool,
	reflect.TypeFor[string]():            String,
	reflect.TypeFor[[]float64]():         FloatList,
	reflect.TypeFor[[]int]():             IntList,
	reflect.TypeFor[[]string]():          StringList,
	reflect.TypeFor[map[string]string](): Map,
}

// parseTag splits a struct tag into its key-value pairs in order, as
// reflect.StructTag.Lookup reads them, refusing what Lookup would skip.
func parseTag(tag reflect.StructTag) ([][2]string, error) {
	var out [][2]string
	s := string(tag)
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return out, nil
		}
		i := 0
		for i < len(s) && s[i] > ' ' && s[i] != ':' && s[i] != '"' && s[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(s) || s[i] != ':' || s[i+1] != '"' {
			return nil, fmt.Errorf("malformed tag %s; want key:\"value\" pairs separated by spaces", tag)
		}
		key := s[:i]
		s = s[i+1:]
		i = 1
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return nil, fmt.Errorf("malformed tag %s: unterminated value of %s", tag, key)
		}
		v, err := strconv.Unquote(s[:i+1])
		if err != nil {
			return nil, fmt.Errorf("malformed tag %s: value of %s: %v", tag, key, err)
		}
		for _, kv := range out {
			if kv[0] == key {
				return nil, fmt.Errorf("tag key %s given twice", key)
			}
		}
		out = append(out, [2]string{key, v})
		s = s[i+1:]
	}
}

// overrideDefaults sets the defaults of decls named in def, "name=value;
// name=value", each value written as a default tag.
func overrideDefaults(decls []Decl, def string) error {
	for _, kv := range strings.Split(def, ";") {
		name, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return fmt.Errorf("%q is not name=value", kv)
		}
		i := -1
		for j := range decls {
			if decls[j].Name == name {
				i = j
			}
		}
		if i < 0 {
			return fmt.Errorf("the embedded struct declares no parameter %q; want one of %s", name, strings.Join(Names(decls), ", "))
		}
		x, err := parseDefault(decls[i], v)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		decls[i].Default = x
	}
	return nil
}

// parseRange sets d's bounds from "[lo, hi)" and the like.
func parseRange(r string, d *Decl) error {
	if len(r) < 2 || !strings.ContainsAny(r[:1], "[(") || !strings.ContainsAny(r[len(r)-1:], "])") {
		return fmt.Errorf("want [lo, hi], (lo, hi), [lo, hi) or (lo, hi]")
	}
	lo, hi, ok := strings.Cut(r[1:len(r)-1], ",")
	if !ok {
		return fmt.Errorf("no comma; want [lo, hi]")
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	if lo != "-inf" {
		f, err := strconv.ParseFloat(lo, 64)
		if err != nil {
			return fmt.Errorf("lower bound %q is not a number or -inf", lo)
		}
		d.Min, d.MinExclusive = Bound(f), r[0] == '('
	} else if r[0] != '(' {
		return fmt.Errorf("-inf is an open bound; want (-inf")
	}
	if hi != "+inf" {
		f, err := strconv.ParseFloat(hi, 64)
		if err != nil {
			return fmt.Errorf("upper bound %q is not a number or +inf", hi)
		}
		d.Max, d.MaxExclusive = Bound(f), r[len(r)-1] == ')'
	} else if r[len(r)-1] != ')' {
		return fmt.Errorf("+inf is an open bound; want +inf)")
	}
	if d.Min != nil && d.Max != nil && *d.Min > *d.Max {
		return fmt.Errorf("empty range")
	}
	return nil
}

// parseDefault converts a default tag to d's Go type and checks it
// against d: a default must be a value the declaration accepts.
func parseDefault(d Decl, s string) (any, error) {
	var v any
	switch {
	case d.Type == Map:
		if s != "{}" {
			return nil, fmt.Errorf("a map's default is {}")
		}
		return map[string]string{}, nil
	case d.Type.IsList():
		if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
			return nil, fmt.Errorf("want a list [a b c]")
		}
		xs := []any{}
		for _, f := range strings.Fields(s[1 : len(s)-1]) {
			x, err := parseScalar(d.Type.Elem(), f)
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
		v = xs
	case s == "" && (d.Type == String || d.Type == Enum):
		v = ""
	default:
		x, err := parseScalar(d.Type, s)
		if err != nil {
			return nil, err
		}
		v = x
	}
	return d.Convert(v)
}

func parseScalar(t Type, s string) (any, error) {
	switch t {
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return f, nil
	case Int:
		i, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return i, nil
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil || s != "true" && s != "false" {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return b, nil
	}
	return s, nil
}

// Decode returns the T whose parameter fields hold the values of v: each
// declared parameter's value, or its default when v has none, converted
// and checked as Decl.Convert does; the values v holds besides the
// declared ones go to the free field. A missing required value, a value
// the declaration refuses or an undeclared value without a free field is
// an error naming the parameter.
func Decode[T any](v Values) (T, error) {
	var x T
	err := Of[T]().decode(reflect.ValueOf(&x).Elem(), v, false)
	return x, err
}

// DecodeLax is Decode for the hooks that check values which may have
// failed their declarations (a plugin's Validate): a missing value,
// required or not, leaves its field the zero value instead of failing.
func DecodeLax[T any](v Values) (T, error) {
	var x T
	err := Of[T]().decode(reflect.ValueOf(&x).Elem(), v, true)
	return x, err
}

// DecodeValid returns the T whose parameter fields hold the values of v
// that pass their declarations, each on its own; a missing value, or one
// its declaration refuses, leaves its field the zero value. It is for
// checks that read values before or beside validation (a spec as stored,
// or one whose other errors are reported elsewhere).
func DecodeValid[T any](v Values) T {
	valid := Values{}
	for k, x := range v {
		if _, err := DecodeLax[T](Values{k: x}); err == nil {
			valid[k] = x
		}
	}
	x, _ := DecodeLax[T](valid)
	return x
}

func (s *Struct) decode(x reflect.Value, v Values, lax bool) error {
	for i, d := range s.Params {
		val, ok := v[d.Name]
		switch {
		case !ok && lax:
			continue
		case !ok && d.Default == nil:
			return fmt.Errorf("missing required parameter %q", d.Name)
		case !ok:
			val = d.Default
		}
		out, err := d.Convert(untyped(val))
		if err != nil {
			return fmt.Errorf("parameter %q: %w", d.Name, err)
		}
		x.FieldByIndex(s.fields[i]).Set(reflect.ValueOf(out))
	}
	var free map[string]string
	for _, k := range v.Names() {
		if _, ok := Find(s.Params, k); ok {
			continue
		}
		if s.free == nil {
			return fmt.Errorf("unknown parameter %q", k)
		}
		out, err := s.Free.Convert(v[k])
		if err != nil {
			return fmt.Errorf("parameter %q: %w", k, err)
		}
		if free == nil {
			free = map[string]string{}
		}
		free[k] = out.(string)
	}
	if s.free != nil {
		x.FieldByIndex(s.free).Set(reflect.ValueOf(free))
	}
	return nil
}

// untyped returns a resolved list or map value as the []any or
// map[string]any Convert takes, so that what Decode sets is a copy (of a
// default, too); other values as they are.
func untyped(v any) any {
	switch x := v.(type) {
	case []float64:
		return toAny(x)
	case []int:
		return toAny(x)
	case []string:
		return toAny(x)
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	}
	return v
}

func toAny[E any](xs []E) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// Encode returns the Values of x, a struct or a pointer to one with
// parameter fields: every declared parameter and every entry of the free
// field. Decode of the result gives x back.
func Encode(x any) Values {
	rv := reflect.Indirect(reflect.ValueOf(x))
	s := structOf(rv.Type())
	out := Values{}
	for i, d := range s.Params {
		out[d.Name] = rv.FieldByIndex(s.fields[i]).Interface()
	}
	if s.free != nil {
		for k, e := range rv.FieldByIndex(s.free).Interface().(map[string]string) {
			out[k] = e
		}
	}
	return out
}

// SplitTag returns the key-value pairs of a struct tag in order, refusing
// a malformed tag or a key given twice: for the declarations other
// packages derive from struct tags in the form Of reads.
func SplitTag(tag reflect.StructTag) ([][2]string, error) { return parseTag(tag) }

// ParseRange sets d's bounds from a range tag as Of reads it: [0, +inf),
// (0, 1], (-inf, 10].
func ParseRange(r string, d *Decl) error { return parseRange(r, d) }

// ParseDefault converts a default tag, as Of reads it, to d's Go type and
// checks it against d.
func ParseDefault(d Decl, s string) (any, error) { return parseDefault(d, s) }
