package runner

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
)

// The keys of each mapping in a spec.
var (
	specKeys      = []string{"name", "description", "seed", "datasets", "methods", "curve", "metrics", "baseline", "report", "expect"}
	datasetKeys   = []string{"name", "id", "params", "transforms", "split", "tasks"}
	transformKeys = []string{"name", "params"}
	splitKeys     = []string{"kind", "test", "stratify"}
	methodKeys    = []string{"name", "label", "params", "select"}
	selectKeys    = []string{"rule", "folds", "metric", "over"}
	curveKeys     = []string{"sizes", "trials", "sampling"}
	reportKeys    = []string{"logx", "x", "x_transform", "digits"}
	expectKeys    = []string{"dataset", "metric", "sizes", "method", "value", "tol", "rtol", "min", "max", "better", "than", "by", "within", "source", "note"}
)

// The choices of the enumerated fields.
var (
	splitKinds  = []string{"given", "holdout", "rest", "train"}
	selectRules = []string{"fixed", "cv", "test"}
	samplings   = []string{string(datasets.Random), string(datasets.Stratified), string(datasets.Balanced)}
	taskModes   = []string{"one-vs-rest"}
	xTransforms = []string{"neglog"}
)

// Limits on what a spec may ask for.
const (
	// DefaultSeed is the experiment seed when the spec gives none.
	DefaultSeed = 1
	// DefaultFolds is the number of cross-validation folds of a cv rule.
	DefaultFolds = 5
	// DefaultDigits is the number of decimals in report tables.
	DefaultDigits = 2
	maxGrid       = 100000
	maxTrials     = 100000
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// spec decodes the root node.
func (d *decoder) spec(root *yaml.Node) *Spec {
	s := &Spec{File: d.file, Seed: DefaultSeed}
	f := d.mapping(root, "", specKeys)
	if f == nil {
		return s
	}
	if n := f.get(d, "name"); n == nil {
		d.errorf(f.node, "name", "missing; want the experiment's name, e.g. sandler2008-fig1-20newsgroups")
	} else if v, ok := d.str(n, "name"); ok {
		if !nameRE.MatchString(v) || strings.Contains(v, "..") {
			d.errorf(n, "name", "%q is not a plain name; want letters, digits, '.', '_' and '-' (it names the output directory)", v)
		}
		s.Name = v
	}
	if n := f.get(d, "description"); n != nil {
		s.Description, _ = d.str(n, "description")
	}
	if n := f.get(d, "seed"); n != nil {
		if v, ok := d.integer(n, "seed", 0, math.MaxInt64); ok {
			s.Seed = uint64(v)
		}
	}
	// metrics before methods: select rules default to the first metric.
	if n := f.get(d, "metrics"); n == nil {
		d.errorf(f.node, "metrics", "missing; want a list of metrics from %s", strings.Join(metric.Names(), ", "))
	} else if list, ok := d.sequence(n, "metrics", "metric names"); ok {
		if len(list) == 0 {
			d.errorf(n, "metrics", "empty list; want at least one metric from %s", strings.Join(metric.Names(), ", "))
		}
		seen := map[string]bool{}
		for i, e := range list {
			name, ok := d.metricName(e, index("metrics", i))
			if !ok {
				continue
			}
			if seen[name] {
				d.errorf(e, index("metrics", i), "duplicate metric %q; want each metric once", name)
				continue
			}
			seen[name] = true
			s.Metrics = append(s.Metrics, name)
		}
	}
	if n := f.get(d, "datasets"); n == nil {
		d.errorf(f.node, "datasets", "missing; want a list of datasets, each with a name from %s", strings.Join(datasets.Names(), ", "))
	} else if list, ok := d.sequence(n, "datasets", "datasets"); ok {
		if len(list) == 0 {
			d.errorf(n, "datasets", "empty list; want at least one dataset")
		}
		ids := map[string]*yaml.Node{}
		for i, e := range list {
			ds, idNode := d.dataset(e, index("datasets", i))
			if ds == nil {
				continue
			}
			if prev, dup := ids[ds.ID]; dup {
				d.errorf(idNode, index("datasets", i)+".id", "duplicate dataset id %q (first at line %d); want a unique id for each entry", ds.ID, prev.Line)
				continue
			}
			ids[ds.ID] = idNode
			s.Datasets = append(s.Datasets, *ds)
		}
	}
	if n := f.get(d, "methods"); n == nil {
		d.errorf(f.node, "methods", "missing; want a list of methods, each with a name from %s", strings.Join(methods.Names(), ", "))
	} else if list, ok := d.sequence(n, "methods", "methods"); ok {
		if len(list) == 0 {
			d.errorf(n, "methods", "empty list; want at least one method")
		}
		labels := map[string]*yaml.Node{}
		for i, e := range list {
			m, labelNode := d.method(e, index("methods", i), s.Metrics)
			if m == nil {
				continue
			}
			if prev, dup := labels[m.Label]; dup {
				d.errorf(labelNode, index("methods", i)+".label", "duplicate method label %q (first at line %d); want a unique label for each entry", m.Label, prev.Line)
				continue
			}
			labels[m.Label] = labelNode
			s.Methods = append(s.Methods, *m)
		}
	}
	if n := f.get(d, "curve"); n == nil {
		d.errorf(f.node, "curve", "missing; want a mapping with sizes (and trials, sampling)")
	} else {
		s.Curve = d.curve(n, "curve")
	}
	if n := f.get(d, "baseline"); n != nil {
		s.Baseline, _ = d.str(n, "baseline")
	}
	s.Report = d.report(f.get(d, "report"), "report")
	if n := f.get(d, "expect"); n != nil {
		if list, ok := d.sequence(n, "expect", "expectations"); ok {
			for i, e := range list {
				if x := d.expectation(e, index("expect", i)); x != nil {
					s.Expect = append(s.Expect, *x)
				}
			}
		}
	}
	d.crossCheck(s, f)
	return s
}

// metricName decodes a registered metric name.
func (d *decoder) metricName(n *yaml.Node, path string) (string, bool) {
	name, ok := d.str(n, path)
	if !ok {
		return "", false
	}
	if _, err := metric.Lookup(name); err != nil {
		d.errorf(n, path, "%v", err)
		return "", false
	}
	return name, true
}

// dataset decodes one entry of datasets:, returning it and the node that
// gives its id (for duplicate errors).
func (d *decoder) dataset(n *yaml.Node, path string) (*DatasetSpec, *yaml.Node) {
	f := d.mapping(n, path, datasetKeys)
	if f == nil {
		return nil, nil
	}
	ds := &DatasetSpec{Pos: posOf(f.node), Split: Split{Kind: "rest"}}
	ok := true
	var loader *datasets.Loader
	nameNode := f.get(d, "name")
	if nameNode == nil {
		d.errorf(f.node, sub(path, "name"), "missing; want a dataset plugin from %s", strings.Join(datasets.Names(), ", "))
		ok = false
	} else if name, good := d.str(nameNode, sub(path, "name")); good {
		ds.Name = name
		l, err := datasets.Lookup(name)
		if err != nil {
			d.errorf(nameNode, sub(path, "name"), "%v", err)
			ok = false
		}
		loader = l
	} else {
		ok = false
	}
	ds.ID = ds.Name
	idNode := nameNode
	if n := f.get(d, "id"); n != nil {
		if id, good := d.str(n, sub(path, "id")); good {
			if !nameRE.MatchString(id) {
				d.errorf(n, sub(path, "id"), "%q is not a plain name; want letters, digits, '.', '_' and '-'", id)
			}
			ds.ID, idNode = id, n
		}
	}
	if idNode == nil {
		idNode = f.node
	}
	if loader != nil {
		ds.Params = d.fixedParams(f.vals["params"], f.node, sub(path, "params"), loader.Params, "dataset")
	} else if pn := f.get(d, "params"); pn != nil {
		d.mapping(pn, sub(path, "params"), nil)
	}
	if tn := f.get(d, "transforms"); tn != nil {
		if list, good := d.sequence(tn, sub(path, "transforms"), "transforms"); good {
			for i, e := range list {
				if t := d.transform(e, index(sub(path, "transforms"), i)); t != nil {
					ds.Transforms = append(ds.Transforms, *t)
				}
			}
		}
	}
	if sn := f.get(d, "split"); sn != nil {
		ds.Split = d.split(sn, sub(path, "split"))
	}
	if tn := f.get(d, "tasks"); tn != nil {
		ds.Tasks, _ = d.oneOf(tn, sub(path, "tasks"), taskModes...)
	}
	if !ok {
		return nil, nil
	}
	return ds, idNode
}

func (d *decoder) transform(n *yaml.Node, path string) *TransformSpec {
	f := d.mapping(n, path, transformKeys)
	if f == nil {
		return nil
	}
	t := &TransformSpec{Pos: posOf(f.node)}
	nameNode := f.get(d, "name")
	if nameNode == nil {
		d.errorf(f.node, sub(path, "name"), "missing; want a transform from %s", strings.Join(datasets.TransformNames(), ", "))
		return nil
	}
	name, ok := d.str(nameNode, sub(path, "name"))
	if !ok {
		return nil
	}
	t.Name = name
	tr, err := datasets.LookupTransform(name)
	if err != nil {
		d.errorf(nameNode, sub(path, "name"), "%v", err)
		return nil
	}
	t.Params = d.fixedParams(f.vals["params"], f.node, sub(path, "params"), tr.Params, "transform")
	return t
}

func (d *decoder) split(n *yaml.Node, path string) Split {
	s := Split{Kind: "rest"}
	f := d.mapping(n, path, splitKeys)
	if f == nil {
		return s
	}
	if kn := f.get(d, "kind"); kn != nil {
		if k, ok := d.oneOf(kn, sub(path, "kind"), splitKinds...); ok {
			s.Kind = k
		}
	} else {
		d.errorf(f.node, sub(path, "kind"), "missing; want one of %s", strings.Join(splitKinds, ", "))
	}
	s.Params = param.Values{}
	tn := f.get(d, "test")
	if tn != nil {
		if v, ok := d.float(tn, sub(path, "test")); ok {
			switch {
			case v <= 0:
				d.errorf(tn, sub(path, "test"), "%s is out of range; want a count ≥ 1 or a fraction in (0, 1)", tn.Value)
			case v >= 1 && v != math.Trunc(v):
				d.errorf(tn, sub(path, "test"), "%s is not a whole number of rows; want a count ≥ 1 or a fraction in (0, 1)", tn.Value)
			default:
				s.Params["test"] = v
			}
		}
	}
	if sn := f.get(d, "stratify"); sn != nil {
		if b, ok := d.boolean(sn, sub(path, "stratify")); ok && b {
			s.Params["stratify"] = true
		}
	}
	if s.Kind == "holdout" {
		if !s.Params.Has("stratify") {
			s.Params["stratify"] = false
		}
		if tn == nil {
			d.errorf(f.node, sub(path, "test"), "missing for kind holdout; want the test set size: a count ≥ 1 or a fraction in (0, 1)")
		}
	} else {
		if tn != nil {
			d.errorf(tn, sub(path, "test"), "only used by kind holdout, not %s; want no test", s.Kind)
			delete(s.Params, "test")
		}
		if sn := f.get(d, "stratify"); sn != nil && s.Params.Bool("stratify") {
			d.errorf(sn, sub(path, "stratify"), "only used by kind holdout, not %s; want no stratify", s.Kind)
			delete(s.Params, "stratify")
		}
	}
	return s
}

// method decodes one entry of methods:, returning it and the node that
// gives its label.
func (d *decoder) method(n *yaml.Node, path string, metrics []string) (*MethodSpec, *yaml.Node) {
	f := d.mapping(n, path, methodKeys)
	if f == nil {
		return nil, nil
	}
	m := &MethodSpec{Pos: posOf(f.node), Select: Select{Rule: "fixed"}}
	ok := true
	var plugin *methods.Plugin
	nameNode := f.get(d, "name")
	if nameNode == nil {
		d.errorf(f.node, sub(path, "name"), "missing; want a method plugin from %s", strings.Join(methods.Names(), ", "))
		ok = false
	} else if name, good := d.str(nameNode, sub(path, "name")); good {
		m.Name = name
		p, err := methods.Lookup(name)
		if err != nil {
			d.errorf(nameNode, sub(path, "name"), "%v", err)
			ok = false
		}
		plugin = p
	} else {
		ok = false
	}
	m.Label = m.Name
	labelNode := nameNode
	if ln := f.get(d, "label"); ln != nil {
		if l, good := d.str(ln, sub(path, "label")); good {
			if strings.TrimSpace(l) == "" || strings.ContainsAny(l, "()\n") {
				d.errorf(ln, sub(path, "label"), "%q is not a usable label; want a non-empty name without parentheses or newlines", l)
			}
			m.Label, labelNode = l, ln
		}
	}
	if labelNode == nil {
		labelNode = f.node
	}
	if plugin != nil {
		d.gridParams(m, f.vals["params"], f.node, sub(path, "params"), plugin)
		for _, name := range metrics {
			if mt, err := metric.Lookup(name); err == nil && mt.Kinds != 0 && plugin.Kinds != 0 && mt.Kinds&plugin.Kinds == 0 {
				d.errorf(nameNode, sub(path, "name"), "method %s handles %s but metric %s applies to %s; want methods and metrics of one problem kind", m.Name, plugin.Kinds, name, mt.Kinds)
			}
		}
	} else if pn := f.get(d, "params"); pn != nil {
		d.mapping(pn, sub(path, "params"), nil)
	}
	if sn := f.get(d, "select"); sn != nil {
		var over *yaml.Node
		m.Select, over = d.selectRule(sn, sub(path, "select"), metrics)
		if over != nil {
			d.selectOver(m, over, sub(sub(path, "select"), "over"))
		}
	}
	if !ok {
		return nil, nil
	}
	return m, labelNode
}

// selectRule decodes a method's select mapping; it returns the node of
// select.over, which needs the method's grid to be checked.
func (d *decoder) selectRule(n *yaml.Node, path string, metrics []string) (Select, *yaml.Node) {
	s := Select{Rule: "fixed"}
	f := d.mapping(n, path, selectKeys)
	if f == nil {
		return s, nil
	}
	if rn := f.get(d, "rule"); rn != nil {
		if r, ok := d.oneOf(rn, sub(path, "rule"), selectRules...); ok {
			s.Rule = r
		}
	} else {
		d.errorf(f.node, sub(path, "rule"), "missing; want one of %s", strings.Join(selectRules, ", "))
	}
	fn, mn := f.get(d, "folds"), f.get(d, "metric")
	if fn != nil {
		if v, ok := d.integer(fn, sub(path, "folds"), math.MinInt64, math.MaxInt64); ok {
			if v < 2 || v > 1000 {
				d.errorf(fn, sub(path, "folds"), "%d is out of range; want an integer in [2, 1000]", v)
			} else {
				s.Folds = int(v)
			}
		}
	}
	if mn != nil {
		s.Metric, _ = d.metricName(mn, sub(path, "metric"))
	}
	switch s.Rule {
	case "cv":
		if s.Folds == 0 {
			s.Folds = DefaultFolds
		}
	case "test":
		if fn != nil {
			d.errorf(fn, sub(path, "folds"), "only used by rule cv, not test; want no folds")
		}
		s.Folds = 0
	case "fixed":
		// Nothing is selected: folds and metric are ignored, and zeroed so
		// that switching a rule to fixed with --set works and keys do not
		// depend on them.
		s.Folds, s.Metric = 0, ""
	}
	if s.Rule != "fixed" && s.Metric == "" && mn == nil && len(metrics) > 0 {
		s.Metric = metrics[0]
	}
	if s.Rule != "fixed" && s.Metric == "" && mn == nil {
		d.errorf(f.node, sub(path, "metric"), "missing for rule %s and no metrics: to default to; want a metric", s.Rule)
	}
	return s, f.get(d, "over")
}

// selectOver decodes select.over: varying params of m, for a cv or test rule.
func (d *decoder) selectOver(m *MethodSpec, n *yaml.Node, path string) {
	if m.Select.Rule != "cv" && m.Select.Rule != "test" {
		d.errorf(n, path, "only used by rules cv and test, not %s; want no over", m.Select.Rule)
		return
	}
	list, ok := d.sequence(n, path, "varying params")
	if !ok {
		return
	}
	varying := map[string]bool{}
	for _, v := range m.Varying {
		varying[v] = true
	}
	seen := map[string]bool{}
	for i, e := range list {
		name, ok := d.str(e, index(path, i))
		if !ok {
			continue
		}
		switch {
		case seen[name]:
			d.errorf(e, index(path, i), "%q is listed twice; want each param once", name)
		case !varying[name]:
			want := "none: the method has no grid"
			if len(m.Varying) > 0 {
				want = "one of " + strings.Join(m.Varying, ", ")
			}
			d.errorf(e, index(path, i), "%q is not a varying param of method %s; want %s", name, m.Label, want)
		default:
			seen[name] = true
		}
	}
	// Keep declaration order, and drop over when it names every varying
	// param: the same selection as no over, with the same trial keys.
	for _, v := range m.Varying {
		if seen[v] {
			m.Select.Over = append(m.Select.Over, v)
		}
	}
	if len(m.Select.Over) == len(m.Varying) {
		m.Select.Over = nil
	}
}

func (d *decoder) curve(n *yaml.Node, path string) Curve {
	c := Curve{Trials: 1, Sampling: string(datasets.Random)}
	f := d.mapping(n, path, curveKeys)
	if f == nil {
		return c
	}
	sn := f.get(d, "sizes")
	if sn == nil {
		d.errorf(f.node, sub(path, "sizes"), "missing; want a list of training sizes: counts ≥ 2 or fractions in (0, 1] of the training pool")
	} else if list, ok := d.sequence(sn, sub(path, "sizes"), "training sizes"); ok {
		if len(list) == 0 {
			d.errorf(sn, sub(path, "sizes"), "empty list; want at least one training size")
		}
		seen := map[float64]bool{}
		for i, e := range list {
			p := index(sub(path, "sizes"), i)
			v, ok := d.float(e, p)
			if !ok {
				continue
			}
			switch {
			case v <= 0:
				d.errorf(e, p, "%s is out of range; want a count ≥ 2 or a fraction in (0, 1]", e.Value)
			case v > 1<<53:
				d.errorf(e, p, "%s is too large for a count of rows; want a count ≥ 2 or a fraction in (0, 1]", e.Value)
			case v > 1 && v != math.Trunc(v):
				d.errorf(e, p, "%s is not a whole number of rows; want a count ≥ 2 or a fraction in (0, 1]", e.Value)
			case seen[v]:
				d.errorf(e, p, "duplicate size %s; want each size once", e.Value)
			default:
				seen[v] = true
				c.Sizes = append(c.Sizes, v)
			}
		}
	}
	if tn := f.get(d, "trials"); tn != nil {
		if v, ok := d.integer(tn, sub(path, "trials"), math.MinInt64, math.MaxInt64); ok {
			if v < 1 || v > maxTrials {
				d.errorf(tn, sub(path, "trials"), "%d is out of range; want an integer in [1, %d]", v, maxTrials)
			} else {
				c.Trials = int(v)
			}
		}
	}
	if sn := f.get(d, "sampling"); sn != nil {
		if v, ok := d.oneOf(sn, sub(path, "sampling"), samplings...); ok {
			c.Sampling = v
		}
	}
	return c
}

func (d *decoder) report(n *yaml.Node, path string) ReportSpec {
	r := ReportSpec{X: "size", Digits: DefaultDigits}
	f := d.mapping(n, path, reportKeys)
	if f == nil {
		return r
	}
	if v := f.get(d, "logx"); v != nil {
		r.LogX, _ = d.boolean(v, sub(path, "logx"))
	}
	if v := f.get(d, "x"); v != nil {
		if x, ok := d.str(v, sub(path, "x")); ok {
			r.X = x // checked against the methods' varying params in crossCheck
		}
	}
	if v := f.get(d, "x_transform"); v != nil {
		r.XTransform, _ = d.oneOf(v, sub(path, "x_transform"), xTransforms...)
	}
	if v := f.get(d, "digits"); v != nil {
		if x, ok := d.integer(v, sub(path, "digits"), 0, 12); ok {
			r.Digits = int(x)
		}
	}
	return r
}

func (d *decoder) expectation(n *yaml.Node, path string) *Expectation {
	f := d.mapping(n, path, expectKeys)
	if f == nil {
		return nil
	}
	x := &Expectation{Pos: posOf(f.node)}
	strField := func(key string, dst *string) {
		if v := f.get(d, key); v != nil {
			*dst, _ = d.str(v, sub(path, key))
		}
	}
	numField := func(key string) *float64 {
		v := f.get(d, key)
		if v == nil {
			return nil
		}
		if x, ok := d.float(v, sub(path, key)); ok {
			return &x
		}
		return nil
	}
	strField("dataset", &x.Dataset)
	strField("method", &x.Method)
	strField("better", &x.Better)
	strField("than", &x.Than)
	strField("source", &x.Source)
	strField("note", &x.Note)
	if v := f.get(d, "metric"); v == nil {
		d.errorf(f.node, sub(path, "metric"), "missing; want the metric the expectation is about")
	} else {
		x.Metric, _ = d.metricName(v, sub(path, "metric"))
	}
	if v := f.get(d, "sizes"); v != nil {
		if list, ok := d.sequence(v, sub(path, "sizes"), "training sizes"); ok {
			for i, e := range list {
				if s, ok := d.integer(e, index(sub(path, "sizes"), i), 1, math.MaxInt32); ok {
					x.Sizes = append(x.Sizes, int(s))
				}
			}
		}
	}
	x.Value, x.Tol, x.RTol = numField("value"), numField("tol"), numField("rtol")
	x.Min, x.Max = numField("min"), numField("max")
	if v := numField("by"); v != nil {
		x.By = *v
	}
	x.Within = numField("within")
	for _, k := range []struct {
		key string
		v   *float64
	}{{"tol", x.Tol}, {"rtol", x.RTol}, {"within", x.Within}, {"by", func() *float64 {
		if f.get(d, "by") != nil {
			return &x.By
		}
		return nil
	}()}} {
		if k.v != nil && *k.v < 0 {
			d.errorf(f.get(d, k.key), sub(path, k.key), "%s is negative; want a number ≥ 0", param.Format(*k.v))
		}
	}
	isValue := f.get(d, "method") != nil || f.get(d, "value") != nil || f.get(d, "min") != nil || f.get(d, "max") != nil
	isRel := f.get(d, "better") != nil || f.get(d, "than") != nil
	switch {
	case isValue && isRel:
		d.errorf(f.node, path, "both a value check (method, value, min, max) and a relation (better, than); want one of them per entry")
	case !isValue && !isRel:
		d.errorf(f.node, path, "neither a value check nor a relation; want method with value (and tol or rtol), min or max, or better with than")
	case isValue:
		if f.get(d, "method") == nil {
			d.errorf(f.node, sub(path, "method"), "missing; want the method label the value is about")
		}
		if f.get(d, "value") == nil && f.get(d, "min") == nil && f.get(d, "max") == nil {
			d.errorf(f.node, path, "no value, min or max; want what the method's metric should be")
		}
		if f.get(d, "value") != nil && f.get(d, "tol") == nil && f.get(d, "rtol") == nil {
			d.errorf(f.get(d, "value"), sub(path, "value"), "no tolerance; want tol (absolute) or rtol (relative) beside value")
		}
		if f.get(d, "value") == nil {
			for _, k := range []string{"tol", "rtol"} {
				if v := f.get(d, k); v != nil {
					d.errorf(v, sub(path, k), "a tolerance without a value; want value beside %s", k)
				}
			}
		}
		if x.Min != nil && x.Max != nil && *x.Min > *x.Max {
			d.errorf(f.get(d, "min"), sub(path, "min"), "min %s is above max %s; want min ≤ max", param.Format(*x.Min), param.Format(*x.Max))
		}
		for _, k := range []string{"by", "within"} {
			if v := f.get(d, k); v != nil {
				d.errorf(v, sub(path, k), "%s belongs to a relation; want better and than with it, or no %s", k, k)
			}
		}
	case isRel:
		if f.get(d, "better") == nil {
			d.errorf(f.node, sub(path, "better"), "missing; want the method label that should win")
		}
		if f.get(d, "than") == nil {
			d.errorf(f.node, sub(path, "than"), "missing; want the method label it should beat")
		}
		if by, w := f.get(d, "by"), f.get(d, "within"); by != nil && w != nil {
			d.errorf(w, sub(path, "within"), "both by (Better wins by a margin) and within (Better trails by at most a margin); want one of them")
		}
		if x.Better != "" && x.Better == x.Than {
			d.errorf(f.get(d, "than"), sub(path, "than"), "%q is compared with itself; want two different methods", x.Than)
		}
	}
	return x
}

// fixedParams decodes the params of a dataset or transform: no grids,
// defaults filled, required ones checked. owner is the mapping holding
// params, for the position of a missing required param.
func (d *decoder) fixedParams(n, owner *yaml.Node, path string, decls []param.Decl, what string) param.Values {
	axes, _, ok := d.params(n, path, decls, false, what)
	out := param.Defaults(decls)
	for k, v := range out {
		out[k] = normalize(decls, k, v)
	}
	for k, vs := range axes {
		out[k] = vs[0]
	}
	if ok {
		d.required(n, owner, path, decls, out)
	}
	return out
}

// required reports the required params that have no value.
func (d *decoder) required(n, owner *yaml.Node, path string, decls []param.Decl, have param.Values) {
	for _, decl := range decls {
		if _, ok := have[decl.Name]; !ok && decl.Required() {
			at := d.resolve(n)
			if isNull(at) {
				at = owner
			}
			d.errorf(at, sub(path, decl.Name), "missing required parameter; want %s (%s)", decl.Range(), decl.Doc)
		}
	}
}

// normalize converts a plugin's declared default to the declared Go type
// (a Default of 1 for a float param becomes 1.0).
func normalize(decls []param.Decl, name string, v any) any {
	decl, ok := param.Find(decls, name)
	if !ok {
		return v
	}
	if c, err := decl.Convert(v); err == nil {
		return c
	}
	return v
}

// gridParams decodes a method's params into its grid.
func (d *decoder) gridParams(m *MethodSpec, n, owner *yaml.Node, path string, p *methods.Plugin) {
	axes, written, ok := d.params(n, path, p.Params, true, "method")
	m.Params = written
	have := param.Values{}
	for k := range axes {
		have[k] = true
	}
	for _, decl := range p.Params {
		if decl.Default != nil {
			have[decl.Name] = true
		}
	}
	if ok {
		d.required(n, owner, path, p.Params, have)
	}
	// The grid: declaration order, last varying fastest.
	size := 1
	for _, decl := range p.Params {
		if vs, ok := axes[decl.Name]; ok {
			if size > maxGrid/len(vs) {
				d.errorf(n, path, "the grid has more than %d points; want a smaller grid", maxGrid)
				return
			}
			size *= len(vs)
			if len(vs) > 1 {
				m.Varying = append(m.Varying, decl.Name)
			}
		}
	}
	grid := []param.Values{{}}
	for _, decl := range p.Params {
		vs, ok := axes[decl.Name]
		if !ok {
			if decl.Default == nil {
				continue // reported as missing
			}
			vs = []any{normalize(p.Params, decl.Name, decl.Default)}
		}
		next := make([]param.Values, 0, len(grid)*len(vs))
		for _, g := range grid {
			for _, v := range vs {
				c := g.Clone()
				c[decl.Name] = v
				next = append(next, c)
			}
		}
		grid = next
	}
	m.Grid = grid
}

// params decodes a params mapping against decls. Each value becomes an
// axis: one value, or (with grid) the values of a list for a scalar-typed
// param or a list of lists for a list-typed one. written holds the values
// as given (a value, or a []any for a grid axis). ok is false if the node
// is not a mapping.
func (d *decoder) params(n *yaml.Node, path string, decls []param.Decl, grid bool, what string) (axes map[string][]any, written map[string]any, ok bool) {
	axes = map[string][]any{}
	f := d.mapping(n, path, nil)
	if f == nil {
		return axes, nil, false
	}
	names := param.Names(decls)
	for _, decl := range decls {
		vn, present := f.vals[decl.Name]
		if !present {
			continue
		}
		p := sub(path, decl.Name)
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
			v, good := d.paramValue(vn, p, decl)
			if good {
				axes[decl.Name] = []any{v}
				if written == nil {
					written = map[string]any{}
				}
				written[decl.Name] = v
			}
			continue
		}
		if len(vn.Content) == 0 {
			d.errorf(vn, p, "empty list; want at least one value (%s)", decl.Range())
			continue
		}
		var vs []any
		seen := map[string]bool{}
		good := true
		for i, e := range vn.Content {
			e = d.resolve(e)
			if e == nil {
				return axes, written, true
			}
			ep := index(p, i)
			if e.Kind != yaml.ScalarNode && !decl.Type.IsList() {
				d.errorf(e, ep, "got %s in a grid; want %s", kindName(e), decl.Range())
				good = false
				continue
			}
			v, ok := d.paramValue(e, ep, decl)
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
			vs = append(vs, v)
		}
		if good {
			axes[decl.Name] = vs
			if written == nil {
				written = map[string]any{}
			}
			written[decl.Name] = vs
		}
	}
	// Unknown params (reported in any order: errors are sorted later).
	keys := make([]string, 0, len(f.keys))
	for k := range f.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, name := range keys {
		k := f.keys[name]
		if _, known := param.Find(decls, k.Value); known {
			continue
		}
		msg := fmt.Sprintf("unknown parameter %q", k.Value)
		if s := param.Closest(k.Value, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		if len(names) == 0 {
			d.errorf(k, sub(path, k.Value), "%s; want no params (the plugin has none)", msg)
		} else {
			d.errorf(k, sub(path, k.Value), "%s; want one of %s", msg, strings.Join(names, ", "))
		}
	}
	return axes, written, true
}

// paramValue converts one value node with decl.
func (d *decoder) paramValue(n *yaml.Node, path string, decl param.Decl) (any, bool) {
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
			v, ok := d.raw(e, index(path, i), t, depth+1)
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
				d.errorf(vn, sub(path, k), "got %s; want a string", kindName(vn))
				return nil, false
			}
			out[k] = vn.Value
		}
		return out, true
	}
	d.errorf(n, path, "got %s; want %s", kindName(n), t)
	return nil, false
}
