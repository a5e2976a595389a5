package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/runner"
)

// observation is one trial's metrics at one training size. A sequential
// result contributes one observation per point of its curve.
type observation struct {
	trial   int
	metrics map[string]float64
	res     *runner.Result
}

// cell holds the observations of one series at one training size.
type cell struct {
	size   int
	obs    []observation // successful trials, in trial order
	failed int           // failed trials at this size
}

// add appends o unless c already has an observation of the same trial:
// two sizes of the spec that come to the same number of rows (a count and
// a fraction of the pool) train on the same sample, and counting both
// would double the trials of the cell. The first, in spec order, is kept.
func (c *cell) add(o observation) {
	for _, p := range c.obs {
		if p.trial == o.trial {
			return
		}
	}
	c.obs = append(c.obs, o)
}

// values returns the metric values of c's observations (NaN when absent)
// and their trial indices.
func (c *cell) values(metric string) (vals []float64, trials []int) {
	if c == nil {
		return nil, nil
	}
	for _, o := range c.obs {
		v, ok := o.metrics[metric]
		if !ok {
			v = math.NaN()
		}
		vals = append(vals, v)
		trials = append(trials, o.trial)
	}
	return vals, trials
}

// series is one method series of a dataset: a method, or one grid point of
// a fixed-rule method.
type series struct {
	name    string // runner.SeriesName
	label   string // method label
	method  *runner.MethodSpec
	variant param.Values
	oracle  bool
	cells   map[int]*cell
	// results are the series' results in trial order (failed included).
	results []*runner.Result
	// seqFailed counts failed sequential trials: they fail every size.
	seqFailed int
	// unsized counts failed trials whose size could not be resolved.
	unsized int
}

// display is the series name as reports show it: oracle choices flagged.
func (s *series) display() string {
	if s.oracle {
		return s.name + " [oracle]"
	}
	return s.name
}

// md is display escaped for Markdown text.
func (s *series) md() string { return mdText(s.display()) }

func (s *series) rule() string {
	if s.method == nil {
		return "fixed"
	}
	return s.method.Select.RuleName()
}

func (s *series) cell(size int) *cell {
	c := s.cells[size]
	if c == nil {
		c = &cell{size: size}
		s.cells[size] = c
	}
	return c
}

// failedAt returns the failed trials counted at size.
func (s *series) failedAt(size int) int {
	n := s.seqFailed
	if c := s.cells[size]; c != nil {
		n += c.failed
	}
	return n
}

// dataSet groups a dataset's series.
type dataSet struct {
	id     string
	spec   *runner.DatasetSpec
	series []*series
	sizes  []int // ascending union of the series' sizes
}

// find returns the series called name: a series name, or a method label
// with a single series.
func (d *dataSet) find(name string) (*series, error) {
	var byLabel []*series
	for _, s := range d.series {
		if s.name == name {
			return s, nil
		}
		if s.label == name {
			byLabel = append(byLabel, s)
		}
	}
	switch len(byLabel) {
	case 0:
		return nil, fmt.Errorf("no method series %q in dataset %q", name, d.id)
	case 1:
		return byLabel[0], nil
	}
	return nil, fmt.Errorf("method %q has %d variants in dataset %q; name one, e.g. %q", name, len(byLabel), d.id, byLabel[0].name)
}

// model is the results of an experiment arranged for reporting.
type model struct {
	spec     *runner.Spec
	datasets []*dataSet
	digits   int
	failures []*runner.Result
}

// build arranges results by dataset and series in spec order.
func build(spec *runner.Spec, results []runner.Result) *model {
	m := &model{spec: spec, digits: spec.Report.Digits}
	if m.digits <= 0 {
		m.digits = 2
	}
	byID := map[string]*dataSet{}
	index := map[string]map[string]*series{}
	addSeries := func(d *dataSet, s *series) {
		s.cells = map[int]*cell{}
		d.series = append(d.series, s)
		index[d.id][s.name] = s
	}
	for i := range spec.Datasets {
		ds := &spec.Datasets[i]
		id := ds.ID
		if id == "" {
			id = ds.Name
		}
		d := &dataSet{id: id, spec: ds}
		byID[id] = d
		index[id] = map[string]*series{}
		m.datasets = append(m.datasets, d)
		for mi := range spec.Methods {
			ms := &spec.Methods[mi]
			label := ms.Label
			if label == "" {
				label = ms.Name
			}
			oracle := ms.Select.Rule == "test"
			for _, v := range ms.Variants() {
				addSeries(d, &series{name: runner.SeriesName(label, v.Values), label: label, method: ms, variant: v.Values, oracle: oracle})
			}
		}
	}

	// Failed trials carry no size; the plan (when the plugins are
	// registered) maps their key to the size written in the spec, and the
	// successful trials of the same dataset map that to a count.
	planned := map[string]*runner.Trial{}
	if plan, err := runner.NewPlan(spec); err == nil {
		for _, t := range plan.Trials {
			planned[t.Key] = t
		}
	}
	type specSize struct {
		dataset string
		size    float64
	}
	resolved := map[specSize]int{}
	for i := range results {
		r := &results[i]
		if t := planned[r.Key]; t != nil && t.Size > 0 && !r.Failed() && r.Size > 0 {
			resolved[specSize{r.Dataset, t.Size}] = r.Size
		}
	}

	sorted := make([]*runner.Result, len(results))
	for i := range results {
		sorted[i] = &results[i]
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Trial < sorted[j].Trial })
	for _, r := range sorted {
		d := byID[r.Dataset]
		if d == nil {
			continue
		}
		name := runner.SeriesName(r.Method, param.Values(r.Variant))
		s := index[d.id][name]
		if s == nil {
			s = &series{name: name, label: r.Method, variant: param.Values(r.Variant)}
			addSeries(d, s)
		}
		s.oracle = s.oracle || r.Oracle
		s.results = append(s.results, r)
		t := planned[r.Key]
		if r.Failed() {
			m.failures = append(m.failures, r)
			switch {
			case t != nil && t.Size == 0:
				s.seqFailed++
			case r.Size > 0:
				s.cell(r.Size).failed++
			case t != nil && resolved[specSize{r.Dataset, t.Size}] > 0:
				s.cell(resolved[specSize{r.Dataset, t.Size}]).failed++
			case t != nil && t.Size > 1:
				s.cell(int(t.Size)).failed++
			default:
				s.unsized++
			}
			continue
		}
		if len(r.Observations) > 0 {
			for _, o := range r.Observations {
				s.cell(int(o.X)).add(observation{trial: r.Trial, metrics: o.Metrics, res: r})
			}
			continue
		}
		s.cell(r.Size).add(observation{trial: r.Trial, metrics: r.Metrics, res: r})
	}
	for _, d := range m.datasets {
		seen := map[int]bool{}
		for _, s := range d.series {
			for size := range s.cells {
				if !seen[size] {
					seen[size] = true
					d.sizes = append(d.sizes, size)
				}
			}
		}
		sort.Ints(d.sizes)
	}
	return m
}

// fmtNum formats v with the report's digits; NaN is "—".
func (m *model) fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	s := strconv.FormatFloat(v, 'f', m.digits, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', m.digits, 64) {
		s = s[1:] // no negative zero
	}
	return s
}

// toFloat converts a parameter value to a number for sweep plots.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}
