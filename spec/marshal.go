package spec

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// resolvedHeader is the first line of a spec Marshal writes. A spec that
// starts with it was resolved from a file with its --set and smoke:
// assignments applied, so its curve.sizes may be a reduction the
// expectations were not written for (see checkExpectSizes).
const resolvedHeader = "# The resolved experiment: defaults filled in, every parameter written out.\n"

// Marshal returns the resolved spec as YAML: every field of the schema
// that has a value written out (defaults included), every plugin
// parameter written out in declaration order (a grid axis as a list,
// floats with a decimal point so that ReadSpec types them as written), so
// that Load and ReadSpec read it back to the same plan with the same trial
// keys. `repro run` stores it as DIR/spec.yaml, which `repro report` and
// `repro check` reload.
func (s *Spec) Marshal() ([]byte, error) {
	root, err := encodeSection(reflect.ValueOf(s).Elem(), schema(false))
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", s.Name, err)
	}
	root.Style = 0
	var buf bytes.Buffer
	buf.WriteString(resolvedHeader)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("spec %s: %w", s.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("spec %s: %w", s.Name, err)
	}
	return buf.Bytes(), nil
}

// encodeSection writes the struct v as the mapping sec declares: the
// generic inverse of decoder.section. A field is left out when it has the
// zero value and zero is not a value of its own (trials 0 of a spec built
// in code means unset; seed 0 is a seed); a tag left unset takes the
// section's default (split kind rest).
func encodeSection(v reflect.Value, sec param.Decl) (*yaml.Node, error) {
	n := mapNode()
	var plugin *param.Plugin
	if sec.Tag != "" {
		tv := fieldOf(v, sec.Tag)
		name := tv.String()
		if name == "" {
			def, _ := sec.Default.(map[string]any)
			name, _ = def[sec.Tag].(string)
		}
		add(n, sec.Tag, scalar(name))
		if sec.Plugin != nil {
			plugin, _ = sec.Plugin(name)
		}
	}
	var decls []param.Decl
	if plugin != nil {
		decls = plugin.Params
	}
	for _, decl := range sec.Fields {
		if decl.Name == sec.Tag {
			continue
		}
		fv := fieldOf(v, decl.Name)
		switch decl.Type {
		case param.Params:
			if decl.Grid {
				g, err := gridNode(v.Addr().Interface().(*MethodSpec), decls)
				if err != nil {
					return nil, err
				}
				if g != nil {
					add(n, decl.Name, g)
				}
			} else if vals := fv.Interface().(param.Values); len(vals) > 0 {
				own := decls
				if decl.Plugin != nil {
					if p, err := decl.Plugin(""); err == nil {
						own = p.Params
					}
				}
				add(n, decl.Name, valuesNode(vals, own))
			}
		case param.Section:
			sn, err := encodeSection(fv, decl)
			if err != nil {
				return nil, err
			}
			if sn.Kind == yaml.ScalarNode || len(sn.Content) > 0 {
				add(n, decl.Name, sn)
			}
		case param.SectionList:
			if fv.Len() == 0 {
				continue
			}
			list := seqNode(false)
			for i := 0; i < fv.Len(); i++ {
				e, err := encodeSection(fv.Index(i), decl)
				if err != nil {
					return nil, err
				}
				list.Content = append(list.Content, e)
			}
			add(n, decl.Name, list)
		default:
			if !omit(decl, fv) {
				add(n, decl.Name, fieldNode(fv))
			}
		}
	}
	if sec.Tag != "" && !hasParams(sec.Fields) {
		vals, _ := fieldOf(v, ",inline").Interface().(param.Values)
		for _, d := range valuesNode(vals, decls).Content {
			n.Content = append(n.Content, d)
		}
	}
	if !hasNested(n) {
		n.Style = yaml.FlowStyle
	}
	// A tagged section with nothing but its tag is written as the tag
	// alone: protocol: curve, split: rest.
	if sec.Tag != "" && sec.Type == param.Section && len(n.Content) == 2 {
		return n.Content[1], nil
	}
	return n, nil
}

// omit reports whether the field fv is left out of spec.yaml: it is
// empty, and empty is not a valid value different from the default.
func omit(decl param.Decl, fv reflect.Value) bool {
	if fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map {
		return fv.Len() == 0
	}
	if !fv.IsZero() {
		return false
	}
	if decl.Default == nil || fv.Kind() == reflect.Pointer {
		return true
	}
	var zero any = reflect.Zero(fv.Type()).Interface()
	if fv.Kind() == reflect.Uint64 {
		zero = 0
	}
	z, err := decl.Convert(zero)
	return err != nil || param.Format(z) == param.Format(normalize(decl))
}

// fieldNode writes the value of a spec field: as paramNode, but numbers
// as YAML writes them (the schema, not YAML, types them on reading).
func fieldNode(fv reflect.Value) *yaml.Node {
	if fv.Kind() == reflect.Pointer {
		fv = fv.Elem()
	}
	switch x := fv.Interface().(type) {
	case float64:
		return value(x)
	case []float64:
		n := seqNode(true)
		for _, f := range x {
			n.Content = append(n.Content, value(f))
		}
		return n
	}
	return paramNode(fv.Interface())
}

// gridNode writes a method's grid as its params: the axes recovered from
// the grid in declaration order (then any undeclared names sorted), after
// checking that their product is the grid. A list-typed value is written
// as a list of lists even when it is one value, so that ReadSpec, which
// has no declarations, reads a list as a grid axis.
func gridNode(m *MethodSpec, decls []param.Decl) (*yaml.Node, error) {
	if len(m.Grid) == 0 {
		return nil, fmt.Errorf("method %q: empty grid", m.Label)
	}
	names := param.Names(decls)
	var extra []string
	for k := range m.Grid[0] {
		if _, ok := param.Find(decls, k); !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)
	axes := map[string][]any{}
	var order []string
	for _, name := range names {
		seen := map[string]bool{}
		for _, g := range m.Grid {
			v, ok := g[name]
			if !ok {
				continue
			}
			if k := param.Format(v); !seen[k] {
				seen[k] = true
				axes[name] = append(axes[name], v)
			}
		}
		if len(axes[name]) > 0 {
			order = append(order, name)
		}
	}
	if !sameGrid(m.Grid, Product(order, axes)) {
		return nil, fmt.Errorf("method %q: its grid is not the cartesian product of its params in declaration order, so YAML cannot express it", m.Label)
	}
	if len(order) == 0 {
		return nil, nil
	}
	params := mapNode()
	for _, name := range order {
		vs := axes[name]
		if len(vs) == 1 && !isList(vs[0]) {
			add(params, name, paramNode(vs[0]))
			continue
		}
		list := seqNode(true)
		for _, v := range vs {
			list.Content = append(list.Content, paramNode(v))
		}
		add(params, name, list)
	}
	if len(params.Content) <= 8 && !hasNested(params) {
		params.Style = yaml.FlowStyle
	}
	return params, nil
}

func isList(v any) bool {
	switch v.(type) {
	case []float64, []int, []string:
		return true
	}
	return false
}

func hasNested(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode && (c.Kind == yaml.MappingNode || hasNested(c)) {
			return true
		}
	}
	return false
}

// Product returns the grid of the params named in order, each taking the
// values axes[name]: their cartesian product, the last name varying
// fastest, as MethodSpec.Grid holds it. With no names it is one empty
// point.
func Product(order []string, axes map[string][]any) []param.Values {
	grid := []param.Values{{}}
	for _, name := range order {
		var next []param.Values
		for _, g := range grid {
			for _, v := range axes[name] {
				c := g.Clone()
				c[name] = v
				next = append(next, c)
			}
		}
		grid = next
	}
	return grid
}

func sameGrid(a, b []param.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for k, v := range a[i] {
			w, ok := b[i][k]
			if !ok || param.Format(v) != param.Format(w) {
				return false
			}
		}
	}
	return true
}

// valuesNode writes resolved values in declaration order.
func valuesNode(v param.Values, decls []param.Decl) *yaml.Node {
	n := mapNode()
	n.Style = yaml.FlowStyle
	done := map[string]bool{}
	for _, d := range decls {
		if x, ok := v[d.Name]; ok {
			add(n, d.Name, paramNode(x))
			done[d.Name] = true
		}
	}
	for _, k := range v.Names() {
		if !done[k] {
			add(n, k, paramNode(v[k]))
		}
	}
	return n
}

// paramNode writes one resolved param value. Strings are quoted when YAML
// would read them as something else, and floats always have a decimal
// point or an exponent, so that YAML types every value as it was.
func paramNode(v any) *yaml.Node {
	switch x := v.(type) {
	case map[string]string:
		n := mapNode()
		n.Style = yaml.FlowStyle
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(n, k, scalar(x[k]))
		}
		return n
	case []string:
		n := seqNode(true)
		for _, s := range x {
			n.Content = append(n.Content, scalar(s))
		}
		return n
	case []float64:
		n := seqNode(true)
		for _, f := range x {
			n.Content = append(n.Content, floatNode(f))
		}
		return n
	case float64:
		return floatNode(x)
	case []int:
		n := seqNode(true)
		for _, i := range x {
			n.Content = append(n.Content, value(i))
		}
		return n
	case string:
		return scalar(x)
	}
	return value(v)
}

// floatNode writes f so that YAML reads it back as a float: 1 as 1.0.
func floatNode(f float64) *yaml.Node {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
}

func mapNode() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func seqNode(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, scalar(key), v)
}

// scalar is a string node; the encoder quotes it if needed.
func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// value encodes a number or bool.
func value(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return scalar(fmt.Sprint(v))
	}
	return &n
}
