package spec

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// The spec's sections are declared once, by the Go types that hold them
// (Spec, DatasetSpec, MethodSpec, …): sectionOf derives the param.Decl
// tree that the decoder walks, Marshal writes back and docs/spec.md
// tabulates from their fields. A field is a key of its section when its
// yaml tag names one; the Go type gives the shape:
//
//	string                        String (Enum with an enum tag)
//	int, uint64, *int             Int
//	float64, *float64             Float
//	bool                          Bool
//	[]string, []float64, []int    StringList, FloatList, IntList
//	map[string]string             Map
//	param.Values, map[string]any  Params (the plugin's parameters)
//	a struct, a slice of structs  Section, SectionList of its fields
//
// The other tag keys declare the rest, as param.Of reads them for a
// plugin's parameters (range, default, enum, elem):
//
//	spec     options: optional, nonempty, unique, grid (a Params field
//	         whose values may be lists), tag (the field whose value
//	         names the section's plugin, Decl.Tag)
//	default  the default; a section's is a YAML mapping ({kind: rest})
//	range    numeric bounds, [0, +inf); a bound or default may name a
//	         constant of tagConsts (maxTrials)
//	enum     the choices of a string, separated by |
//	elem     the word for one value in messages (Decl.Elem)
//	want     what a missing value should be (Decl.Want)
//	check    a check of checks (Decl.Check)
//	hook     a hook of hooks: what only the registries know (the
//	         registered names a field takes, the plugin a tag looks up)
//
// The doc comment of the field is its documentation: the first paragraph
// is Decl.Doc, a paragraph "Default: …" is Decl.DefaultDoc (the default in
// words, when it is not a constant), other paragraphs are about the Go
// field alone. (Not a doc tag, as plugins' one-line docs are: the spec's
// are paragraphs of Markdown whose code spans no raw struct tag can
// hold.) fieldDocs holds them, generated from the source by
// `go test ./spec -run TestFieldDocs -update` (which fails when they
// differ).
// A malformed tag is a programming error: sectionOf panics, naming the
// type and the field, and every test that reads a spec fails.

// fieldDoc is the documentation of a field of the spec: Decl.Doc and
// Decl.DefaultDoc.
type fieldDoc struct{ doc, def string }

// specTags are the tag keys of the spec's types (json is Select's own).
var specTags = []string{"yaml", "json", "spec", "default", "range", "enum", "elem", "want", "check", "hook"}

// sectionOf derives the declaration of the section whose Go type is t:
// a Section with a field for each of t's keys. With free, hooks leave
// plugin and metric names unchecked (see hooks).
func sectionOf(t reflect.Type, free bool) param.Decl {
	sec := param.Decl{Type: param.Section}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		d, tag, ok := declOf(t, f, free)
		if !ok {
			continue
		}
		if tag {
			if sec.Tag != "" {
				panic(fmt.Sprintf("spec: %v.%s: a second tag field", t, f.Name))
			}
			sec.Tag = d.Name
		}
		sec.Fields = append(sec.Fields, d)
	}
	return sec
}

// declOf derives the declaration of the field f of t, and whether it is
// the section's tag; ok is false for a field that is no key (yaml:"-",
// an inline plugin's params).
func declOf(t reflect.Type, f reflect.StructField, free bool) (d param.Decl, tag, ok bool) {
	yamlTag, has := f.Tag.Lookup("yaml")
	name, _, _ := strings.Cut(yamlTag, ",")
	if !has || name == "" || name == "-" {
		return d, false, false
	}
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("spec: %v.%s: %s", t, f.Name, fmt.Sprintf(format, args...)))
	}
	tags, err := param.SplitTag(f.Tag)
	if err != nil {
		fail("%v", err)
	}
	get := func(k string) (string, bool) {
		for _, kv := range tags {
			if kv[0] == k {
				return kv[1], true
			}
		}
		return "", false
	}
	for _, kv := range tags {
		if !slices.Contains(specTags, kv[0]) {
			fail("unknown tag key %q; want one of %s", kv[0], strings.Join(specTags, ", "))
		}
	}
	d.Name = name
	d.Type = typeOf(f.Type)
	if d.Type < 0 {
		fail("unsupported type %v", f.Type)
	}
	if opts, ok := get("spec"); ok {
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "optional":
				d.Optional = true
			case "nonempty":
				d.NonEmpty = true
			case "unique":
				d.Unique = true
			case "grid":
				d.Grid = true
			case "tag":
				tag = true
			default:
				fail("unknown spec option %q; want optional, nonempty, unique, grid or tag", o)
			}
		}
	}
	if e, ok := get("enum"); ok {
		d.Type, d.Choices = param.Enum, strings.Split(e, "|")
	}
	if r, ok := get("range"); ok {
		if err := param.ParseRange(withConsts(r), &d); err != nil {
			fail("range %q: %v", r, err)
		}
	}
	d.Elem, _ = get("elem")
	d.Want, _ = get("want")
	if c, ok := get("check"); ok {
		if d.Check = checks[c]; d.Check == nil {
			fail("no check %q", c)
		}
	}
	doc, ok := fieldDocs[t.Name()+"."+f.Name]
	if !ok {
		fail("no doc comment (or fieldDocs is stale: go test ./spec -run TestFieldDocs -update)")
	}
	d.Doc, d.DefaultDoc = doc.doc, doc.def
	if d.IsSection() {
		et := f.Type
		if et.Kind() == reflect.Slice {
			et = et.Elem()
		}
		sub := sectionOf(et, free)
		d.Fields, d.Tag = sub.Fields, sub.Tag
	}
	if h, ok := get("hook"); ok {
		hook := hooks[h]
		if hook == nil {
			fail("no hook %q", h)
		}
		hook(&d, free)
	}
	if def, ok := get("default"); ok {
		if d.IsSection() {
			m, err := sectionDefault(def)
			if err != nil || d.Type != param.Section {
				fail("default %q: want a mapping {key: value} on a section", def)
			}
			for k, v := range m {
				kf, ok := param.Find(d.Fields, k)
				if !ok {
					fail("default %q: no key %s", def, k)
				}
				if s, _ := v.(string); len(kf.Choices) > 0 && !slices.Contains(kf.Choices, s) {
					fail("default %q: %v is not one of %s", def, v, strings.Join(kf.Choices, ", "))
				}
			}
			d.Default = m
		} else {
			v, err := param.ParseDefault(d, withConsts(def))
			if err != nil {
				fail("default %q: %v", def, err)
			}
			d.Default = v
		}
	}
	return d, tag, true
}

var (
	valuesType = reflect.TypeFor[param.Values]()
	writtenMap = reflect.TypeFor[map[string]any]()
)

// typeOf returns the param.Type of a field of Go type t, or -1.
func typeOf(t reflect.Type) param.Type {
	switch t {
	case valuesType, writtenMap:
		return param.Params
	case reflect.TypeFor[[]string]():
		return param.StringList
	case reflect.TypeFor[[]float64]():
		return param.FloatList
	case reflect.TypeFor[[]int]():
		return param.IntList
	case reflect.TypeFor[map[string]string]():
		return param.Map
	}
	switch t.Kind() {
	case reflect.String:
		return param.String
	case reflect.Int, reflect.Uint64:
		return param.Int
	case reflect.Float64:
		return param.Float
	case reflect.Bool:
		return param.Bool
	case reflect.Pointer:
		if k := t.Elem().Kind(); k == reflect.Int || k == reflect.Float64 {
			return typeOf(t.Elem())
		}
	case reflect.Struct:
		return param.Section
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return param.SectionList
		}
	}
	return -1
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// withConsts replaces the names of tagConsts in a range or default tag by
// their values.
func withConsts(s string) string {
	return identRE.ReplaceAllStringFunc(s, func(w string) string {
		if v, ok := tagConsts[w]; ok {
			return v
		}
		return w
	})
}

// sectionDefault reads the default tag of a section, a YAML mapping.
func sectionDefault(tag string) (map[string]any, error) {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(tag), &m); err != nil || m == nil {
		return nil, fmt.Errorf("not a mapping")
	}
	return m, nil
}

// defaultOf returns the default of the key key of the section field of T,
// from its default tag: the value a spec built in code has when it leaves
// the section's key unset.
func defaultOf[T any](field, key string) string {
	f, _ := reflect.TypeFor[T]().FieldByName(field)
	m, err := sectionDefault(f.Tag.Get("default"))
	s, _ := m[key].(string)
	if err != nil || s == "" {
		panic(fmt.Sprintf("spec: %v.%s: no default %s", reflect.TypeFor[T](), field, key))
	}
	return s
}
