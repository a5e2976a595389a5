package spec

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// applySet applies one --set argument "key.path=value" to the spec's node
// tree. Keys are separated by dots; a list entry is addressed by its index
// (the index one past the end appends) or, in a list of mappings, by its
// label, id or (when it has neither) name: methods.ridge.params.C=[1,10].
// The value is parsed as YAML. A missing mapping key is created, so that an
// unknown field is reported by the decoder with the argument named.
func (d *decoder) applySet(root *yaml.Node, arg string) *FieldError {
	fail := func(format string, a ...any) *FieldError {
		return &FieldError{File: d.file, Set: arg, Msg: fmt.Sprintf(format, a...)}
	}
	eq := strings.IndexByte(arg, '=')
	if eq <= 0 {
		return fail("not key.path=value; want e.g. curve.trials=1")
	}
	keys := strings.Split(arg[:eq], ".")
	for _, k := range keys {
		if k == "" {
			return fail("empty key in %s; want dot-separated keys, e.g. methods.0.params.C", param.Quote(arg[:eq]))
		}
	}
	val, err := parseSetValue(arg[eq+1:])
	if err != nil {
		return fail("value %s is not valid YAML: %v", param.Quote(arg[eq+1:]), err)
	}
	d.markSet(val, arg, 0)

	if root.Kind != yaml.MappingNode {
		return fail("the spec is not a mapping; want a spec file with top-level keys")
	}
	n := root
	var path []string
	for i, k := range keys {
		last := i == len(keys)-1
		where := "the spec"
		if len(path) > 0 {
			where = strings.Join(path, ".")
		}
		switch n.Kind {
		case yaml.MappingNode:
			vi := -1
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Kind == yaml.ScalarNode && n.Content[j].Value == k {
					vi = j + 1
				}
			}
			if vi < 0 {
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}
				d.sets[key] = arg
				var v *yaml.Node
				if last {
					v = val
				} else {
					v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
					d.sets[v] = arg
				}
				n.Content = append(n.Content, key, v)
				n = v
				break
			}
			if last {
				n.Content[vi] = val
				break
			}
			n.Content[vi] = unalias(n.Content[vi])
			n = n.Content[vi]
		case yaml.SequenceNode:
			j, err := entryIndex(n, k)
			if err != nil {
				return fail("%s: %v", where, err)
			}
			if j == len(n.Content) {
				if !last {
					return fail("%s has %d entries, so %s is a new one; want the whole new entry as the value (%s=VALUE)", where, len(n.Content), k, strings.Join(append(path, k), "."))
				}
				n.Content = append(n.Content, val)
				break
			}
			if last {
				n.Content[j] = val
				break
			}
			n.Content[j] = unalias(n.Content[j])
			n = n.Content[j]
		default:
			return fail("%s is %s, not a mapping or a list; want a path through mappings and lists", where, kindName(n))
		}
		path = append(path, k)
	}
	return nil
}

// parseSetValue parses a --set value as YAML; an empty value is null.
func parseSetValue(s string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}, nil
	}
	return doc.Content[0], nil
}

// markSet records every node of a --set value as coming from arg.
func (d *decoder) markSet(n *yaml.Node, arg string, depth int) {
	if n == nil || depth > 1000 {
		return
	}
	d.sets[n] = arg
	for _, c := range n.Content {
		d.markSet(c, arg, depth+1)
	}
}

// unalias returns a copy of an alias's target, so that an override below
// it changes only this use and not the anchor's other uses. The copy is
// deep down to the next aliases, which are kept as they are (an override
// going through them copies them in turn): copying through aliases could
// take exponential time on a self-referring anchor.
func unalias(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.AliasNode || n.Alias == nil {
		return n
	}
	t := n.Alias
	for i := 0; t.Kind == yaml.AliasNode && t.Alias != nil && i < 100; i++ {
		t = t.Alias
	}
	return copyTree(t, 0)
}

func copyTree(n *yaml.Node, depth int) *yaml.Node {
	c := *n
	c.Anchor = ""
	c.Content = nil
	if n.Kind == yaml.AliasNode || depth > 1000 {
		return &c
	}
	for _, e := range n.Content {
		c.Content = append(c.Content, copyTree(e, depth+1))
	}
	return &c
}

// entryIndex finds the entry of list n named by key: an index, or the
// label / id / name of a mapping entry.
func entryIndex(n *yaml.Node, key string) (int, error) {
	if i, err := strconv.Atoi(key); err == nil {
		if i < 0 || i > len(n.Content) {
			return 0, fmt.Errorf("no entry %d; want an index in [0, %d]", i, len(n.Content))
		}
		return i, nil
	}
	var names []string
	found := -1
	for i, e := range n.Content {
		for e.Kind == yaml.AliasNode && e.Alias != nil {
			e = e.Alias
		}
		if e.Kind != yaml.MappingNode {
			continue
		}
		var label, id, name string
		for j := 0; j+1 < len(e.Content); j += 2 {
			switch e.Content[j].Value {
			case "label":
				label = e.Content[j+1].Value
			case "id":
				id = e.Content[j+1].Value
			case "name":
				name = e.Content[j+1].Value
			}
		}
		entry := label
		if entry == "" {
			entry = id
		}
		if entry == "" {
			entry = name
		}
		if entry == "" {
			continue
		}
		names = append(names, entry)
		if entry == key {
			if found >= 0 {
				return 0, fmt.Errorf("two entries are called %s; want an index", param.Quote(key))
			}
			found = i
		}
	}
	if found < 0 {
		msg := fmt.Sprintf("no entry %s", param.Quote(key))
		if c := param.Closest(key, names); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		return 0, fmt.Errorf("%s; want an index in [0, %d] or one of %s", msg, len(n.Content)-1, strings.Join(names, ", "))
	}
	return found, nil
}
