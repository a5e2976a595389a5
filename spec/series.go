package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// A method entry is a series of the experiment, and may be more than a
// plugin with params: it may set protocol params for itself
// (methods[i].protocol: a query strategy per series) and run on some of
// the datasets only (methods[i].datasets). Neither changes the samples,
// splits or folds of a trial — they derive from the experiment seed, the
// dataset and the trial index alone — so two series of one plugin under
// two query strategies start from the same labelled rows and compare as
// paired.

// ProtocolParams returns the protocol params m's trials run with: the
// experiment's, with those m sets (m.Protocol) in their place. It
// returns s.Protocol.Params itself when m sets none.
func (s *Spec) ProtocolParams(m *MethodSpec) param.Values {
	if m == nil || len(m.Protocol) == 0 {
		return s.Protocol.Params
	}
	p := s.Protocol.Params.Clone()
	if p == nil {
		p = param.Values{}
	}
	for k, v := range m.Protocol {
		p[k] = v
	}
	return p
}

// RunsOn reports whether m runs on the dataset with id: every dataset
// when m.Datasets is empty.
func (m *MethodSpec) RunsOn(id string) bool {
	return len(m.Datasets) == 0 || slices.Contains(m.Datasets, id)
}

// Steps returns how many times one trial of m fits its method under the
// protocol (the active protocol's batches), 1 if the protocol does not
// say.
func (s *Spec) Steps(m *MethodSpec) int {
	if proto, err := LookupProtocol(s.Protocol.ProtocolName()); err == nil && proto.Steps != nil {
		return proto.Steps(s.ProtocolParams(m))
	}
	return 1
}

// checkMethods checks what a method entry refers to beyond its plugin:
// its datasets (ids of datasets:, and all or none of a report.choose
// entry's), its protocol params (ones the experiment's protocol lets a
// method set; budgets keyed by dataset ids), and that every expectation
// names series on datasets they run on. ids are the dataset ids, targets
// also the ids report.choose makes.
func (d *decoder) checkMethods(s *Spec, f *fields, ids, targets []string, methodsOK, datasetsOK bool) {
	proto, err := LookupProtocol(s.Protocol.ProtocolName())
	if err != nil {
		proto = nil
	}
	for i := range s.Methods {
		m := &s.Methods[i]
		if len(m.Protocol) == 0 {
			m.Protocol = nil // as a spec built in code has it
		}
		path := Index("methods", i)
		node := func(keys ...string) *yaml.Node {
			return d.at(f, append([]string{"methods", strconv.Itoa(i)}, keys...)...)
		}
		if datasetsOK {
			for j, id := range m.Datasets {
				if !contains(ids, id) {
					d.errorf(node("datasets", strconv.Itoa(j)), Index(Sub(path, "datasets"), j), "%s", unknownDataset(id, ids))
				}
			}
			for _, c := range s.Report.Choose {
				var in, out []string
				for _, id := range c.Among {
					if m.RunsOn(id) {
						in = append(in, id)
					} else {
						out = append(out, id)
					}
				}
				if len(in) > 0 && len(out) > 0 {
					d.errorf(node("datasets"), Sub(path, "datasets"), "runs on %s but not on %s, which report.choose %s chooses among; want all of them or none", strings.Join(in, ", "), strings.Join(out, ", "), param.Quote(c.ID))
				}
			}
		}
		if proto == nil {
			continue
		}
		for _, k := range m.Protocol.Names() {
			if !slices.Contains(proto.PerMethod, k) {
				want := "no protocol params: it lets a method set none"
				if len(proto.PerMethod) > 0 {
					want = "one of " + strings.Join(proto.PerMethod, ", ")
				}
				d.errorf(keyNode(node("protocol"), k), Sub(Sub(path, "protocol"), k), "protocol %s does not let a method set %s; want %s", s.Protocol.ProtocolName(), k, want)
			}
		}
		budgets, _ := m.Protocol["budgets"].(map[string]string)
		for _, id := range sortedStrings(budgets) {
			if datasetsOK && !contains(ids, id) {
				d.errorf(keyNode(node("protocol", "budgets"), id), Sub(Sub(Sub(path, "protocol"), "budgets"), id), "%s", unknownDataset(id, ids))
			}
		}
	}
	if !methodsOK || !datasetsOK {
		return
	}
	// An expectation about a series on a dataset its method does not
	// run on could never be judged. A dataset of report.choose is run
	// on by the methods that run on its members (all or none, above).
	member := map[string]string{}
	for _, c := range s.Report.Choose {
		if len(c.Among) > 0 {
			member[c.ID] = c.Among[0]
		}
	}
	for i, x := range s.Expect {
		dataset := x.Dataset
		if dataset == "" && len(ids) == 1 {
			dataset = ids[0]
		}
		than := dataset
		if x.ThanDataset != "" {
			than = x.ThanDataset
		}
		for _, k := range []struct{ key, series, dataset string }{
			{"method", x.Method, dataset}, {"better", x.Better, dataset}, {"than", x.Than, than},
			{"wtl.series", x.WTL.Series, dataset}, {"wtl.than", x.WTL.Than, dataset},
		} {
			if k.series == "" || !contains(targets, k.dataset) {
				continue // an unknown dataset is reported as such
			}
			id := k.dataset
			if mid, ok := member[id]; ok {
				id = mid
			}
			var absent *MethodSpec
			for j := range s.Methods {
				m := &s.Methods[j]
				if !slices.Contains(m.SeriesNames(), k.series) {
					continue
				}
				if m.RunsOn(id) {
					absent = nil
					break
				}
				absent = m
			}
			if absent != nil {
				d.errorf(d.at(f, append([]string{"expect", strconv.Itoa(i)}, strings.Split(k.key, ".")...)...), Sub(Index("expect", i), k.key), "method %s does not run on dataset %s (its datasets: %s); want a series that does, or %s in its datasets",
					param.Quote(absent.Label), param.Quote(k.dataset), strings.Join(absent.Datasets, ", "), k.dataset)
			}
		}
	}
}

// keyNode returns the key node of k in the mapping n, or n itself.
func keyNode(n *yaml.Node, k string) *yaml.Node {
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				return n.Content[i]
			}
		}
	}
	return n
}

// describeMethodSeries says what a method entry sets beyond its plugin,
// for `repro validate` and report.md: ", protocol {strategy=uncertainty},
// on cora, citeseer"; "" when nothing.
func describeMethodSeries(m *MethodSpec) string {
	var b strings.Builder
	if len(m.Protocol) > 0 {
		fmt.Fprintf(&b, ", protocol {%s}", m.Protocol.Label())
	}
	if len(m.Datasets) > 0 {
		fmt.Fprintf(&b, ", on %s", strings.Join(m.Datasets, ", "))
	}
	return b.String()
}
