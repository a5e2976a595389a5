package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// Trial is one unit of work: a method variant run by the spec's protocol
// on one partition of a dataset — for the curve protocol one training
// sample of one size; for a protocol that is not per size (active) the
// whole curve of the partition.
type Trial struct {
	Key     string
	Dataset *DatasetSpec
	Method  *MethodSpec
	// Point is the grid index of a fixed-rule variant, or -1 when the
	// method's select rule chooses among Candidates.
	Point int
	// Candidates are the grid indices a cv or test rule chooses among:
	// the whole grid, or with select.over one variant's share of it.
	Candidates []int
	// Size is the training size as written in the spec (a count, or a
	// fraction ≤ 1 of the pool); 0 for a trial of a protocol that is not
	// per size.
	Size float64
	// Index is the trial index, 0-based: the replicate (for kfold, fold
	// Index mod k of repeat Index div k).
	Index int
}

// Variant returns the varying params the trial fixes: all of them for a
// fixed-rule grid point, those outside select.over for a select rule
// limited by it, and nil otherwise.
func (t *Trial) Variant() param.Values {
	if t.Point >= 0 {
		return t.Method.variantAt(t.Point, nil)
	}
	if len(t.Candidates) == 0 {
		return nil
	}
	return t.Method.variantAt(t.Candidates[0], t.Method.Select.Over)
}

// Choices returns the grid indices the trial's select rule chooses among.
func (t *Trial) Choices() []int {
	if t.Candidates != nil {
		return t.Candidates
	}
	all := make([]int, len(t.Method.Grid))
	for i := range all {
		all[i] = i
	}
	return all
}

// Variant is one series a method contributes: a fixed-rule grid point, or
// the grid points a select rule chooses among.
type Variant struct {
	// Points are grid indices: the point of a fixed-rule variant, or the
	// candidates of a select rule.
	Points []int
	// Values are the varying params fixed in the variant; nil when none.
	Values param.Values
}

// Variants returns the series of m in grid order. Under the fixed rule
// every grid point is its own variant (one variant without a grid); under
// a cv or test rule the whole grid is one variant, or with select.over
// each combination of the other varying params is one.
func (m *MethodSpec) Variants() []Variant {
	if !chooses(m) {
		out := make([]Variant, len(m.Grid))
		for g := range m.Grid {
			out[g] = Variant{Points: []int{g}, Values: m.variantAt(g, nil)}
		}
		return out
	}
	if len(m.Select.Over) == 0 {
		all := make([]int, len(m.Grid))
		for g := range all {
			all[g] = g
		}
		return []Variant{{Points: all}}
	}
	var out []Variant
	where := map[string]int{}
	for g := range m.Grid {
		v := m.variantAt(g, m.Select.Over)
		k := v.Label()
		i, ok := where[k]
		if !ok {
			i = len(out)
			where[k] = i
			out = append(out, Variant{Values: v})
		}
		out[i].Points = append(out[i].Points, g)
	}
	return out
}

// variantAt returns the varying params of grid point g that are not in
// over; nil when there are none.
func (m *MethodSpec) variantAt(g int, over []string) param.Values {
	var v param.Values
	for _, name := range m.Varying {
		if slices.Contains(over, name) {
			continue
		}
		if v == nil {
			v = param.Values{}
		}
		v[name] = m.Grid[g][name]
	}
	return v
}

// Series returns the name of the trial's method series in reports:
// the label, followed for a fixed-rule grid point by its varying params.
func (t *Trial) Series() string { return SeriesName(t.Method.Label, t.Variant()) }

// SeedName names the trial's method for its method seed: the label, and
// for a fixed-rule point every param value of the point. Unlike Series it
// does not depend on which params vary, so adding a value to a grid keeps
// the seeds (as it keeps the keys) of the existing points.
func (t *Trial) SeedName() string {
	if t.Point < 0 {
		return SeriesName(t.Method.Label, t.Variant())
	}
	return SeriesName(t.Method.Label, t.Method.Grid[t.Point])
}

// SeriesName formats a method label and variant as reports show it:
// "label (a=1 b=x)", or the label alone when variant is empty.
func SeriesName(label string, variant param.Values) string {
	if len(variant) == 0 {
		return label
	}
	return label + " (" + variant.Label() + ")"
}

// Plan is the list of trials of a spec, in a deterministic order:
// datasets, then methods, then grid points, then sizes, then trial index.
type Plan struct {
	Spec   *Spec
	Trials []*Trial
}

// NewPlan expands spec into trials. It consults the runner's own
// registries (protocol, split kinds, select rules), never the method or
// dataset plugins, so a stored spec plans the same trials after its
// plugins are gone.
func NewPlan(spec *Spec) (*Plan, error) {
	p := &Plan{Spec: spec}
	proto, err := LookupProtocol(spec.Protocol.ProtocolName())
	if err != nil {
		return nil, err
	}
	sizes := spec.Curve.Sizes
	if !proto.PerSize {
		sizes = []float64{0}
	}
	for mi := range spec.Methods {
		m := &spec.Methods[mi]
		if len(m.Grid) == 0 {
			return nil, fmt.Errorf("method %q: empty grid", m.Label)
		}
		if _, err := LookupSelector(m.Select.RuleName()); err != nil {
			return nil, fmt.Errorf("method %q: %w", m.Label, err)
		}
	}
	for di := range spec.Datasets {
		ds := &spec.Datasets[di]
		trials, err := replicates(spec, ds)
		if err != nil {
			return nil, err
		}
		dkey := datasetIdentity(ds)
		for mi := range spec.Methods {
			m := &spec.Methods[mi]
			if !m.RunsOn(ds.ID) {
				continue
			}
			fixed := !chooses(m)
			for _, v := range m.Variants() {
				pt, cands := -1, []int(nil)
				switch {
				case fixed:
					pt = v.Points[0]
				case len(m.Select.Over) > 0:
					cands = v.Points
				}
				// The key's identity but for size and trial, marshalled
				// once for the variant's trials.
				prefix := keyPrefix(spec, dkey, &Trial{Dataset: ds, Method: m, Point: pt, Candidates: cands})
				for _, size := range sizes {
					for tr := 0; tr < trials; tr++ {
						t := &Trial{Dataset: ds, Method: m, Point: pt, Candidates: cands, Size: size, Index: tr}
						t.Key = prefix.key(size, tr)
						p.Trials = append(p.Trials, t)
					}
				}
			}
		}
	}
	return p, nil
}

// replicates returns the number of trials per size of ds: the split's own
// count (kfold: folds × repeats) or curve.trials.
func replicates(spec *Spec, ds *DatasetSpec) (int, error) {
	sp, err := LookupSplitter(ds.Split.KindName())
	if err != nil {
		return 0, fmt.Errorf("dataset %q: %w", ds.ID, err)
	}
	if sp.Replicates != nil {
		return sp.Replicates(ds.Split.Params), nil
	}
	return spec.Curve.Trials, nil
}

// implicit reports whether the protocol name is the one a spec runs
// without saying (Protocol.Implicit): an unknown name is not.
func implicit(name string) bool {
	p, err := LookupProtocol(name)
	return err == nil && p.Implicit
}

// chooses reports whether m's select rule chooses among grid points.
func chooses(m *MethodSpec) bool {
	sel, err := LookupSelector(m.Select.RuleName())
	return err == nil && sel.Chooses
}

// Learns reports whether the transform's plugin declares that it learns
// from the rows it runs on (datasets.Transform.Learns); false when the
// plugin is not registered (a stored spec read without it).
func (t TransformSpec) Learns() bool {
	tr, err := datasets.LookupTransform(t.Name)
	return err == nil && tr.Learns
}

// datasetIdentity is everything that determines a dataset's rows and split.
func datasetIdentity(ds *DatasetSpec) map[string]any {
	tr := make([]map[string]any, len(ds.Transforms))
	for i, t := range ds.Transforms {
		var decls []param.Decl
		if p, err := datasets.LookupTransform(t.Name); err == nil {
			decls = p.Params
		}
		tr[i] = map[string]any{"name": t.Name, "params": KeyParams(t.Params, decls)}
		if t.PerTrial() {
			tr[i]["fit"] = t.Fit
		}
	}
	var split any
	kind := ds.Split.KindName()
	if sp, err := LookupSplitter(kind); err == nil && sp.LegacyKey != nil {
		test, stratify := sp.LegacyKey(ds.Split.Params)
		split = legacySplit{Kind: kind, Test: test, Stratify: stratify}
	} else {
		split = map[string]any{"kind": kind, "params": Canonical(ds.Split.Params)}
	}
	var decls []param.Decl
	if l, err := datasets.Lookup(ds.Name); err == nil {
		decls = l.Params
	}
	id := map[string]any{
		"id": ds.ID, "plugin": ds.Name, "params": KeyParams(ds.Params, decls),
		"transforms": tr, "split": split, "tasks": ds.Tasks,
	}
	if ds.SamplesOf != "" { // absent otherwise: keys of earlier runs stay valid
		id["samples_of"] = ds.SamplesOf
	}
	return id
}

// Canonical renders values with param.Format so keys do not depend on
// how YAML typed a number (1 vs 1.0 for a float param is the same value).
func Canonical(v param.Values) map[string]string {
	out := make(map[string]string, len(v))
	for k, x := range v {
		out[k] = param.Format(x)
	}
	return out
}

// KeyParams is Canonical without the values of parameters declared
// OmitDefault that hold their default: a parameter added to a plugin after
// results were stored leaves their keys as they were until a spec sets it.
func KeyParams(v param.Values, decls []param.Decl) map[string]string {
	out := Canonical(v)
	for _, d := range decls {
		if s, ok := out[d.Name]; ok && d.OmitDefault && s == param.Format(d.Default) {
			delete(out, d.Name)
		}
	}
	return out
}

// identityPrefix is a trial identity marshalled without its last two
// keys, "size" and "trial" (every other key sorts before them), and
// without its closing brace: what the trials of one method variant on
// one dataset share.
type identityPrefix []byte

// key returns the trial key of the identity with size and trial index:
// the bytes json.Marshal writes for the whole map.
func (p identityPrefix) key(size float64, index int) string {
	sz, err := json.Marshal(size)
	if err != nil {
		panic("runner: trial key: " + err.Error())
	}
	var buf [64]byte
	b := buf[:0]
	if len(p) > 1 {
		b = append(b, ',')
	}
	b = append(b, `"size":`...)
	b = append(b, sz...)
	b = append(b, `,"trial":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, '}')
	h := sha256.New()
	h.Write(p)
	h.Write(b)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:12])
}

// keyPrefix returns the identity of t but for its size and index.
func keyPrefix(spec *Spec, dkey map[string]any, t *Trial) identityPrefix {
	b, err := json.Marshal(identity(spec, dkey, t)) // map keys are sorted: canonical
	if err != nil {
		panic("runner: trial key: " + err.Error())
	}
	return identityPrefix(b[:len(b)-1])
}

// identity returns what identifies t but for its size and trial index:
// its dataset's identity dkey, method, seed, sampling, metrics and
// protocol.
func identity(spec *Spec, dkey map[string]any, t *Trial) map[string]any {
	m := t.Method
	var decls []param.Decl
	if p, err := methods.Lookup(m.Name); err == nil {
		decls = p.Params
	}
	var grid any
	if t.Point >= 0 {
		grid = KeyParams(m.Grid[t.Point], decls)
	} else {
		choices := t.Choices()
		g := make([]map[string]string, len(choices))
		for i, c := range choices {
			g[i] = KeyParams(m.Grid[c], decls)
		}
		grid = g
	}
	sel := m.Select
	sel.Rule = sel.RuleName()
	metrics := append([]string(nil), spec.Metrics...)
	sort.Strings(metrics)
	id := map[string]any{
		"seed":     spec.Seed,
		"dataset":  dkey,
		"method":   map[string]any{"plugin": m.Name, "label": m.Label, "grid": grid, "select": sel},
		"sampling": spec.Curve.Sampling,
		"metrics":  metrics,
	}
	if name := spec.Protocol.ProtocolName(); !implicit(name) {
		// The params the trial runs with: a method's own protocol
		// params (methods[i].protocol) change the key only where they
		// change a value, so keys of specs without them stay valid.
		id["protocol"] = map[string]any{"name": name, "params": Canonical(spec.ProtocolParams(m))}
	}
	return id
}

// Fits returns the number of model fits the plan performs: a cv trial fits
// every grid point on every fold and refits once; a test-rule trial fits
// every grid point; a protocol with several steps (active: one per batch)
// does so at each step.
func (p *Plan) Fits() int {
	n := 0
	for _, t := range p.Trials {
		steps := p.Spec.Steps(t.Method)
		per := 1
		if t.Point < 0 {
			if sel, err := LookupSelector(t.Method.Select.RuleName()); err == nil && sel.Fits != nil {
				per = sel.Fits(len(t.Choices()), t.Method.Select)
			}
		}
		n += per * steps
	}
	return n
}

// Describe writes the plan in words: datasets × methods × grid points ×
// sizes × trials = fits, as `repro validate` prints it.
func (p *Plan) Describe(w io.Writer) {
	s := p.Spec
	// sizes and trials as the plan has them: a protocol that is not per
	// size has one x per trial; a split may set the trial count (kfold).
	sizes, trials := len(s.Curve.Sizes), s.Curve.Trials
	if proto, err := LookupProtocol(s.Protocol.ProtocolName()); err == nil && !proto.PerSize {
		sizes = 1
	}
	if len(s.Datasets) > 0 {
		if n, err := replicates(s, &s.Datasets[0]); err == nil {
			trials = n
		}
	}
	fmt.Fprintf(w, "experiment %s: %s × %s, %s × %s (seed %d)\n",
		s.Name, count(len(s.Datasets), "dataset"), count(len(s.Methods), "method"), count(sizes, "size"), count(trials, "trial"), s.Seed)
	if name := s.Protocol.ProtocolName(); !implicit(name) {
		fmt.Fprintf(w, "protocol %s", name)
		if len(s.Protocol.Params) > 0 {
			fmt.Fprintf(w, " {%s}", s.Protocol.Params.Label())
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "sizes: %s\n", FormatSizes(s.Curve.Sizes))
	}
	fmt.Fprintf(w, "sampling: %s\n", describeSampling(s.Curve.Sampling))
	for _, ds := range s.Datasets {
		fmt.Fprintf(w, "dataset %s: %s", ds.ID, ds.Name)
		if len(ds.Params) > 0 {
			fmt.Fprintf(w, " {%s}", ds.Params.Label())
		}
		fmt.Fprintf(w, ", split %s", ds.Split.KindName())
		if sp, err := LookupSplitter(ds.Split.Kind); err == nil && sp.Describe != nil {
			fmt.Fprint(w, sp.Describe(ds.Split.Params))
		} else if len(ds.Split.Params) > 0 {
			fmt.Fprintf(w, " {%s}", ds.Split.Params.Label())
		}
		if ds.Tasks != "" {
			fmt.Fprintf(w, ", tasks %s", ds.Tasks)
		}
		if ds.SamplesOf != "" {
			fmt.Fprintf(w, ", the samples of %s", ds.SamplesOf)
		}
		fmt.Fprintln(w)
		for _, t := range ds.Transforms {
			fmt.Fprintf(w, "  transform %s {%s}", t.Name, t.Params.Label())
			if t.PerTrial() {
				fmt.Fprintf(w, " fitted on the %s in each trial", t.Fit)
			} else if t.Fit == FitAll {
				fmt.Fprint(w, " fitted once on every row (transductive, declared)")
			}
			fmt.Fprintln(w)
		}
	}
	for _, m := range s.Methods {
		rule := m.Select.RuleName()
		fmt.Fprintf(w, "method %s: %s, %s, select %s", m.Label, m.Name, count(len(m.Grid), "grid point"), rule)
		if sel, err := LookupSelector(rule); err == nil && sel.Describe != nil {
			fmt.Fprint(w, sel.Describe(m.Select))
		}
		if len(m.Varying) > 0 {
			fmt.Fprintf(w, ", varying %s", strings.Join(m.Varying, ", "))
		}
		fmt.Fprintln(w, describeMethodSeries(&m))
	}
	grid, some := 0, ""
	for _, m := range s.Methods {
		grid += len(m.Grid)
		if len(m.Datasets) > 0 {
			some = ", each method on its datasets"
		}
	}
	fmt.Fprintf(w, "%s × %s (%s) × %s × %s%s = %s, %s\n",
		count(len(s.Datasets), "dataset"), count(len(s.Methods), "method"), count(grid, "grid point"),
		count(sizes, "size"), count(trials, "trial"), some, count(len(p.Trials), "trial"), count(p.Fits(), "fit"))
}

// count writes n and noun, in the plural unless n is 1: "1 dataset",
// "8 grid points".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// describeSampling says how curve.sampling draws the training rows from
// the pool.
func describeSampling(sampling string) string {
	switch datasets.Sampling(sampling) {
	case "", datasets.Random:
		return "random (training rows drawn uniformly from the pool)"
	case datasets.Stratified:
		return "stratified (training rows keep the pool's class proportions)"
	case datasets.Balanced:
		return "balanced (an equal count of training rows per class)"
	}
	return sampling
}

// FormatSizes writes training sizes as a spec's reader reads them: counts
// as numbers, fractions as percentages ("20, 50%"); a long list by its
// first and last sizes.
func FormatSizes(sizes []float64) string {
	// A list of a million sizes is shown by its first and last ones.
	const shown = 40
	var parts []string
	for i := 0; i < len(sizes); i++ {
		if i == shown/2 && len(sizes) > shown {
			parts = append(parts, fmt.Sprintf("… %d more …", len(sizes)-shown))
			i = len(sizes) - shown/2
		}
		v := sizes[i]
		if v <= 1 {
			parts = append(parts, param.Format(v*100)+"%")
		} else {
			parts = append(parts, param.Format(v))
		}
	}
	return strings.Join(parts, ", ")
}

// legacySplit is the form a split had in trial keys before splitters were
// plugins; the keys of holdout, given, rest and train splits keep it so
// that results stored before stay valid.
type legacySplit struct {
	Kind     string
	Test     float64
	Stratify bool
}
