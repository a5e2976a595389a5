package spec

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// checker is implemented by the spec's structs that relate their fields
// to each other (a label defaulting to the name, a select rule's metric
// defaulting to the first of metrics). The walk calls check after
// decoding a struct's fields, with the mapping's nodes for positions;
// check returns false to drop a list entry.
type checker interface {
	check(d *decoder, f *fields, path string) bool
}

// spec decodes the root node.
func (d *decoder) spec(root *yaml.Node) *Spec {
	s := &Spec{File: d.file, places: d.places}
	d.root = s
	d.section(root, root, "", schema(d.free), reflect.ValueOf(s).Elem())
	return s
}

// section decodes the mapping n against sec into the struct v: every field
// of sec.Fields, and the params of the plugin sec.Tag names, each checked
// and defaulted by its declaration. owner locates errors about a missing
// mapping. It returns the mapping's fields (nil if n is not a mapping)
// and whether the struct is usable: false if n is not a mapping, its tag
// failed or its check dropped it.
func (d *decoder) section(n, owner *yaml.Node, path string, sec param.Decl, v reflect.Value) (*fields, bool) {
	n = d.resolve(n)
	if isNull(n) && sec.Default != nil {
		n = defaultNode(sec.Default)
	}
	var f *fields
	if sec.Tag != "" && n != nil && n.Kind == yaml.ScalarNode && !isNull(n) {
		// protocol: active is short for protocol: {name: active}.
		f = &fields{node: n, path: path, vals: map[string]*yaml.Node{sec.Tag: n}, keys: map[string]*yaml.Node{sec.Tag: n}}
	} else if f = d.mapping(n, path, param.Names(sec.Fields)); f == nil {
		return nil, false
	}
	if isNull(f.node) {
		f.node = owner
	}
	d.place(path, f.node)
	ok := true
	var plugin *param.Plugin
	if sec.Tag != "" {
		tag, _ := param.Find(sec.Fields, sec.Tag)
		ok = d.field(f, path, tag, v)
		if ok && sec.Plugin != nil {
			p, err := sec.Plugin(fieldOf(v, sec.Tag).String())
			if err != nil {
				d.errorf(f.get(d, sec.Tag), Sub(path, sec.Tag), "%v", err)
				ok = false
			}
			plugin = p
		}
	}
	inline := sec.Tag != "" && !hasParams(sec.Fields)
	d.unknownFields(f, path, sec, plugin, inline, ok)
	for _, decl := range sec.Fields {
		switch {
		case decl.Name == sec.Tag:
		case decl.Type == param.Params && decl.Plugin != nil:
			// Params of their own plugin (a method's protocol
			// overrides), not of the section's tag.
			own, err := decl.Plugin("")
			if err != nil {
				panic(fmt.Sprintf("runner: params %s: %v", Sub(path, decl.Name), err))
			}
			d.pluginParams(f, path, decl, own, true, v, decl.Name)
		case decl.Type == param.Params:
			d.pluginParams(f, path, decl, plugin, ok, v, sec.ElemName())
		default:
			d.field(f, path, decl, v)
		}
	}
	if inline && plugin != nil {
		tag := fieldOf(v, sec.Tag).String()
		vals, _ := d.fixedParams(f, f.node, path, plugin.Params, sec.ElemName(), fmt.Sprintf("missing for %s %s", sec.Tag, tag))
		fieldOf(v, ",inline").Set(reflect.ValueOf(vals))
	}
	if pos := v.FieldByName("Pos"); pos.IsValid() {
		pos.Set(reflect.ValueOf(posOf(f.node)))
	}
	f.value = v
	if c, is := v.Addr().Interface().(checker); is && ok {
		ok = c.check(d, f, path)
	}
	return f, ok
}

// unknownFields reports the keys of f that sec does not declare, and
// drops them. An inline plugin's keys are known only once its tag is: a
// key that another plugin of the tag declares is "only used by" it.
func (d *decoder) unknownFields(f *fields, path string, sec param.Decl, plugin *param.Plugin, inline, tagOK bool) {
	known := param.Names(sec.Fields)
	if inline && plugin != nil {
		known = append(known, param.Names(plugin.Params)...)
	}
	for _, k := range sortedKeys(f.keys) {
		if contains(known, k) {
			continue
		}
		at := f.vals[k]
		delete(f.vals, k)
		if inline && !tagOK {
			continue // the tag's error says it all
		}
		if inline && sec.Plugin != nil {
			tag, _ := param.Find(sec.Fields, sec.Tag)
			var users []string
			for _, c := range tag.Choices {
				if p, err := sec.Plugin(c); err == nil && p != nil {
					if _, ok := param.Find(p.Params, k); ok {
						users = append(users, c)
					}
				}
			}
			if len(users) > 0 {
				d.errorf(at, Sub(path, k), "only used by %s %s, not %s; want no %s", sec.Tag, strings.Join(users, ", "), f.value0(d, sec.Tag), k)
				continue
			}
		}
		msg := "unknown field"
		if s := param.Closest(k, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		d.errorf(f.keys[k], Sub(path, k), "%s; want one of %s", msg, strings.Join(known, ", "))
	}
}

// value0 returns the text of the scalar under key, for messages.
func (f *fields) value0(d *decoder, key string) string {
	if n := f.get(d, key); n != nil {
		return n.Value
	}
	return ""
}

func hasParams(decls []param.Decl) bool {
	for _, d := range decls {
		if d.Type == param.Params {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]*yaml.Node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// field decodes the field decl of f into its struct field of v: the
// value, or when absent its default (a section absent is decoded as its
// Default, or as an empty mapping so that its own defaults fill). It
// reports whether the value is usable.
func (d *decoder) field(f *fields, path string, decl param.Decl, v reflect.Value) bool {
	fv := fieldOf(v, decl.Name)
	p := Sub(path, decl.Name)
	n := f.get(d, decl.Name)
	if n == nil {
		switch {
		case decl.Type == param.Section:
			sf, ok := d.section(nil, f.node, p, decl, fv)
			f.setSub(decl.Name, sf)
			return ok
		case decl.Required():
			d.errorf(f.node, p, "missing; want %s", want(decl))
			return false
		case decl.Default != nil:
			v, err := decl.Convert(decl.Default)
			if err != nil {
				panic(fmt.Sprintf("runner: default of %s: %v", p, err))
			}
			setField(fv, v)
		}
		return true
	}
	switch decl.Type {
	case param.Section:
		sf, ok := d.section(n, f.node, p, decl, fv)
		f.setSub(decl.Name, sf)
		return ok
	case param.SectionList:
		return d.sectionList(n, p, decl, fv)
	case param.FloatList, param.IntList, param.StringList:
		return d.list(n, p, decl, fv)
	}
	x, ok := d.value(n, p, decl)
	if ok {
		setField(fv, x)
	}
	return ok
}

// want says what a missing value should be.
func want(decl param.Decl) string {
	if decl.Want != "" {
		return decl.Want
	}
	if decl.Doc == "" {
		return decl.Range()
	}
	return decl.Range() + " (" + decl.Doc + ")"
}

// sectionList decodes a list of mappings; entries that fail their tag or
// check are reported and left out.
func (d *decoder) sectionList(n *yaml.Node, path string, decl param.Decl, fv reflect.Value) bool {
	list, ok := d.elements(n, path, decl)
	if !ok {
		return false
	}
	out := reflect.MakeSlice(fv.Type(), 0, len(list))
	for i, e := range list {
		ev := reflect.New(fv.Type().Elem()).Elem()
		if _, ok := d.section(e, e, Index(path, i), decl, ev); ok {
			out = reflect.Append(out, ev)
		}
	}
	fv.Set(out)
	return true
}

// list decodes a list of scalars of the spec; each element is checked on
// its own and reported at its own position.
func (d *decoder) list(n *yaml.Node, path string, decl param.Decl, fv reflect.Value) bool {
	list, ok := d.elements(n, path, decl)
	if !ok {
		return false
	}
	elem := decl
	elem.Type = decl.Type.Elem()
	if elem.Type == param.String && len(decl.Choices) > 0 {
		elem.Type = param.Enum
	}
	out := reflect.MakeSlice(fv.Type(), 0, len(list))
	seen := map[string]bool{}
	good := true
	for i, e := range list {
		x, ok := d.value(e, Index(path, i), elem)
		if !ok {
			good = false
			continue
		}
		if decl.Unique {
			k := param.Format(x)
			if seen[k] {
				d.errorf(e, Index(path, i), "duplicate %s %s; want each %s once", decl.ElemName(), kindName(e), decl.ElemName())
				good = false
				continue
			}
			seen[k] = true
		}
		out = reflect.Append(out, reflect.ValueOf(x))
	}
	fv.Set(out)
	return good
}

// elements returns the elements of the list n, reporting an empty one
// when decl wants at least one.
func (d *decoder) elements(n *yaml.Node, path string, decl param.Decl) ([]*yaml.Node, bool) {
	list, ok := d.sequence(n, path, decl.ElemName()+"s")
	if ok && len(list) == 0 && decl.NonEmpty {
		d.errorf(n, path, "empty list; want at least one %s", decl.ElemName())
	}
	return list, ok
}

// value decodes one scalar with decl: type, range, choices and Check.
func (d *decoder) value(n *yaml.Node, path string, decl param.Decl) (any, bool) {
	d.place(path, n)
	check := decl.Check
	decl.Check = nil
	v, ok := d.paramValue(n, path, decl)
	if ok && check != nil {
		if err := check(v); err != nil {
			d.errorf(n, path, "%s %v", literal(n), err)
			return nil, false
		}
	}
	return v, ok
}

// literal is a scalar as written, quoted if it is a string.
func literal(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!str" {
		return param.Clip(n.Value)
	}
	return kindName(n)
}

// fieldOf returns the field of struct v whose yaml tag names key (",inline"
// for a section's inline plugin params). A declaration without its field
// is a programming error.
func fieldOf(v reflect.Value, key string) reflect.Value {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		if name, _, _ := strings.Cut(tag, ","); name == key && name != "" || key == ",inline" && strings.HasSuffix(tag, ",inline") {
			return v.Field(i)
		}
	}
	panic(fmt.Sprintf("runner: %s has no field for %q", t, key))
}

// setField stores a converted value x in the struct field fv.
func setField(fv reflect.Value, x any) {
	switch fv.Kind() {
	case reflect.Uint64:
		fv.SetUint(uint64(x.(int)))
	case reflect.Pointer:
		p := reflect.New(fv.Type().Elem())
		p.Elem().Set(reflect.ValueOf(x))
		fv.Set(p)
	default:
		fv.Set(reflect.ValueOf(x).Convert(fv.Type()))
	}
}

// defaultNode builds the YAML of a section's default value.
func defaultNode(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		panic("runner: default section: " + err.Error())
	}
	return &n
}

// axes are a plugin's params as decoded: each given param's values (one,
// or a grid axis), with the node and path of each value for errors.
type axes struct {
	vals    map[string][]any
	nodes   map[string][]*yaml.Node
	paths   map[string][]string
	written map[string]any // as given: a value, or a []any for a grid axis
}

// pluginParams decodes the Params field decl of f with the declarations
// of plugin: fixed values, or a grid when decl.Grid. Without a plugin
// (its name failed) the params are only checked to be a mapping; in the
// registry-free mode of ReadSpec they are taken as written.
func (d *decoder) pluginParams(f *fields, path string, decl param.Decl, plugin *param.Plugin, tagOK bool, v reflect.Value, what string) {
	p := Sub(path, decl.Name)
	n := f.get(d, decl.Name)
	if plugin == nil {
		switch {
		case d.free && tagOK:
			d.writtenParams(n, p, decl, v)
		case n != nil:
			d.mapping(n, p, nil)
		}
		return
	}
	pf := d.mapping(n, p, paramKeys(plugin.Params))
	if pf == nil {
		return
	}
	plugin = plugin.WithFree(sortedKeys(pf.keys))
	d.unknownParams(pf, p, plugin.Params)
	if decl.Grid {
		d.gridParams(v.Addr().Interface().(gridHolder), pf, f.node, p, plugin)
		return
	}
	errs := len(d.errs)
	vals, ax := d.fixedParams(pf, f.node, p, plugin.Params, what, "missing required parameter")
	fieldOf(v, decl.Name).Set(reflect.ValueOf(vals))
	if plugin.Validate != nil && len(d.errs) == errs {
		d.validate(plugin.Validate(vals), pf, f.node, p, func(name string) (*yaml.Node, string) {
			if ns := ax.nodes[name]; len(ns) > 0 {
				return ns[0], ax.paths[name][0]
			}
			return nil, ""
		})
	}
}

// paramKeys names a plugin's params for the message about params that
// are not a mapping.
func paramKeys(decls []param.Decl) []string {
	if len(decls) == 0 {
		return []string{""} // mapping says "an empty mapping"
	}
	return param.Names(decls)
}

// unknownParams reports the keys of a params mapping that decls do not
// declare.
func (d *decoder) unknownParams(pf *fields, path string, decls []param.Decl) {
	names := param.Names(decls)
	for _, k := range sortedKeys(pf.keys) {
		if contains(names, k) {
			continue
		}
		msg := fmt.Sprintf("unknown parameter %s", param.Quote(k))
		if s := param.Closest(k, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		if len(names) == 0 {
			d.errorf(pf.keys[k], Sub(path, k), "%s; want no params (the plugin has none)", msg)
		} else {
			d.errorf(pf.keys[k], Sub(path, k), "%s; want one of %s", msg, strings.Join(names, ", "))
		}
	}
}

// fixedParams decodes params that cannot be grids (a dataset's, a
// transform's, a split's): defaults filled, required ones checked, a
// missing one reported as missing at the mapping (or owner, when the
// mapping is absent). what names the plugin kind in the message about a
// grid.
func (d *decoder) fixedParams(pf *fields, owner *yaml.Node, path string, decls []param.Decl, what, missing string) (param.Values, axes) {
	ax := d.params(pf, path, decls, false, what)
	out := param.Values{}
	for _, decl := range decls {
		if vs, ok := ax.vals[decl.Name]; ok {
			out[decl.Name] = vs[0]
		} else if decl.Default != nil {
			out[decl.Name] = normalize(decl)
		}
	}
	d.required(pf, owner, path, decls, out, missing)
	return out, ax
}

// required reports the required params that have no value.
func (d *decoder) required(pf *fields, owner *yaml.Node, path string, decls []param.Decl, have param.Values, missing string) {
	for _, decl := range decls {
		// A key written with a bad value has its own error: it is not
		// also missing.
		if _, ok := have[decl.Name]; !ok && decl.Required() && pf.vals[decl.Name] == nil {
			at := pf.node
			if isNull(at) {
				at = owner
			}
			d.errorf(at, Sub(path, decl.Name), "%s; want %s (%s)", missing, decl.Range(), decl.Doc)
		}
	}
}

// normalize converts a plugin's declared default to the declared Go type
// (a Default of 1 for a float param becomes 1.0).
func normalize(decl param.Decl) any {
	if c, err := decl.Convert(decl.Default); err == nil {
		return c
	}
	return decl.Default
}

// gridHolder is the struct a grid of params decodes into (MethodSpec).
type gridHolder interface {
	setGrid(grid []param.Values, varying []string, written map[string]any)
}

func (m *MethodSpec) setGrid(grid []param.Values, varying []string, written map[string]any) {
	m.Grid, m.Varying, m.Params = grid, varying, written
}

// gridParams decodes a method's params into its grid, and checks every
// grid point with the plugin's Validate hook.
func (d *decoder) gridParams(m gridHolder, pf *fields, owner *yaml.Node, path string, p *param.Plugin) {
	ax := d.params(pf, path, p.Params, true, "method")
	have := param.Values{}
	for k := range ax.vals {
		have[k] = true
	}
	for _, decl := range p.Params {
		if decl.Default != nil {
			have[decl.Name] = true
		}
	}
	d.required(pf, owner, path, p.Params, have, "missing required parameter")
	// The grid: declaration order, last varying fastest.
	var order []string
	vals := map[string][]any{}
	size := 1
	var varying []string
	for _, decl := range p.Params {
		vs, ok := ax.vals[decl.Name]
		if !ok {
			if decl.Default == nil {
				continue // reported as missing
			}
			vs = []any{normalize(decl)}
		}
		if size > maxGrid/len(vs) {
			d.errorf(pf.node, path, "the grid has more than %d points; want a smaller grid", maxGrid)
			return
		}
		size *= len(vs)
		if len(vs) > 1 {
			varying = append(varying, decl.Name)
		}
		order = append(order, decl.Name)
		vals[decl.Name] = vs
	}
	grid := Product(order, vals)
	m.setGrid(grid, varying, ax.written)
	// A value that failed its declaration is not on the grid, so the
	// hook still sees every other grid point (rho: [0.5, 0] with a bad
	// kernel reports both); only a missing required param stops it.
	if p.Validate == nil || len(order) < len(p.Params) && missingRequired(p.Params, vals) {
		return
	}

	for g, point := range grid {
		// The index of each param's value at point g: last fastest.
		at := map[string]int{}
		for i, r := len(order)-1, g; i >= 0; i-- {
			n := len(vals[order[i]])
			at[order[i]] = r % n
			r /= n
		}
		d.validate(safeValidate(p.Validate, point), pf, owner, path, func(name string) (*yaml.Node, string) {
			if ns := ax.nodes[name]; len(ns) > at[name] {
				return ns[at[name]], ax.paths[name][at[name]]
			}
			return nil, ""
		})
	}
}

// missingRequired reports whether a declared param without a default has
// no value.
func missingRequired(decls []param.Decl, vals map[string][]any) bool {
	for _, decl := range decls {
		if _, ok := vals[decl.Name]; !ok && decl.Default == nil {
			return true
		}
	}
	return false
}

// safeValidate calls a plugin's Validate hook, turning a panic into an
// error: a spec must get a message, never a crash.
func safeValidate(validate func(param.Values) error, point param.Values) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the plugin's Validate hook panicked: %v", r)
		}
	}()
	return validate(point)
}

// validate reports what a plugin's Validate hook returned: each
// *param.InvalidError (errors.Join'ed ones each on its own) at the node
// of its param's value, or with Elem ≥ 0 of that list element; any other
// error at the params mapping. Equal reports (the same value at many grid
// points) are made once.
func (d *decoder) validate(err error, pf *fields, owner *yaml.Node, path string, node func(name string) (*yaml.Node, string)) {
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			d.validate(e, pf, owner, path, node)
		}
		return
	}
	at, p := pf.node, path
	if isNull(at) {
		at = owner
	}
	msg := err.Error()
	var ie *param.InvalidError
	if errors.As(err, &ie) {
		msg = ie.Err.Error()
		p = Sub(path, ie.Param)
		if n, np := node(ie.Param); n != nil {
			at, p = n, np
			if ie.Elem >= 0 {
				p = Index(p, ie.Elem)
				if n = d.resolve(n); n != nil && n.Kind == yaml.SequenceNode && ie.Elem < len(n.Content) {
					at = n.Content[ie.Elem]
				}
			}
		} else if ie.Elem >= 0 {
			p = Index(p, ie.Elem)
		}
	}
	key := fmt.Sprintf("%p %s %s", at, p, msg)
	if d.reported[key] {
		return
	}
	d.reported[key] = true
	d.errorf(at, p, "%s", msg)
}

// params decodes a params mapping against decls. Each value becomes an
// axis: one value, or (with grid) the values of a list for a scalar-typed
// param or a list of lists for a list-typed one. Keys decls does not
// declare are skipped (reported by the caller).
func (d *decoder) params(pf *fields, path string, decls []param.Decl, grid bool, what string) axes {
	ax := axes{vals: map[string][]any{}, nodes: map[string][]*yaml.Node{}, paths: map[string][]string{}}
	put := func(name string, v any, n *yaml.Node, p string) {
		ax.vals[name] = append(ax.vals[name], v)
		ax.nodes[name] = append(ax.nodes[name], n)
		ax.paths[name] = append(ax.paths[name], p)
	}
	for _, decl := range decls {
		vn, present := pf.vals[decl.Name]
		if !present {
			continue
		}
		p := Sub(path, decl.Name)
		vn = d.resolve(vn)
		if vn == nil {
			continue
		}
		isGrid := false
		if vn.Kind == yaml.SequenceNode {
			if decl.Type.IsList() {
				// A list of lists is a grid of list values.
				isGrid = len(vn.Content) > 0
				for _, e := range vn.Content {
					if e = d.resolve(e); e == nil || e.Kind != yaml.SequenceNode {
						isGrid = false
					}
				}
			} else {
				isGrid = true
			}
		}
		if isGrid && !grid {
			d.errorf(vn, p, "a list of values is a grid, and %s parameters cannot be grids; want one %s (or one %s entry per value)", what, decl.Range(), what)
			continue
		}
		if !isGrid {
			if v, good := d.value(vn, p, decl); good {
				put(decl.Name, v, vn, p)
				if ax.written == nil {
					ax.written = map[string]any{}
				}
				ax.written[decl.Name] = v
			}
			continue
		}
		if len(vn.Content) == 0 {
			d.errorf(vn, p, "empty list; want at least one value (%s)", decl.Range())
			continue
		}
		seen := map[string]bool{}
		good := true
		for i, e := range vn.Content {
			e = d.resolve(e)
			if e == nil {
				return ax
			}
			ep := Index(p, i)
			if e.Kind != yaml.ScalarNode && !decl.Type.IsList() {
				d.errorf(e, ep, "got %s in a grid; want %s", kindName(e), decl.Range())
				good = false
				continue
			}
			v, ok := d.value(e, ep, decl)
			if !ok {
				good = false
				continue
			}
			key := param.Format(v)
			if seen[key] {
				d.errorf(e, ep, "duplicate grid value %s; want each value once", key)
				good = false
				continue
			}
			seen[key] = true
			put(decl.Name, v, e, ep)
		}
		if !good {
			delete(ax.vals, decl.Name)
			continue
		}
		if ax.written == nil {
			ax.written = map[string]any{}
		}
		ax.written[decl.Name] = ax.vals[decl.Name]
	}
	return ax
}

// writtenParams decodes a plugin's params without its declarations, for
// ReadSpec: each value typed as YAML reads it (an int, a float, a bool, a
// string, a list of them, a mapping of strings), in written order. For a
// grid a list is an axis and a list of lists an axis of list values.
func (d *decoder) writtenParams(n *yaml.Node, path string, decl param.Decl, v reflect.Value) {
	pf := d.mapping(n, path, nil)
	if pf == nil {
		return
	}
	var order []string
	if !isNull(pf.node) {
		for i := 0; i+1 < len(pf.node.Content); i += 2 {
			if k := pf.node.Content[i].Value; pf.vals[k] != nil && !contains(order, k) {
				order = append(order, k)
			}
		}
	}
	for _, k := range sortedKeys(pf.keys) {
		if !contains(order, k) {
			order = append(order, k)
		}
	}
	vals := map[string][]any{}
	written := map[string]any{}
	var varying []string
	for _, k := range order {
		vn := d.resolve(pf.vals[k])
		if vn == nil {
			continue
		}
		if decl.Grid && vn.Kind == yaml.SequenceNode {
			var axis []any
			for _, e := range vn.Content {
				axis = append(axis, d.typed(e))
			}
			if len(axis) == 0 {
				continue
			}
			vals[k], written[k] = axis, axis
			if len(axis) > 1 {
				varying = append(varying, k)
			}
			continue
		}
		x := d.typed(vn)
		vals[k], written[k] = []any{x}, x
	}
	if !decl.Grid {
		out := param.Values{}
		for k, vs := range vals {
			out[k] = vs[0]
		}
		fieldOf(v, decl.Name).Set(reflect.ValueOf(out))
		return
	}
	var present []string
	for _, k := range order {
		if _, ok := vals[k]; ok {
			present = append(present, k)
		}
	}
	v.Addr().Interface().(gridHolder).setGrid(Product(present, vals), varying, written)
}

// typed is a value node typed as YAML reads it; see writtenParams.
func (d *decoder) typed(n *yaml.Node) any {
	n = d.resolve(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		var ints []int
		var floats []float64
		strs := []string{}
		numeric, integral := true, true
		for _, e := range n.Content {
			switch x := d.typed(e).(type) {
			case int:
				ints = append(ints, x)
				floats = append(floats, float64(x))
			case float64:
				integral = false
				floats = append(floats, x)
			default:
				numeric = false
			}
			if e = d.resolve(e); e != nil {
				strs = append(strs, e.Value)
			}
		}
		switch {
		case len(n.Content) == 0 || !numeric:
			return strs
		case integral:
			return ints
		}
		return floats
	case yaml.MappingNode:
		out := map[string]string{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = n.Content[i+1].Value
		}
		return out
	}
	raw, _ := d.raw(n, "", param.Float, 0)
	return raw
}

// paramValue converts one value node with decl.
func (d *decoder) paramValue(n *yaml.Node, path string, decl param.Decl) (any, bool) {
	if t := decl.Type.Elem(); (t == param.Int || t == param.Float) && tooBig(n, t) {
		d.errorf(n, path, "%s is out of range; want %s", param.Clip(n.Value), decl.Range())
		return nil, false
	}
	raw, ok := d.raw(n, path, decl.Type, 0)
	if !ok {
		return nil, false
	}
	v, err := decl.Convert(raw)
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, "; want") {
			msg = strings.Replace(msg, ", want ", "; want ", 1)
		}
		d.errorf(n, path, "%s", msg)
		return nil, false
	}
	return v, true
}

// intLiteral matches a YAML integer written in decimal.
var intLiteral = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// tooBig reports whether n is a plain decimal integer too large for t:
// beyond an int for Int, beyond a float64 for Float. Such a number is
// reported as out of range, not as a float or a string it would be
// read as.
func tooBig(n *yaml.Node, t param.Type) bool {
	if n == nil || n.Kind != yaml.ScalarNode || n.Style != 0 || !intLiteral.MatchString(n.Value) {
		return false
	}
	text := strings.ReplaceAll(n.Value, "_", "")
	if t == param.Int {
		_, err := strconv.ParseInt(text, 10, 0)
		return err != nil
	}
	_, err := strconv.ParseFloat(text, 64)
	return err != nil
}

// raw turns a value node into what param.Decl.Convert takes: a scalar
// (float64, int, bool, string, nil), a []any of scalars or a map[string]any.
// Strings keep their literal text.
func (d *decoder) raw(n *yaml.Node, path string, t param.Type, depth int) (any, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if isNull(n) {
			return nil, true
		}
		if t == param.String || t == param.Enum || t == param.StringList || t == param.Map {
			return n.Value, true
		}
		switch n.ShortTag() {
		case "!!int":
			var i int64
			if n.Decode(&i) == nil && i >= math.MinInt && i <= math.MaxInt {
				return int(i), true
			}
			var f float64
			if n.Decode(&f) == nil {
				return f, true
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil {
				return f, true
			}
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b, true
			}
		}
		return n.Value, true
	case yaml.SequenceNode:
		if depth > 0 {
			d.errorf(n, path, "got a nested list; want %s", t)
			return nil, false
		}
		out := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			v, ok := d.raw(e, Index(path, i), t, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case yaml.MappingNode:
		if depth > 0 || t != param.Map {
			d.errorf(n, path, "got a mapping; want %s", t)
			return nil, false
		}
		f := d.mapping(n, path, nil)
		if f == nil {
			return nil, false
		}
		out := make(map[string]any, len(f.vals))
		for k, vn := range f.vals {
			vn = d.resolve(vn)
			if vn == nil || vn.Kind != yaml.ScalarNode {
				d.errorf(vn, Sub(path, k), "got %s; want a string", kindName(vn))
				return nil, false
			}
			out[k] = vn.Value
		}
		return out, true
	}
	d.errorf(n, path, "got %s; want %s", kindName(n), t)
	return nil, false
}
