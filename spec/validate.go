package spec

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
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

// check is the root's cross-field check; see crossCheck.
func (s *Spec) check(d *decoder, f *fields, _ string) bool {
	d.crossCheck(s, f)
	return true
}

// check defaults the id to the name and reports a duplicate id.
func (ds *DatasetSpec) check(d *decoder, f *fields, path string) bool {
	at := f.get(d, "id")
	if ds.ID == "" {
		ds.ID, at = ds.Name, f.get(d, "name")
	}
	return d.unique(at, f, Sub(path, "id"), "dataset", "id", ds.ID)
}

// unique reports a second dataset id or method label.
func (d *decoder) unique(at *yaml.Node, f *fields, path, what, field, name string) bool {
	if at == nil {
		at = f.node
	}
	key := what + " " + field + "\x00" + name
	if prev, dup := d.names[key]; dup {
		d.errorf(at, path, "duplicate %s %s %s (first at line %d); want a unique %s for each entry", what, field, param.Quote(name), prev.Line, field)
		return false
	}
	d.names[key] = at
	return true
}

// check defaults the label to the name, reports a duplicate label and
// metrics of another problem kind, and settles the select rule's fields.
func (m *MethodSpec) check(d *decoder, f *fields, path string) bool {
	at := f.get(d, "label")
	if m.Label == "" {
		m.Label, at = m.Name, f.get(d, "name")
	}
	if !d.free {
		if p, err := methods.Lookup(m.Name); err == nil {
			for _, name := range d.root.Metrics {
				if mt, err := metric.Lookup(name); err == nil && mt.Kinds != 0 && p.Kinds != 0 && mt.Kinds&p.Kinds == 0 {
					d.errorf(f.get(d, "name"), Sub(path, "name"), "method %s handles %s but metric %s applies to %s; want methods and metrics of one problem kind", m.Name, p.Kinds, name, mt.Kinds)
				}
			}
		}
	}
	d.checkSelect(m, f.sub("select"), Sub(path, "select"))
	return d.unique(at, f, Sub(path, "label"), "method", "label", m.Label)
}

// checkSelect applies what a select rule makes of folds, metric and over.
func (d *decoder) checkSelect(m *MethodSpec, f *fields, path string) {
	s := &m.Select
	if f == nil {
		return
	}
	folds, met, over := f.get(d, "folds"), f.get(d, "metric"), f.get(d, "over")
	// An unknown rule is reported by the decoder; here it is taken to
	// choose, with a metric, and to use no folds.
	sel, err := LookupSelector(s.Rule)
	chooses := err != nil || sel.Chooses
	switch {
	case err == nil && sel.Folds:
	case err == nil && sel.Chooses:
		if folds != nil {
			d.errorf(folds, Sub(path, "folds"), "only used by rule %s, not %s; want no folds", strings.Join(foldRules(), " and "), s.Rule)
		}
		s.Folds = 0
	default:
		// Nothing is selected: folds and metric are ignored, and zeroed so
		// that switching a rule to fixed with --set works and keys do not
		// depend on them.
		s.Folds, s.Metric = 0, ""
	}
	if chooses && s.Metric == "" && met == nil {
		if len(d.root.Metrics) > 0 {
			s.Metric = d.root.Metrics[0]
		} else {
			d.errorf(f.node, Sub(path, "metric"), "missing for rule %s and no metrics: to default to; want a metric", s.Rule)
		}
	}
	if over == nil {
		return
	}
	if err != nil || !sel.Chooses {
		d.errorf(over, Sub(path, "over"), "only used by rules %s, not %s; want no over", strings.Join(choosingRules(), " and "), s.Rule)
		s.Over = nil
		return
	}
	written := s.Over
	s.Over = nil
	for i, name := range written {
		if !contains(m.Varying, name) {
			want := "none: the method has no grid"
			if len(m.Varying) > 0 {
				want = "one of " + strings.Join(m.Varying, ", ")
			}
			e := over
			if over.Kind == yaml.SequenceNode && i < len(over.Content) {
				e = over.Content[i]
			}
			d.errorf(e, Index(Sub(path, "over"), i), "%s is not a varying param of method %s; want %s", param.Quote(name), m.Label, want)
		}
	}
	// Keep declaration order, and drop over when it names every varying
	// param: the same selection as no over, with the same trial keys.
	for _, v := range m.Varying {
		if contains(written, v) {
			s.Over = append(s.Over, v)
		}
	}
	if len(s.Over) == len(m.Varying) {
		s.Over = nil
	}
}

// check relates a transform's fit to what its plugin can do: a fit per
// trial needs a plugin that fits, none a plugin that applies to the whole
// dataset.
func (ts *TransformSpec) check(d *decoder, f *fields, path string) bool {
	if d.free {
		return true
	}
	tr, err := datasets.LookupTransform(ts.Name)
	if err != nil {
		return true // reported at name
	}
	switch {
	case ts.PerTrial() && tr.Fit == nil:
		d.errorf(f.get(d, "fit"), Sub(path, "fit"), "transform %s runs once on the whole dataset and cannot be fitted in each trial; want no fit", ts.Name)
	case !ts.PerTrial() && tr.Apply == nil:
		d.errorf(f.node, Sub(path, "fit"), "missing: transform %s is fitted in each trial; want fit: pool or fit: train", ts.Name)
	case ts.Fit == "" && tr.Learns:
		want := "fit: all (once on every row, test rows included: a transductive protocol)"
		if tr.Fit != nil {
			want = "fit: train or fit: pool (in each trial), or " + want
		}
		d.errorf(f.node, Sub(path, "fit"), "missing: transform %s learns from the rows it is fitted on, so say which it sees; want %s", ts.Name, want)
	}
	return true
}

// checkProtocol relates the protocol, curve and the datasets' splits: a
// per-size protocol needs curve.sizes and any other forbids them; a split
// that defines its own trials (kfold: folds × repeats) allows
// curve.trials only to repeat that number.
func (d *decoder) checkProtocol(s *Spec, f *fields) {
	curve := f.get(d, "curve")
	cf := f.sub("curve")
	if p, err := LookupProtocol(s.Protocol.ProtocolName()); err == nil {
		switch {
		case p.PerSize && curve == nil:
			d.errorf(f.node, "curve", "missing; want a mapping with sizes (and trials, sampling)")
		case p.PerSize && cf != nil && cf.get(d, "sizes") == nil:
			d.errorf(cf.node, "curve.sizes", "missing; want a list of training sizes: counts ≥ 2 or fractions in (0, 1] of the training pool")
		case !p.PerSize && cf != nil && cf.get(d, "sizes") != nil:
			d.errorf(cf.keys["sizes"], "curve.sizes", "protocol %s does not run per training size; want no sizes", s.Protocol.ProtocolName())
			s.Curve.Sizes = nil
		}
	}
	trials := cf.get(d, "trials")
	counted := false
	for i, ds := range s.Datasets {
		sp, err := LookupSplitter(ds.Split.KindName())
		if err != nil || sp.Replicates == nil || ds.Split.Params == nil {
			continue
		}
		n := sp.Replicates(ds.Split.Params)
		if n < 1 || n > maxTrials {
			d.errorf(d.at(f, "datasets", strconv.Itoa(i), "split"), Index("datasets", i)+".split", "split %s makes %d trials; want at most %d", ds.Split.Kind, n, maxTrials)
			continue
		}
		if trials != nil && s.Curve.Trials != n {
			d.errorf(trials, "curve.trials", "%d, but split %s of %s makes %d trials; want no trials, or %d", s.Curve.Trials, ds.Split.Kind, Index("datasets", i), n, n)
		}
		if trials == nil && !counted {
			// The split's count, so that the resolved spec (spec.yaml)
			// reads back and reports count the trials planned.
			s.Curve.Trials, counted = n, true
		}
	}
}

// key returns the key node k of the mapping n, or n itself if it has none.
func (d *decoder) key(n *yaml.Node, k string) *yaml.Node {
	at := n
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				at = n.Content[i]
			}
		}
	}
	return at
}

// unknownDataset says that id is none of ids, suggesting the closest.
func unknownDataset(id string, ids []string) string {
	msg := "unknown dataset " + param.Quote(id)
	if c := param.Closest(id, ids); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	return msg + "; want a dataset id: " + strings.Join(ids, ", ")
}

// crossCheck validates the references between parts of a decoded spec:
// protocol and curve, baseline, report.x and expectations. Entries that
// failed to decode are absent from s, so references to them are not
// reported twice.
func (d *decoder) crossCheck(s *Spec, f *fields) {
	d.checkProtocol(s, f)
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
		msg := fmt.Sprintf("unknown method %s", param.Quote(name))
		if c := param.Closest(name, seriesList); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		d.errorf(n, path, "%s; want a method label (%s) or a grid variant \"label (p=v)\"", msg, strings.Join(labels, ", "))
	}
	if s.Baseline != "" {
		checkSeries(s.Baseline, d.at(f, "baseline"), "baseline")
	}
	if p, err := LookupProtocol(s.Protocol.ProtocolName()); err == nil && p.Check != nil {
		p.Check(&Checker{Spec: s, Labels: labels, MethodsOK: methodsOK, DatasetsOK: datasetsOK, d: d, f: f})
	}

	if methodsOK && !d.free {
		d.checkReportX(s, f)
	}
	if s.Report.XTransform != "" && (s.Report.X == "size" || s.Report.X == "") {
		d.errorf(d.at(f, "report", "x_transform"), "report.x_transform", "applies to a param on the x axis, but x is size; want report.x set to a param, or no x_transform")
	}

	ids := make([]string, len(s.Datasets))
	for i, ds := range s.Datasets {
		ids[i] = ds.ID
	}
	if datasetsOK {
		d.checkSamplesOf(s, f, ids)
	}
	// Expectations may name the datasets report.choose makes.
	targets := slices.Clone(ids)
	for i, c := range s.Report.Choose {
		path := Index("report.choose", i)
		node := func(key string) *yaml.Node { return d.at(f, "report", "choose", strconv.Itoa(i), key) }
		switch {
		case contains(ids, c.ID):
			d.errorf(node("id"), Sub(path, "id"), "%s is an id of datasets:; want a new id for the chosen dataset", param.Quote(c.ID))
		case contains(targets, c.ID):
			d.errorf(node("id"), Sub(path, "id"), "duplicate id %s; want each report.choose id once", param.Quote(c.ID))
		default:
			targets = append(targets, c.ID)
		}
		if len(c.Among) < 2 {
			d.errorf(node("among"), Sub(path, "among"), "%d dataset id(s); want two or more to choose among", len(c.Among))
		}
		if methodsOK && !d.resolved && !d.methodsSet() {
			// Not held to methods --set or smoke: may have reduced.
			d.checkChooses(s, d.at(f, "report", "choose", strconv.Itoa(i)), path)
		}
		for j, id := range c.Among {
			if datasetsOK && !contains(ids, id) {
				d.errorf(d.at(f, "report", "choose", strconv.Itoa(i), "among", strconv.Itoa(j)), Index(Sub(path, "among"), j), "%s", unknownDataset(id, ids))
			}
		}
	}
	if _, set := d.sets[d.at(f, "curve", "sizes")]; set || d.resolved {
		s.sizesSet = true
	}
	metrics := map[string]bool{}
	for _, m := range s.Metrics {
		metrics[m] = true
	}
	for i, x := range s.Expect {
		path := Index("expect", i)
		node := func(key string) *yaml.Node { return d.at(f, "expect", strconv.Itoa(i), key) }
		switch {
		case x.Dataset == "" && len(ids) > 1 && datasetsOK:
			d.errorf(d.at(f, "expect", strconv.Itoa(i)), Sub(path, "dataset"), "missing, and the spec has %d datasets; want one of %s", len(ids), strings.Join(ids, ", "))
		case x.Dataset != "" && datasetsOK && !contains(targets, x.Dataset):
			d.errorf(node("dataset"), Sub(path, "dataset"), "%s", unknownDataset(x.Dataset, targets))
		}
		if x.ThanDataset != "" && datasetsOK && !contains(targets, x.ThanDataset) {
			d.errorf(node("than_dataset"), Sub(path, "than_dataset"), "%s", unknownDataset(x.ThanDataset, targets))
		}
		if x.OverDataset != "" && datasetsOK && !contains(targets, x.OverDataset) {
			d.errorf(node("over_dataset"), Sub(path, "over_dataset"), "%s", unknownDataset(x.OverDataset, targets))
		}
		if x.Trend.AlongOr() != "size" && methodsOK && !d.methodsSet() && !d.resolved {
			d.checkAlong(s, x, d.at(f, "expect", strconv.Itoa(i), "trend", "along"), Sub(Sub(path, "trend"), "along"))
		}
		if x.Metric != "" && len(s.Metrics) > 0 && !metrics[x.Metric] {
			d.errorf(node("metric"), Sub(path, "metric"), "%s is not computed by this experiment; want one of metrics: %s", param.Quote(x.Metric), strings.Join(s.Metrics, ", "))
		}
		d.checkExpectSizes(s, x, d.at(f, "expect", strconv.Itoa(i), "sizes"), Sub(path, "sizes"))
		if x.Trend.AlongOr() == "size" && len(x.Trend.At) > 0 {
			d.checkTrendSizes(s, x, d.at(f, "expect", strconv.Itoa(i), "trend", "at"), Sub(Sub(path, "trend"), "at"))
		}
		for _, k := range []struct{ key, v string }{{"method", x.Method}, {"better", x.Better}, {"than", x.Than}} {
			if k.v != "" {
				checkSeries(k.v, node(k.key), Sub(path, k.key))
			}
		}
		for _, k := range []struct{ key, v string }{{"series", x.WTL.Series}, {"than", x.WTL.Than}} {
			if k.v != "" {
				checkSeries(k.v, d.at(f, "expect", strconv.Itoa(i), "wtl", k.key), Sub(Sub(path, "wtl"), k.key))
			}
		}
	}
	d.checkMethods(s, f, ids, targets, methodsOK, datasetsOK)
}

// checkSamplesOf checks each dataset's samples_of: another entry's id,
// one that draws its own samples, with the same split and tasks (the rows
// and labels are checked once the data is loaded: checkSameRows).
func (d *decoder) checkSamplesOf(s *Spec, f *fields, ids []string) {
	for i := range s.Datasets {
		ds := &s.Datasets[i]
		if ds.SamplesOf == "" {
			continue
		}
		at, path := d.at(f, "datasets", strconv.Itoa(i), "samples_of"), Sub(Index("datasets", i), "samples_of")
		j := slices.Index(ids, ds.SamplesOf)
		switch {
		case j < 0:
			d.errorf(at, path, "%s", unknownDataset(ds.SamplesOf, ids))
		case j == i:
			d.errorf(at, path, "names this entry itself; want the id of another entry, or no samples_of")
		case s.Datasets[j].SamplesOf != "":
			d.errorf(at, path, "dataset %s itself takes the samples of %s; want %s", param.Quote(ds.SamplesOf), param.Quote(s.Datasets[j].SamplesOf), param.Quote(s.Datasets[j].SamplesOf))
		case !sameSplit(ds.Split, s.Datasets[j].Split):
			d.errorf(at, path, "dataset %s is split %s, this entry %s; want the same split to share its samples", param.Quote(ds.SamplesOf), DescribeSplit(s.Datasets[j].Split), DescribeSplit(ds.Split))
		case ds.Tasks != s.Datasets[j].Tasks:
			d.errorf(at, path, "dataset %s has tasks %q, this entry %q; want the same tasks to share its samples", param.Quote(ds.SamplesOf), s.Datasets[j].Tasks, ds.Tasks)
		}
	}
}

// sameSplit reports whether a and b split alike: the same kind and params,
// compared as trial keys compare them (canonical).
func sameSplit(a, b Split) bool {
	return a.KindName() == b.KindName() && maps.Equal(Canonical(a.Params), Canonical(b.Params))
}

// checkReportX checks report.x: size, or a param that some method's
// series vary (a fixed-rule grid axis, or one a select rule's over leaves
// to the variants). The file's x is not held to grids changed by --set
// or smoke: assignments (a reduction to one point), nor to those of a
// resolved spec, which may hold such changes.
func (d *decoder) checkReportX(s *Spec, f *fields) {
	x := s.Report.X
	if x == "" || x == "size" {
		return
	}
	if _, set := d.sets[d.at(f, "report", "x")]; !set && (d.resolved || d.methodsSet()) {
		// The file's x, and grids --set or smoke: may have reduced.
		return
	}
	names := []string{"size"}
	chosen := ""
	for i := range s.Methods {
		m := &s.Methods[i]
		for _, v := range m.Variants() {
			for k := range v.Values {
				if !contains(names, k) {
					names = append(names, k)
				}
			}
		}
		if chosen == "" && contains(m.Varying, x) {
			chosen = m.Label
		}
	}
	if contains(names, x) {
		return
	}
	slices.Sort(names[1:])
	msg := "unknown x " + param.Quote(x)
	switch {
	case chosen != "":
		msg = fmt.Sprintf("%s is chosen by the select rule of method %s, so no series varies it", param.Quote(x), param.Quote(chosen))
	default:
		if c := param.Closest(x, names); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
	}
	d.errorf(d.at(f, "report", "x"), "report.x", "%s; want size or a param a method's series vary (%s)", msg, strings.Join(names, ", "))
}

// methodsSet reports whether a --set or smoke: assignment changes the
// methods.
func (d *decoder) methodsSet() bool {
	for arg := range d.setOrder {
		if key, _, _ := strings.Cut(arg, "="); key == "methods" || strings.HasPrefix(key, "methods.") {
			return true
		}
	}
	return false
}

// checkChooses checks that every method can take part in a report.choose
// entry at n: its select rule chooses among two or more grid points, and
// so leaves the select score the choice compares.
func (d *decoder) checkChooses(s *Spec, n *yaml.Node, path string) {
	for i := range s.Methods {
		m := &s.Methods[i]
		sel, err := LookupSelector(m.Select.RuleName())
		if err != nil {
			continue // reported at the rule
		}
		var why string
		switch {
		case !sel.Chooses:
			why = fmt.Sprintf("select rule %s chooses nothing", m.Select.RuleName())
		case len(m.Grid) < 2:
			why = fmt.Sprintf("select rule %s has one grid point to choose from", m.Select.RuleName())
		default:
			continue
		}
		d.errorf(n, path, "method %s: %s, so its trials have no select score to choose a dataset by; want every method with a choosing rule (%s) over two or more grid points, or no report.choose",
			param.Quote(m.Label), why, strings.Join(choosingRules(), ", "))
	}
}

// choosingRules returns the select rules that choose among grid points.
func choosingRules() []string {
	return ruleNames(func(s *Selector) bool { return s.Chooses })
}

// checkExpectSizes checks that the sizes of expectation x (at the node n
// of its sizes) are sizes of the curve: a count of curve.sizes, or, when
// curve.sizes has fractions, one of what they resolve to, which only the
// data can tell (CheckData). Only a per-size protocol is checked, and only
// sizes written in the file: a reduction by --set or smoke: (fewer sizes
// for a quick run), also as a resolved spec stores it (DIR/spec.yaml),
// leaves expectations at sizes it does not run, which check reports as
// not run.
func (d *decoder) checkExpectSizes(s *Spec, x Expectation, n *yaml.Node, path string) {
	p, err := LookupProtocol(s.Protocol.ProtocolName())
	if err != nil || !p.PerSize || len(s.Curve.Sizes) == 0 || s.sizesSet {
		return
	}
	for _, size := range s.Curve.Sizes {
		if size <= 1 {
			return // a fraction: CheckData resolves it
		}
	}
	for j, size := range x.Sizes {
		if slices.Contains(s.Curve.Sizes, size) {
			continue
		}
		at := n
		if n != nil && n.Kind == yaml.SequenceNode && j < len(n.Content) {
			at = n.Content[j]
		}
		d.errorf(at, Index(path, j), "%s is not a training size of curve.sizes; want one of %s", FormatSizes([]float64{size}), FormatSizes(s.Curve.Sizes))
	}
}

// DescribeSplit says what a split is: "holdout test 50", "kfold {folds=5 …}".
func DescribeSplit(s Split) string {
	if sp, err := LookupSplitter(s.Kind); err == nil && sp.Brief != nil {
		return s.KindName() + sp.Brief(s.Params)
	}
	if len(s.Params) > 0 {
		return s.KindName() + " {" + s.Params.Label() + "}"
	}
	return s.KindName()
}

// foldRules returns the select rules that use select.folds, in name order.
func foldRules() []string {
	return ruleNames(func(s *Selector) bool { return s.Folds })
}

// ruleNames returns the select rules keep keeps, in name order.
func ruleNames(keep func(*Selector) bool) []string {
	var names []string
	for _, n := range Selectors.Names() {
		if sel, err := LookupSelector(n); err == nil && keep(sel) {
			names = append(names, n)
		}
	}
	return names
}
