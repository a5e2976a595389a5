package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/internal/clip"
	"github.com/repro-ml/repro/internal/yamlpos"
	"github.com/repro-ml/repro/param"
)

// Load reads the spec at path, applies the --set overrides in sets (each
// "key.path=value", the value parsed as YAML) and decodes and validates the
// result. An invalid spec gives a *SpecError listing every problem found,
// each as FILE:LINE:COL: field.path: what is wrong; what was expected.
func Load(path string, sets []string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return Parse(path, data, sets)
}

// Parse is Load for a spec already in memory; name is the file name used in
// error messages and Spec.File.
func Parse(name string, data []byte, sets []string) (*Spec, error) {
	return parse(name, data, sets, false)
}

// LoadSmoke is Load with the assignments smoke (the spec's smoke: entries)
// applied before sets, as `repro run --smoke` loads the spec. A problem
// of a smoke entry is reported at the entry's line and column, under the
// path smoke[i], rather than as a --set argument; any other problem says
// that it arises with the smoke assignments applied.
func LoadSmoke(path string, smoke, sets []string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	all := append(slices.Clone(smoke), sets...)
	spec, err := parse(path, data, all, false)
	var se *SpecError
	if !errors.As(err, &se) {
		return spec, err
	}
	var items []*yaml.Node
	if root, errs := parseYAML(path, data); len(errs) == 0 && root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if n := root.Content[i+1]; root.Content[i].Value == "smoke" && n.Kind == yaml.SequenceNode {
				items = n.Content
			}
		}
	}
	out := &SpecError{Omitted: se.Omitted}
	for _, fe := range se.Errs {
		i := slices.Index(smoke, fe.Set)
		switch {
		case fe.Set != "" && i >= 0 && i < len(items):
			if fe.Path != "" {
				fe.Msg = fe.Path + ": " + fe.Msg
			}
			fe.Set, fe.Path = "", Index("smoke", i)
			fe.Line, fe.Column = items[i].Line, items[i].Column
		case fe.Set == "":
			fe.Msg += " (with the smoke: assignments applied)"
		}
		out.Errs = append(out.Errs, fe)
	}
	order := map[string]int{}
	for i, a := range all {
		order[a] = i
	}
	sortErrs(out.Errs, order)
	return nil, out
}

// ReadSpec reads DIR/spec.yaml as Marshal wrote it without consulting the
// method, dataset, transform or metric registries, so that a results
// directory stays reportable after its plugins are no longer compiled in.
// Plugin params are taken as written, typed as YAML reads them (Marshal
// writes floats with a decimal point); a method's list is a grid axis and
// a list of lists an axis of list values, expanded in written order (the
// plugin's declaration order, as Marshal writes it). The spec's own
// sections, split kinds, select rules and protocols are checked as Load
// checks them.
func ReadSpec(dir string) (*Spec, error) {
	path := filepath.Join(dir, SpecFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return parse(path, data, nil, true)
}

func parse(name string, data []byte, sets []string, free bool) (spec *Spec, err error) {
	defer func() {
		// Load must never panic on any input; a panic here is a bug, but
		// it is reported as an invalid spec rather than a crash.
		if p := recover(); p != nil {
			spec, err = nil, &SpecError{Errs: []FieldError{{File: name, Msg: fmt.Sprintf("internal error while reading the spec: %v; please report it", p)}}}
		}
	}()
	d := newDecoder(name)
	d.free = free
	d.resolved = bytes.HasPrefix(data, []byte(resolvedHeader))
	root, errs := parseYAML(name, data)
	if len(errs) > 0 {
		for _, fe := range errs {
			d.add(fe)
		}
		return nil, d.err()
	}
	for i, s := range sets {
		d.setOrder[s] = i
		if fe := d.applySet(root, s); fe != nil {
			d.add(*fe)
		}
	}
	if len(d.errs) > 0 {
		return nil, d.err()
	}
	size, ye := yamlpos.CheckAliases(name, root)
	if ye != nil {
		return nil, &SpecError{Errs: []FieldError{fieldError(*ye)}}
	}
	// Each node is resolved a few times (its value, its checks); the
	// budget only stops a walk gone wrong.
	d.budget = 64 * (size + 1024)
	spec = d.spec(root)
	if len(d.errs) > 0 {
		return nil, d.err()
	}
	return spec, nil
}

// parseYAML parses data as one YAML document and returns its root node;
// or the problems of its bytes, or its syntax error, at their positions.
func parseYAML(name string, data []byte) (*yaml.Node, []FieldError) {
	if yerrs := yamlpos.CheckText(name, data, maxKept); len(yerrs) > 0 {
		errs := make([]FieldError, len(yerrs))
		for i, e := range yerrs {
			errs[i] = fieldError(e)
		}
		return nil, errs
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, []FieldError{{File: name, Msg: "empty spec; want a mapping with name, datasets, methods, curve and metrics"}}
		}
		return nil, []FieldError{fieldError(yamlpos.Locate(name, data, err))}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, []FieldError{{File: name, Line: extra.Line, Column: extra.Column, Msg: "a second YAML document; want one experiment per file"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, []FieldError{fieldError(yamlpos.Locate(name, data, err))}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, []FieldError{{File: name, Msg: "empty spec; want a mapping with name, datasets, methods, curve and metrics"}}
		}
		root = root.Content[0]
	}
	return root, nil
}

// maxKept bounds the errors kept of one spec; those past it are counted.
const maxKept = 1000

// nodeBudget bounds the work of decoding a tree parse did not measure;
// parse sets the budget from the tree's size as aliases expand it.
const nodeBudget = 1 << 24

// decoder decodes a yaml.Node tree into a Spec, collecting every error.
type decoder struct {
	file string
	errs []FieldError
	// seen holds the errors reported, each reported once; omitted counts
	// those past maxKept.
	seen     map[FieldError]bool
	omitted  int
	sets     map[*yaml.Node]string // nodes that came from a --set value, by argument
	setOrder map[string]int
	work     int
	budget   int
	overrun  bool
	// free is the registry-free mode of ReadSpec.
	free bool
	// resolved marks a spec Marshal wrote (DIR/spec.yaml).
	resolved bool
	// root is the spec being decoded: checks of later sections see the
	// earlier ones (a select rule's metric defaults to the first metric).
	root *Spec
	// names holds the node of each dataset id and method label seen, to
	// report duplicates; reported the errors of Validate hooks made.
	names    map[string]*yaml.Node
	reported map[string]bool
	// places holds the position of the values decoded, by field path,
	// for the checks made once the data is loaded (Spec.ErrorAt).
	places map[string]FieldError
}

// maxPlaces bounds the positions kept of one spec; a field past it is
// located at its nearest enclosing field that has one.
const maxPlaces = 1 << 16

func newDecoder(file string) *decoder {
	return &decoder{file: file, sets: map[*yaml.Node]string{}, setOrder: map[string]int{},
		names: map[string]*yaml.Node{}, reported: map[string]bool{}, seen: map[FieldError]bool{}, budget: nodeBudget,
		places: map[string]FieldError{}}
}

func (d *decoder) err() error {
	sortErrs(d.errs, d.setOrder)
	return &SpecError{Errs: d.errs, Omitted: d.omitted}
}

// add records fe unless it was reported already, with its path and
// message cut to a readable length.
func (d *decoder) add(fe FieldError) {
	fe.Path, fe.Msg = clip.Text(fe.Path, maxPath), clip.Text(fe.Msg, maxMsg)
	if d.seen[fe] {
		return
	}
	d.seen[fe] = true
	if len(d.errs) >= maxKept {
		d.omitted++
		return
	}
	d.errs = append(d.errs, fe)
}

// errorf records an error about node n (nil: no position) at path.
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	if d.overrun {
		return // what follows the overrun is not worth reading
	}
	fe := d.where(n)
	fe.Path, fe.Msg = path, fmt.Sprintf(format, args...)
	d.add(fe)
}

// where returns the position of node n (nil: none): its file, line and
// column, or the --set argument it came from.
func (d *decoder) where(n *yaml.Node) FieldError {
	fe := FieldError{File: d.file}
	if n != nil {
		if s, ok := d.sets[n]; ok {
			fe.Set = s
		} else {
			fe.Line, fe.Column = n.Line, n.Column
		}
	}
	return fe
}

// place records the position of the value n of the field at path, and of
// the values of a mapping n by their keys (a dataset's groups).
func (d *decoder) place(path string, n *yaml.Node) {
	if n == nil || len(d.places) >= maxPlaces {
		return
	}
	if _, ok := d.places[path]; !ok {
		d.places[path] = d.where(n)
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content) && len(d.places) < maxPlaces; i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode {
				if _, ok := d.places[Sub(path, k.Value)]; !ok {
					d.places[Sub(path, k.Value)] = d.where(n.Content[i+1])
				}
			}
		}
	}
}

// resolve follows aliases and counts work; it returns nil once the budget
// is spent (after reporting it once).
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 100 {
			return nil
		}
		n = n.Alias
	}
	d.work++
	if d.work > d.budget {
		if !d.overrun {
			// The errors found so far may be artefacts of the walk
			// being cut short: only this one is reported.
			d.errs, d.omitted = nil, 0
			d.errorf(nil, "", "decoding the spec took more than %d steps; want a smaller spec (please report it: the budget should not be reached)", d.budget)
			d.overrun = true
		}
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// kindName describes a node's kind for error messages.
func kindName(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		if n.ShortTag() == "!!str" {
			return param.Quote(n.Value)
		}
		return param.Clip(n.Value)
	}
	return "an alias"
}

// fields is a decoded YAML mapping: its values by key, with the key nodes
// for positions; subs holds the fields of its sections once decoded, and
// value the struct it decoded into.
type fields struct {
	node  *yaml.Node
	path  string
	vals  map[string]*yaml.Node
	keys  map[string]*yaml.Node
	subs  map[string]*fields
	value reflect.Value
}

func (f *fields) setSub(key string, s *fields) {
	if f.subs == nil {
		f.subs = map[string]*fields{}
	}
	f.subs[key] = s
}

// sub returns the fields of section key (nil if it did not decode).
func (f *fields) sub(key string) *fields {
	if f == nil {
		return nil
	}
	return f.subs[key]
}

// get returns the value under key, resolved, or nil if absent or null.
func (f *fields) get(d *decoder, key string) *yaml.Node {
	if f == nil {
		return nil
	}
	v := d.resolve(f.vals[key])
	if isNull(v) {
		return nil
	}
	return v
}

// Sub joins a field path and a key: Sub("curve", "sizes") is
// "curve.sizes", the path FieldError and Spec.ErrorAt take.
func Sub(path, key string) string {
	key = param.Clip(key) // a 5,000-character key is shown by its start
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index is the path of element i of the list at path: Index("datasets",
// 2) is "datasets[2]".
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// mapping decodes n as a mapping, reporting duplicate keys; keys names the
// keys it should have, for the message when it is not a mapping. A null
// node is an empty mapping. It returns nil (after reporting) if n is not a
// mapping. Unknown keys are the caller's to report.
func (d *decoder) mapping(n *yaml.Node, path string, keys []string) *fields {
	n = d.resolve(n)
	f := &fields{node: n, path: path, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	if isNull(n) {
		return f
	}
	if n.Kind != yaml.MappingNode {
		want := "a mapping"
		switch {
		case len(keys) == 1 && keys[0] == "":
			want = "an empty mapping (the plugin has no params)"
		case len(keys) > 0:
			want += " with keys " + strings.Join(keys, ", ")
		}
		d.errorf(n, path, "got %s; want %s", kindName(n), want)
		return nil
	}
	d.collect(n, path, f, true, 0, map[*yaml.Node]bool{})
	return f
}

// collect adds the pairs of mapping n to f. Explicit keys win over merged
// ones (<<: *anchor); explicit duplicates are errors.
//
// A mapping merged twice adds nothing the second time (the first merge's
// keys win), so merged holds the mappings merged so far: merge keys that
// repeat anchors cost no more than their distinct anchors.
func (d *decoder) collect(n *yaml.Node, path string, f *fields, explicit bool, depth int, merged map[*yaml.Node]bool) {
	if depth > 10 {
		d.errorf(n, path, "merge keys nested too deeply; want at most 10 levels")
		return
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		kr := d.resolve(k)
		if kr == nil {
			return
		}
		if kr.Kind != yaml.ScalarNode || isNull(kr) {
			d.errorf(kr, path, "a key that is %s; want a name", kindName(kr))
			continue
		}
		if prev, dup := f.keys[kr.Value]; dup {
			if explicit {
				d.errorf(kr, Sub(path, kr.Value), "duplicate key; first given at line %d", prev.Line)
			}
			continue
		}
		f.keys[kr.Value], f.vals[kr.Value] = kr, v
	}
	for _, m := range merges {
		m = d.resolve(m)
		if m == nil {
			return
		}
		switch m.Kind {
		case yaml.MappingNode:
			if !merged[m] {
				merged[m] = true
				d.collect(m, path, f, false, depth+1, merged)
			}
		case yaml.SequenceNode:
			for _, e := range m.Content {
				if e = d.resolve(e); e != nil && e.Kind == yaml.MappingNode {
					if !merged[e] {
						merged[e] = true
						d.collect(e, path, f, false, depth+1, merged)
					}
				} else {
					d.errorf(m, path, "merge (<<) of %s; want a mapping or a list of mappings", kindName(e))
				}
			}
		default:
			d.errorf(m, path, "merge (<<) of %s; want a mapping or a list of mappings", kindName(m))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sequence returns the resolved elements of list node n (nil for null). A
// single scalar is an error.
func (d *decoder) sequence(n *yaml.Node, path, want string) ([]*yaml.Node, bool) {
	n = d.resolve(n)
	if isNull(n) {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "got %s; want a list of %s", kindName(n), want)
		return nil, false
	}
	out := make([]*yaml.Node, 0, len(n.Content))
	for _, e := range n.Content {
		e = d.resolve(e)
		if e == nil {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
}

// scalar checks that n is a non-null scalar.
func (d *decoder) scalar(n *yaml.Node, path, want string) bool {
	if n == nil || n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, path, "got %s; want %s", kindName(n), want)
		return false
	}
	return true
}

// posOf returns the position of n.
func posOf(n *yaml.Node) Pos {
	if n == nil {
		return Pos{}
	}
	return Pos{Line: n.Line, Column: n.Column}
}

// SpecFile is the name of the resolved spec in an output directory.
const SpecFile = "spec.yaml"

// fieldError is the FieldError of a problem package yamlpos located.
func fieldError(e yamlpos.Error) FieldError {
	return FieldError{File: e.File, Line: e.Line, Column: e.Column, Msg: e.Msg}
}
