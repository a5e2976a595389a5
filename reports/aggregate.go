package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// observation is one trial's values at one x: a point of
// results.Result.Points, so a trial whose protocol yields several (active
// learning: one per batch) contributes one per point.
type observation struct {
	trial   int
	metrics results.Metrics
	extras  results.Metrics
	// boot holds the point's metrics on the bootstrap resamples of the
	// test set (report.bootstrap), nil without.
	boot results.Samples
	res  *results.Result
	// last marks the trial's final point, the one its artifacts belong to.
	last bool
}

// value returns the metric called name or, failing that, the extra.
func (o *observation) value(name string) (float64, bool) {
	if v, ok := o.metrics[name]; ok {
		return v, true
	}
	v, ok := o.extras[name]
	return v, ok
}

// cell holds the observations of one series at one x (a training size,
// unless the protocol says otherwise).
type cell struct {
	x      float64
	obs    []observation // successful trials, in trial order
	failed int           // failed trials at this x
	// trials holds the trial indices of obs, for add.
	trials map[int]bool
	// byName caches values by name.
	byName map[string]cellValues
}

// add appends o unless c already has an observation of the same trial:
// two sizes of the spec that come to the same number of rows (a count and
// a fraction of the pool) train on the same sample, and counting both
// would double the trials of the cell. The first, in spec order, is kept.
func (c *cell) add(o observation) {
	if c.trials[o.trial] {
		return
	}
	if c.trials == nil {
		c.trials = map[int]bool{}
	}
	c.trials[o.trial] = true
	c.obs = append(c.obs, o)
}

// values returns the values of the metric or extra called name in c's
// observations (NaN when absent) and their trial indices.
func (c *cell) values(name string) (vals []float64, trials []int) {
	if c == nil {
		return nil, nil
	}
	// The report asks for a cell's values in every table and plot: they
	// are gathered once per name (a look-up in each trial's map, spread
	// over the heap) and copied out, so a caller may sort its copy.
	v, ok := c.byName[name]
	if !ok || len(v.vals) != len(c.obs) {
		v = cellValues{vals: make([]float64, len(c.obs)), trials: make([]int, len(c.obs))}
		for i := range c.obs {
			o := &c.obs[i]
			x, ok := o.value(name)
			if !ok {
				x = math.NaN()
			}
			v.vals[i], v.trials[i] = x, o.trial
		}
		if c.byName == nil {
			c.byName = map[string]cellValues{}
		}
		c.byName[name] = v
	}
	if len(v.vals) == 0 {
		return nil, nil
	}
	return slices.Clone(v.vals), slices.Clone(v.trials)
}

// cellValues are the values of one metric or extra in a cell's
// observations and their trial indices.
type cellValues struct {
	vals   []float64
	trials []int
}

// series is one method series of a dataset: a method, or one grid point of
// a fixed-rule method.
type series struct {
	name    string // runner.SeriesName
	label   string // method label
	method  *spec.MethodSpec
	variant param.Values
	oracle  bool
	cells   map[float64]*cell
	// results are the series' results in trial order (failed included).
	results []*results.Result
	// wholeFailed counts failed whole-curve trials (a protocol that is
	// not run per size): they fail at every x.
	wholeFailed int
	// unsized counts failed trials whose size could not be resolved.
	unsized int
	// notRunAt counts, per x, the series' planned trials that have no
	// result at all (an interrupted run, a shard still missing);
	// notRunAll those whose x is not known (a whole-curve trial, or a
	// fraction no stored trial resolved), which count at every x.
	notRunAt  map[float64]int
	notRunAll int
}

// notRun returns the number of planned trials of s at x without a result.
func (s *series) notRun(x float64) int { return s.notRunAll + s.notRunAt[x] }

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
		return spec.Select{}.RuleName() // the default rule
	}
	return s.method.Select.RuleName()
}

// protocol returns the static description of the spec's protocol, or the
// zero Protocol for one not registered (a results directory of a plugin no
// longer compiled in).
func (m *model) protocol() spec.Protocol {
	if p, err := spec.LookupProtocol(m.spec.Protocol.ProtocolName()); err == nil {
		return *p
	}
	return spec.Protocol{}
}

// section reports whether the spec's protocol adds the report section name.
func (m *model) section(name string) bool {
	return slices.Contains(m.protocol().Sections, name)
}

// selector returns the select rule of m, or the zero Selector for a rule
// not registered (a results directory of a plugin no longer compiled in).
func selector(m *spec.MethodSpec) spec.Selector {
	if m != nil {
		if sel, err := spec.LookupSelector(m.Select.RuleName()); err == nil {
			return *sel
		}
	}
	return spec.Selector{}
}

// selectMetric returns the metric the series' select rule scores by ("" for
// a series without a method).
func (s *series) selectMetric() string {
	if s.method == nil {
		return ""
	}
	return s.method.Select.Metric
}

func (s *series) cell(x float64) *cell {
	c := s.cells[x]
	if c == nil {
		c = &cell{x: x}
		s.cells[x] = c
	}
	return c
}

// records reports whether some observation of s has a value called name.
func (s *series) records(name string) bool {
	for _, c := range s.cells {
		for i := range c.obs {
			if _, ok := c.obs[i].value(name); ok {
				return true
			}
		}
	}
	return false
}

// failedAt returns the failed trials counted at x.
func (s *series) failedAt(x float64) int {
	n := s.wholeFailed
	if c := s.cells[x]; c != nil {
		n += c.failed
	}
	return n
}

// dataSet groups a dataset's series.
type dataSet struct {
	id   string
	spec *spec.DatasetSpec
	// choice is the report.choose entry that makes the dataset, nil for
	// an entry of datasets:.
	choice *spec.DatasetChoice
	series []*series
	xs     []float64 // ascending union of the series' x values
	// columns holds the dataset's columns of a per-size protocol by the
	// training size the spec writes (nil without stored trials).
	columns map[float64]column
	// largest caches maxTrain once known.
	largest   int
	largestOK bool
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

// absent reports whether the series or label name is a method's that
// does not run on d (its methods[i].datasets leave d out; for a dataset
// of report.choose, its first member).
func (m *model) absent(name string, d *dataSet) bool {
	id := d.id
	if d.choice != nil && len(d.choice.Among) > 0 {
		id = d.choice.Among[0]
	}
	for i := range m.spec.Methods {
		ms := &m.spec.Methods[i]
		if slices.Contains(ms.SeriesNames(), name) {
			return !ms.RunsOn(id)
		}
	}
	return false
}

// model is the results of an experiment arranged for reporting.
type model struct {
	spec     *spec.Spec
	datasets []*dataSet
	failures []*results.Result
	// infoErr is why datasets.json could not be read, if it could not.
	infoErr error
	// rows holds the datasets' row counts from datasets.json by id (nil
	// when unread): the pools the default paired test depends on.
	rows map[string]int
}

// build arranges results by dataset and series in spec order.
func build(sp *spec.Spec, recs []results.Result) *model {
	m := &model{spec: sp}
	byID := map[string]*dataSet{}
	index := map[string]map[string]*series{}
	addSeries := func(d *dataSet, s *series) {
		s.cells = map[float64]*cell{}
		d.series = append(d.series, s)
		index[d.id][s.name] = s
	}
	for i := range sp.Datasets {
		ds := &sp.Datasets[i]
		id := ds.ID
		if id == "" {
			id = ds.Name
		}
		d := &dataSet{id: id, spec: ds}
		byID[id] = d
		index[id] = map[string]*series{}
		m.datasets = append(m.datasets, d)
		for mi := range sp.Methods {
			ms := &sp.Methods[mi]
			if !ms.RunsOn(id) {
				continue // methods[i].datasets leaves it out here
			}
			label := ms.Label
			if label == "" {
				label = ms.Name
			}
			oracle := selector(ms).Oracle
			for _, v := range ms.Variants() {
				addSeries(d, &series{name: spec.SeriesName(label, v.Values), label: label, method: ms, variant: v.Values, oracle: oracle})
			}
		}
	}

	// The datasets report.choose makes: each described by its first
	// member's entry (split, tasks), under its own id.
	for i := range sp.Report.Choose {
		c := &sp.Report.Choose[i]
		var first *dataSet
		if len(c.Among) > 0 {
			first = byID[c.Among[0]]
		}
		ds := spec.DatasetSpec{ID: c.ID}
		if first != nil {
			ds = *first.spec
			ds.ID = c.ID
		}
		d := &dataSet{id: c.ID, spec: &ds, choice: c}
		byID[c.ID] = d
		index[c.ID] = map[string]*series{}
		m.datasets = append(m.datasets, d)
		if first == nil {
			continue
		}
		for _, s := range first.series {
			addSeries(d, &series{name: s.name, label: s.label, method: s.method, variant: s.variant, oracle: s.oracle})
		}
	}

	// Failed trials carry no size; the plan maps their key to the size
	// written in the spec (0 for a whole-curve trial), and the successful
	// trials of the same dataset map that to a count. The plan is built
	// from the stored spec alone: no plugin need be compiled in.
	planned := map[string]*spec.Trial{}
	if plan, err := spec.NewPlan(sp); err == nil {
		for _, t := range plan.Trials {
			planned[t.Key] = t
		}
	}
	recs = append(recs[:len(recs):len(recs)], chooseDatasets(sp, recs, planned)...)
	// trialOf holds each result's planned trial (nil for a key the plan
	// does not know): one look-up per result.
	trialOf := make(map[*results.Result]*spec.Trial, len(recs))
	for i := range recs {
		if t := planned[recs[i].Key]; t != nil {
			trialOf[&recs[i]] = t
		}
	}
	cols := columnsOf(recs, trialOf)

	for _, r := range byTrial(recs) {
		d := byID[r.Dataset]
		if d == nil {
			continue
		}
		name := spec.SeriesName(r.Method, param.Values(r.Variant))
		s := index[d.id][name]
		if s == nil {
			s = &series{name: name, label: r.Method, variant: param.Values(r.Variant)}
			addSeries(d, s)
		}
		s.oracle = s.oracle || r.Oracle
		s.results = append(s.results, r)
		t := trialOf[r]
		if r.Failed() {
			m.failures = append(m.failures, r)
			switch {
			case t != nil && t.Size == 0:
				s.wholeFailed++
			case t != nil && cols.known(r.Dataset, t.Size):
				s.cell(cols.x(r.Dataset, t.Size)).failed++
			case r.Size > 0:
				s.cell(float64(r.Size)).failed++
			case t != nil && t.Size > 1:
				s.cell(math.Trunc(t.Size)).failed++
			default:
				s.unsized++
			}
			continue
		}
		pts := r.Points()
		for i, p := range pts {
			x := p.X
			if len(pts) == 1 && t != nil && t.Size > 0 {
				// A trial of one requested size is in its column,
				// whatever rows its fold or fraction left it.
				x = cols.x(r.Dataset, t.Size)
			}
			s.cell(x).add(observation{trial: r.Trial, metrics: p.Metrics, extras: p.Extras, boot: p.Bootstrap, res: r, last: i == len(pts)-1})
		}
	}
	// Planned trials with no stored line: a check on what is there would
	// judge a partial run as if it were whole.
	// Results whose keys the plan does not know (hand-made or from an
	// older spec) leave nothing to compare with.
	have := make(map[*spec.Trial]bool, len(trialOf))
	for _, t := range trialOf {
		have[t] = true
	}
	for _, t := range planned {
		if have[t] || len(have) == 0 {
			continue
		}
		label := t.Method.Label
		if label == "" {
			label = t.Method.Name
		}
		id := t.Dataset.ID
		if id == "" {
			id = t.Dataset.Name
		}
		s := index[id][spec.SeriesName(label, t.Variant())]
		if s == nil {
			continue
		}
		x := 0.0
		switch {
		case cols.known(id, t.Size):
			x = cols.x(id, t.Size)
		case t.Size > 1:
			x = math.Trunc(t.Size)
		}
		if x == 0 {
			s.notRunAll++
			continue
		}
		if s.notRunAt == nil {
			s.notRunAt = map[float64]int{}
		}
		s.notRunAt[x]++
	}
	for _, d := range m.datasets {
		d.columns = cols[d.id]
		seen := map[float64]bool{}
		for _, s := range d.series {
			for x := range s.cells {
				if !seen[x] {
					seen[x] = true
					d.xs = append(d.xs, x)
				}
			}
		}
		sort.Float64s(d.xs)
	}
	return m
}

// byTrial returns pointers to recs in the order of their trial index,
// results of one index in their order in recs (a stable counting sort).
func byTrial(recs []results.Result) []*results.Result {
	top, bottom := 0, 0
	for i := range recs {
		top, bottom = max(top, recs[i].Trial), min(bottom, recs[i].Trial)
	}
	out := make([]*results.Result, len(recs))
	if top > 4*len(recs) || bottom < 0 { // sparse or negative indices: sort
		for i := range recs {
			out[i] = &recs[i]
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].Trial < out[j].Trial })
		return out
	}
	start := make([]int, top+2)
	for i := range recs {
		start[recs[i].Trial+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	for i := range recs {
		k := recs[i].Trial
		out[start[k]] = &recs[i]
		start[k]++
	}
	return out
}

// column is the x of the trials of one requested training size: one
// column, one paired test and one cell of the Friedman table however
// many rows each trial's fold or fraction left it (5-fold
// cross-validation of 1,532 rows trains on 1,225 or 1,226).
type column struct {
	// x is the column's x value, the largest row count its trials
	// trained on.
	x float64
	// lo and hi are the fewest and most rows its trials trained on.
	lo, hi int
}

// columns maps dataset ids and requested sizes to their columns.
type columns map[string]map[float64]column

// columnsOf returns the columns of the successful one-observation trials
// of recs whose keys the plan knows, from the size the spec requested
// (trialOf[r].Size), not the rows it resolved to: the key of a trial
// names its requested size, so a stored run of any age maps the same.
func columnsOf(recs []results.Result, trialOf map[*results.Result]*spec.Trial) columns {
	cols := columns{}
	for i := range recs {
		r := &recs[i]
		t := trialOf[r]
		if t == nil || t.Size == 0 || r.Failed() || r.Size <= 0 || len(r.Observations) > 1 {
			continue
		}
		byDS := cols[r.Dataset]
		if byDS == nil {
			byDS = map[float64]column{}
			cols[r.Dataset] = byDS
		}
		c, ok := byDS[t.Size]
		if !ok {
			c = column{lo: r.Size, hi: r.Size}
		}
		c.lo, c.hi = min(c.lo, r.Size), max(c.hi, r.Size)
		c.x = float64(c.hi)
		byDS[t.Size] = c
	}
	return cols
}

// known reports whether a stored trial of dataset resolved size.
func (c columns) known(dataset string, size float64) bool {
	_, ok := c[dataset][size]
	return ok
}

// x returns the x of size's column on dataset: 0 when no trial of it
// resolved.
func (c columns) x(dataset string, size float64) float64 { return c[dataset][size].x }

// rowsAt returns the rows the trials at x trained on as the size header
// shows them: "1225–1226" where folds differ, else the x itself.
func (d *dataSet) rowsAt(x float64) string {
	lo, hi := int(x), int(x)
	for _, c := range d.columns {
		if c.x == x {
			lo = min(lo, c.lo)
		}
	}
	if lo == hi {
		return fmtX(x)
	}
	return strconv.Itoa(lo) + "–" + strconv.Itoa(hi)
}

// at returns the x of the column of size, a training size of an
// expectation (sizes:): the column of that requested size (a count, or a
// fraction of the pool: 1 is the whole pool), or the column whose trials
// trained on that many rows (the smallest such x); else size itself.
func (d *dataSet) at(size float64) float64 {
	if c, ok := d.columns[size]; ok {
		return c.x
	}
	x := size
	for _, c := range d.columns {
		if size == math.Trunc(size) && int(size) >= c.lo && int(size) <= c.hi && (x == size || c.x < x) {
			x = c.x
		}
	}
	return x
}

// fmtX formats an x value: a whole number in full (1000000, not 1e+06),
// any other as the shortest exact form.
func fmtX(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return num(x)
}

// digits returns the decimals of the metric or extra name: those
// report.metric_digits or report.digits set, else the metric's own (a
// metric's part, "binary_errors/<class>", the metric's), else 2.
func (m *model) digits(name string) int {
	if n, ok := m.spec.Report.DigitsFor(name); ok {
		return n
	}
	base, _, _ := strings.Cut(name, "/")
	if mt, err := metric.Lookup(base); err == nil {
		return mt.DigitsOf()
	}
	return metric.DefaultDigits
}

// fmtNum formats a value of the metric or extra name with its digits;
// NaN is "—".
func (m *model) fmtNum(name string, v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	digits := m.digits(name)
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', digits, 64) {
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
