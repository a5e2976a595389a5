package runner

import (
	"bytes"
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// Marshal returns the resolved spec as YAML: every default filled in, every
// plugin parameter written out (a grid axis as a list), so that Load reads it
// back to the same plan with the same trial keys. `repro run` stores it as
// DIR/spec.yaml, which `repro report` and `repro check` reload.
func (s *Spec) Marshal() ([]byte, error) {
	root := mapNode()
	add(root, "name", scalar(s.Name))
	if s.Description != "" {
		add(root, "description", scalar(s.Description))
	}
	add(root, "seed", value(s.Seed))

	dsList := seqNode(false)
	for i := range s.Datasets {
		n, err := marshalDataset(&s.Datasets[i])
		if err != nil {
			return nil, err
		}
		dsList.Content = append(dsList.Content, n)
	}
	add(root, "datasets", dsList)

	mList := seqNode(false)
	for i := range s.Methods {
		n, err := marshalMethod(&s.Methods[i])
		if err != nil {
			return nil, err
		}
		mList.Content = append(mList.Content, n)
	}
	add(root, "methods", mList)

	curve := mapNode()
	sizes := seqNode(true)
	for _, v := range s.Curve.Sizes {
		sizes.Content = append(sizes.Content, value(v))
	}
	add(curve, "sizes", sizes)
	trials := s.Curve.Trials
	if trials == 0 {
		trials = 1
	}
	add(curve, "trials", value(trials))
	sampling := s.Curve.Sampling
	if sampling == "" {
		sampling = string(datasets.Random)
	}
	add(curve, "sampling", scalar(sampling))
	curve.Style = yaml.FlowStyle
	add(root, "curve", curve)

	metrics := seqNode(true)
	for _, m := range s.Metrics {
		metrics.Content = append(metrics.Content, scalar(m))
	}
	add(root, "metrics", metrics)
	if s.Baseline != "" {
		add(root, "baseline", scalar(s.Baseline))
	}

	rep := mapNode()
	rep.Style = yaml.FlowStyle
	if s.Report.LogX {
		add(rep, "logx", value(true))
	}
	if s.Report.X != "" && s.Report.X != "size" {
		add(rep, "x", scalar(s.Report.X))
	}
	if s.Report.XTransform != "" {
		add(rep, "x_transform", scalar(s.Report.XTransform))
	}
	digits := s.Report.Digits
	if digits == 0 {
		digits = DefaultDigits
	}
	add(rep, "digits", value(digits))
	add(root, "report", rep)

	if len(s.Expect) > 0 {
		list := seqNode(false)
		for i := range s.Expect {
			list.Content = append(list.Content, marshalExpect(&s.Expect[i]))
		}
		add(root, "expect", list)
	}

	var buf bytes.Buffer
	buf.WriteString("# The resolved experiment: defaults filled in, every parameter written out.\n")
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

func marshalDataset(ds *DatasetSpec) (*yaml.Node, error) {
	n := mapNode()
	add(n, "name", scalar(ds.Name))
	if ds.ID != "" && ds.ID != ds.Name {
		add(n, "id", scalar(ds.ID))
	}
	var decls []param.Decl
	if l, err := datasets.Lookup(ds.Name); err == nil {
		decls = l.Params
	}
	if len(ds.Params) > 0 {
		add(n, "params", valuesNode(ds.Params, decls))
	}
	if len(ds.Transforms) > 0 {
		list := seqNode(false)
		for _, t := range ds.Transforms {
			tn := mapNode()
			tn.Style = yaml.FlowStyle
			add(tn, "name", scalar(t.Name))
			var tdecls []param.Decl
			if tr, err := datasets.LookupTransform(t.Name); err == nil {
				tdecls = tr.Params
			}
			if len(t.Params) > 0 {
				add(tn, "params", valuesNode(t.Params, tdecls))
			}
			list.Content = append(list.Content, tn)
		}
		add(n, "transforms", list)
	}
	split := mapNode()
	split.Style = yaml.FlowStyle
	kind := ds.Split.KindName()
	add(split, "kind", scalar(kind))
	if kind == "holdout" {
		add(split, "test", value(ds.Split.Params.Float("test")))
		if ds.Split.Params.Bool("stratify") {
			add(split, "stratify", value(true))
		}
	}
	add(n, "split", split)
	if ds.Tasks != "" {
		add(n, "tasks", scalar(ds.Tasks))
	}
	return n, nil
}

func marshalMethod(m *MethodSpec) (*yaml.Node, error) {
	n := mapNode()
	add(n, "name", scalar(m.Name))
	if m.Label != "" && m.Label != m.Name {
		add(n, "label", scalar(m.Label))
	}
	if len(m.Grid) == 0 {
		return nil, fmt.Errorf("method %q: empty grid", m.Label)
	}
	var decls []param.Decl
	if p, err := methods.Lookup(m.Name); err == nil {
		decls = p.Params
	}
	// Recover the axes from the grid, in declaration order (then any
	// undeclared names sorted), and check that their product is the grid.
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
	if !sameGrid(m.Grid, expand(order, axes)) {
		return nil, fmt.Errorf("method %q: its grid is not the cartesian product of its params in declaration order, so YAML cannot express it", m.Label)
	}
	if len(order) > 0 {
		params := mapNode()
		for _, name := range order {
			decl, _ := param.Find(decls, name)
			vs := axes[name]
			if len(vs) == 1 {
				add(params, name, paramNode(vs[0], decl))
				continue
			}
			list := seqNode(true)
			for _, v := range vs {
				list.Content = append(list.Content, paramNode(v, decl))
			}
			add(params, name, list)
		}
		if len(params.Content) <= 8 && !hasNested(params) {
			params.Style = yaml.FlowStyle
		}
		add(n, "params", params)
	}
	sel := mapNode()
	sel.Style = yaml.FlowStyle
	rule := m.Select.RuleName()
	add(sel, "rule", scalar(rule))
	if rule == "cv" {
		add(sel, "folds", value(m.Select.Folds))
	}
	if rule != "fixed" && m.Select.Metric != "" {
		add(sel, "metric", scalar(m.Select.Metric))
	}
	if len(m.Select.Over) > 0 {
		over := seqNode(true)
		for _, v := range m.Select.Over {
			over.Content = append(over.Content, scalar(v))
		}
		add(sel, "over", over)
	}
	add(n, "select", sel)
	return n, nil
}

func hasNested(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode && (c.Kind == yaml.MappingNode || hasNested(c)) {
			return true
		}
	}
	return false
}

// expand is the cartesian product of axes in order, last fastest.
func expand(order []string, axes map[string][]any) []param.Values {
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

func marshalExpect(x *Expectation) *yaml.Node {
	n := mapNode()
	n.Style = yaml.FlowStyle
	if x.Dataset != "" {
		add(n, "dataset", scalar(x.Dataset))
	}
	add(n, "metric", scalar(x.Metric))
	if x.Method != "" {
		add(n, "method", scalar(x.Method))
	}
	if x.Better != "" || x.Than != "" {
		add(n, "better", scalar(x.Better))
		add(n, "than", scalar(x.Than))
		if x.By != 0 {
			add(n, "by", value(x.By))
		}
		if x.Within != nil {
			add(n, "within", value(*x.Within))
		}
	}
	if len(x.Sizes) > 0 {
		sizes := seqNode(true)
		for _, v := range x.Sizes {
			sizes.Content = append(sizes.Content, value(v))
		}
		add(n, "sizes", sizes)
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"value", x.Value}, {"tol", x.Tol}, {"rtol", x.RTol}, {"min", x.Min}, {"max", x.Max}} {
		if f.v != nil {
			add(n, f.key, value(*f.v))
		}
	}
	if x.Source != "" {
		add(n, "source", scalar(x.Source))
	}
	if x.Note != "" {
		add(n, "note", scalar(x.Note))
	}
	return n
}

// valuesNode writes resolved values in declaration order.
func valuesNode(v param.Values, decls []param.Decl) *yaml.Node {
	n := mapNode()
	n.Style = yaml.FlowStyle
	done := map[string]bool{}
	for _, d := range decls {
		if x, ok := v[d.Name]; ok {
			add(n, d.Name, paramNode(x, d))
			done[d.Name] = true
		}
	}
	for _, k := range v.Names() {
		if !done[k] {
			add(n, k, paramNode(v[k], param.Decl{}))
		}
	}
	return n
}

// paramNode writes one resolved param value. Strings are always quoted
// when YAML would read them as something else.
func paramNode(v any, decl param.Decl) *yaml.Node {
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
			n.Content = append(n.Content, value(f))
		}
		return n
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
