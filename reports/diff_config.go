package reports

import (
	"bytes"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/spec"
)

// unchangedSections are the top-level spec fields that change no trial's
// result, left out of Diff.Changes: how reports read and what they
// expect, not what runs.
var unchangedSections = []string{"description", "baseline", "report", "expect", "smoke"}

// specChanges returns the fields of the resolved specs (spec.Spec.Marshal,
// every default written out) that differ: the experiment's own fields,
// then each dataset's present in both (by id), then each method's (by
// label), in the new spec's order. A spec that does not marshal (a plugin
// missing) yields a single change saying so.
func specChanges(oldSpec, newSpec *spec.Spec) []DiffChange {
	oldRoot, err1 := specNode(oldSpec)
	newRoot, err2 := specNode(newSpec)
	if err1 != nil || err2 != nil {
		return []DiffChange{{Scope: "experiment", Field: "spec", Old: "?", New: "? (a spec does not marshal: cannot list its changes)"}}
	}
	var out []DiffChange
	diffFields(&out, "experiment", oldRoot, newRoot, append([]string{"datasets", "methods"}, unchangedSections...))

	entries := func(root *yaml.Node, key string) []*yaml.Node {
		if n := mapValue(root, key); n != nil && n.Kind == yaml.SequenceNode {
			return n.Content
		}
		return nil
	}
	oldDatasets, newDatasets := entries(oldRoot, "datasets"), entries(newRoot, "datasets")
	for i, nd := range newSpec.Datasets {
		j := slices.IndexFunc(oldSpec.Datasets, func(od spec.DatasetSpec) bool { return od.ID == nd.ID })
		if j >= 0 && i < len(newDatasets) && j < len(oldDatasets) {
			diffFields(&out, "dataset "+nd.ID, oldDatasets[j], newDatasets[i], []string{"id"})
		}
	}
	oldMethods, newMethods := entries(oldRoot, "methods"), entries(newRoot, "methods")
	for i, nm := range newSpec.Methods {
		j := slices.IndexFunc(oldSpec.Methods, func(om spec.MethodSpec) bool { return om.Label == nm.Label })
		if j >= 0 && i < len(newMethods) && j < len(oldMethods) {
			diffFields(&out, "method "+nm.Label, oldMethods[j], newMethods[i], []string{"label"})
		}
	}
	return out
}

// specNode returns the resolved spec's YAML mapping.
func specNode(s *spec.Spec) (*yaml.Node, error) {
	b, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// mapValue returns the value of key in the mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// field is one leaf of a flattened mapping: its dotted path and its value
// in YAML flow style.
type field struct{ path, value string }

// flatten appends the leaves of n under prefix: a mapping's entries by
// their dotted paths, anything else (a scalar, a list) as one value.
func flatten(out []field, prefix string, n *yaml.Node, skip []string) []field {
	if n.Kind != yaml.MappingNode {
		return append(out, field{prefix, flow(n)})
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if prefix == "" && slices.Contains(skip, k) {
			continue
		}
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = flatten(out, p, n.Content[i+1], nil)
	}
	return out
}

// flow formats n on one line, in YAML flow style.
func flow(n *yaml.Node) string {
	var setFlow func(*yaml.Node)
	setFlow = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			n.Style = yaml.FlowStyle
		} else if n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle {
			n.Style = yaml.DoubleQuotedStyle
		}
		for _, c := range n.Content {
			setFlow(c)
		}
	}
	setFlow(n)
	b, err := yaml.Marshal(n)
	if err != nil {
		return "?"
	}
	return string(bytes.TrimSpace(b))
}

// diffFields appends to out, under scope, the leaves of the mappings old
// and new that differ, leaving out the top-level keys in skip: the new
// mapping's leaves in its order, then those only the old one has.
func diffFields(out *[]DiffChange, scope string, old, new *yaml.Node, skip []string) {
	of, nf := flatten(nil, "", old, skip), flatten(nil, "", new, skip)
	oldAt := map[string]string{}
	for _, f := range of {
		oldAt[f.path] = f.value
	}
	inNew := map[string]bool{}
	for _, f := range nf {
		inNew[f.path] = true
		ov, ok := oldAt[f.path]
		if !ok {
			ov = "(unset)"
		}
		if ov != f.value {
			*out = append(*out, DiffChange{Scope: scope, Field: f.path, Old: ov, New: f.value})
		}
	}
	for _, f := range of {
		if !inNew[f.path] {
			*out = append(*out, DiffChange{Scope: scope, Field: f.path, Old: f.value, New: "(unset)"})
		}
	}
}
