package runner

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// at returns the node at a path of keys and indices under f's mapping, or
// nil if there is none.
func (d *decoder) at(f *fields, path ...string) *yaml.Node {
	n := f.get(d, path[0])
	for _, p := range path[1:] {
		n = d.resolve(n)
		if n == nil {
			return nil
		}
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					next = n.Content[i+1]
				}
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
	}
	return d.resolve(n)
}

// SeriesNames returns the names a method's results appear under in
// reports: its label, and each variant's "label (p=v …)" (see Variants).
func (m *MethodSpec) SeriesNames() []string {
	out := []string{m.Label}
	for _, v := range m.Variants() {
		if len(v.Values) > 0 {
			out = append(out, SeriesName(m.Label, v.Values))
		}
	}
	return out
}

// crossCheck validates the references between parts of a decoded spec:
// baseline, report.x and expectations. Entries that failed to decode are
// absent from s, so references to them are not reported twice.
func (d *decoder) crossCheck(s *Spec, f *fields) {
	series := map[string]bool{}
	var seriesList, labels []string
	for i := range s.Methods {
		labels = append(labels, s.Methods[i].Label)
		for _, n := range s.Methods[i].SeriesNames() {
			if !series[n] {
				series[n] = true
				seriesList = append(seriesList, n)
			}
		}
	}
	// A method that failed to decode leaves references to it unchecked.
	methodsOK := true
	if list := d.at(f, "methods"); list != nil && list.Kind == yaml.SequenceNode && len(list.Content) != len(s.Methods) {
		methodsOK = false
	}
	datasetsOK := true
	if list := d.at(f, "datasets"); list != nil && list.Kind == yaml.SequenceNode && len(list.Content) != len(s.Datasets) {
		datasetsOK = false
	}
	checkSeries := func(name string, n *yaml.Node, path string) {
		if !methodsOK || series[name] {
			return
		}
		msg := fmt.Sprintf("unknown method %q", name)
		if c := param.Closest(name, seriesList); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		d.errorf(n, path, "%s; want a method label (%s) or a grid variant \"label (p=v)\"", msg, strings.Join(labels, ", "))
	}
	if s.Baseline != "" {
		checkSeries(s.Baseline, d.at(f, "baseline"), "baseline")
	}

	// report.x: "size" or a param that varies in some method.
	if s.Report.X != "size" && s.Report.X != "" && methodsOK {
		varying := map[string]bool{}
		for _, m := range s.Methods {
			for _, v := range m.Varying {
				varying[v] = true
			}
		}
		if !varying[s.Report.X] {
			names := make([]string, 0, len(varying))
			for v := range varying {
				names = append(names, v)
			}
			sort.Strings(names)
			want := "size (no method has a grid)"
			if len(names) > 0 {
				want = "size or a param that varies in a method's grid: " + strings.Join(names, ", ")
			}
			d.errorf(d.at(f, "report", "x"), "report.x", "%q is not a varying method param; want %s", s.Report.X, want)
		}
	}
	if s.Report.XTransform != "" && (s.Report.X == "size" || s.Report.X == "") {
		d.errorf(d.at(f, "report", "x_transform"), "report.x_transform", "applies to a param on the x axis, but x is size; want report.x set to a param, or no x_transform")
	}

	ids := make([]string, len(s.Datasets))
	for i, ds := range s.Datasets {
		ids[i] = ds.ID
	}
	metrics := map[string]bool{}
	for _, m := range s.Metrics {
		metrics[m] = true
	}
	for i, x := range s.Expect {
		path := index("expect", i)
		node := func(key string) *yaml.Node { return d.at(f, "expect", strconv.Itoa(i), key) }
		switch {
		case x.Dataset == "" && len(ids) > 1 && datasetsOK:
			d.errorf(d.at(f, "expect", strconv.Itoa(i)), sub(path, "dataset"), "missing, and the spec has %d datasets; want one of %s", len(ids), strings.Join(ids, ", "))
		case x.Dataset != "" && datasetsOK && !contains(ids, x.Dataset):
			msg := fmt.Sprintf("unknown dataset %q", x.Dataset)
			if c := param.Closest(x.Dataset, ids); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			d.errorf(node("dataset"), sub(path, "dataset"), "%s; want a dataset id: %s", msg, strings.Join(ids, ", "))
		}
		if x.Metric != "" && len(s.Metrics) > 0 && !metrics[x.Metric] {
			d.errorf(node("metric"), sub(path, "metric"), "%q is not computed by this experiment; want one of metrics: %s", x.Metric, strings.Join(s.Metrics, ", "))
		}
		for _, k := range []struct{ key, v string }{{"method", x.Method}, {"better", x.Better}, {"than", x.Than}} {
			if k.v != "" {
				checkSeries(k.v, node(k.key), sub(path, k.key))
			}
		}
	}
}
