package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/runner/param"
)

// Trial is one unit of work: a method variant trained on one training
// sample of a dataset and scored on its test set. A sequential method's
// trial covers all sizes of the curve at once.
type Trial struct {
	Key     string
	Dataset *DatasetSpec
	Method  *MethodSpec
	// Point is the grid index of a fixed-rule variant, or -1 when the
	// method's select rule chooses among the whole grid.
	Point int
	// Size is the training size as written in the spec (a count, or a
	// fraction ≤ 1 of the pool); 0 for a sequential trial.
	Size  float64
	Index int // trial index, 0-based
	// Sequential reports that the method produces the whole curve.
	Sequential bool
}

// Variant returns the varying params of a fixed-rule grid point, or nil.
func (t *Trial) Variant() param.Values {
	if t.Point < 0 || len(t.Method.Varying) == 0 {
		return nil
	}
	v := param.Values{}
	for _, name := range t.Method.Varying {
		v[name] = t.Method.Grid[t.Point][name]
	}
	return v
}

// Series returns the name of the trial's method series in reports:
// the label, followed for a fixed-rule grid point by its varying params.
func (t *Trial) Series() string { return SeriesName(t.Method.Label, t.Variant()) }

// seedName names the trial's method for its method seed: the label, and
// for a fixed-rule point every param value of the point. Unlike Series it
// does not depend on which params vary, so adding a value to a grid keeps
// the seeds (as it keeps the keys) of the existing points.
func (t *Trial) seedName() string {
	if t.Point < 0 {
		return t.Method.Label
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

// NewPlan expands spec into trials.
func NewPlan(spec *Spec) (*Plan, error) {
	p := &Plan{Spec: spec}
	seqs := make([]bool, len(spec.Methods))
	for mi := range spec.Methods {
		seq, err := isSequential(&spec.Methods[mi])
		if err != nil {
			return nil, err
		}
		seqs[mi] = seq
	}
	for di := range spec.Datasets {
		ds := &spec.Datasets[di]
		dkey := datasetIdentity(ds)
		for mi := range spec.Methods {
			m := &spec.Methods[mi]
			seq := seqs[mi]
			points := []int{-1}
			if m.Select.Rule == "" || m.Select.Rule == "fixed" {
				points = points[:0]
				for g := range m.Grid {
					points = append(points, g)
				}
			}
			for _, pt := range points {
				sizes := spec.Curve.Sizes
				if seq {
					sizes = []float64{0}
				}
				for _, size := range sizes {
					for tr := 0; tr < spec.Curve.Trials; tr++ {
						t := &Trial{Dataset: ds, Method: m, Point: pt, Size: size, Index: tr, Sequential: seq}
						t.Key = trialKey(spec, dkey, t)
						p.Trials = append(p.Trials, t)
					}
				}
			}
		}
	}
	return p, nil
}

// isSequential builds the method at its first grid point to see whether it
// is methods.Sequential. A plugin's New that panics is reported as an error.
func isSequential(m *MethodSpec) (seq bool, err error) {
	if len(m.Grid) == 0 {
		return false, fmt.Errorf("method %q: empty grid", m.Label)
	}
	defer func() {
		if p := recover(); p != nil {
			seq, err = false, fmt.Errorf("method %q: plugin %s panicked building its method: %v", m.Label, m.Name, p)
		}
	}()
	meth, err := methods.New(m.Name, m.Grid[0])
	if err != nil {
		return false, fmt.Errorf("method %q: %w", m.Label, err)
	}
	_, ok := meth.(methods.Sequential)
	return ok, nil
}

// datasetIdentity is everything that determines a dataset's rows and split.
func datasetIdentity(ds *DatasetSpec) map[string]any {
	tr := make([]map[string]any, len(ds.Transforms))
	for i, t := range ds.Transforms {
		tr[i] = map[string]any{"name": t.Name, "params": canonical(t.Params)}
	}
	split := ds.Split
	if split.Kind == "" {
		split.Kind = "rest"
	}
	return map[string]any{
		"id": ds.ID, "plugin": ds.Name, "params": canonical(ds.Params),
		"transforms": tr, "split": split, "tasks": ds.Tasks,
	}
}

// canonical renders values with param.Format so keys do not depend on
// how YAML typed a number (1 vs 1.0 for a float param is the same value).
func canonical(v param.Values) map[string]string {
	out := make(map[string]string, len(v))
	for k, x := range v {
		out[k] = param.Format(x)
	}
	return out
}

func trialKey(spec *Spec, dkey map[string]any, t *Trial) string {
	m := t.Method
	var grid any
	if t.Point >= 0 {
		grid = canonical(m.Grid[t.Point])
	} else {
		g := make([]map[string]string, len(m.Grid))
		for i, v := range m.Grid {
			g[i] = canonical(v)
		}
		grid = g
	}
	sel := m.Select
	if sel.Rule == "" {
		sel.Rule = "fixed"
	}
	metrics := append([]string(nil), spec.Metrics...)
	sort.Strings(metrics)
	id := map[string]any{
		"seed":     spec.Seed,
		"dataset":  dkey,
		"method":   map[string]any{"plugin": m.Name, "label": m.Label, "grid": grid, "select": sel},
		"size":     t.Size,
		"trial":    t.Index,
		"sampling": spec.Curve.Sampling,
		"metrics":  metrics,
	}
	if t.Sequential {
		id["sizes"] = spec.Curve.Sizes
	}
	b, err := json.Marshal(id) // map keys are sorted: canonical
	if err != nil {
		panic("runner: trial key: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// Fits returns the number of model fits the plan performs: a cv trial fits
// every grid point on every fold and refits once; a test-rule trial fits
// every grid point.
func (p *Plan) Fits() int {
	n := 0
	for _, t := range p.Trials {
		switch {
		case t.Point >= 0:
			n++
		case t.Method.Select.Rule == "cv":
			n += len(t.Method.Grid)*t.Method.Select.Folds + 1
		default:
			n += len(t.Method.Grid)
		}
	}
	return n
}

// Describe writes the plan in words: datasets × methods × grid points ×
// sizes × trials = fits, as `repro validate` prints it.
func (p *Plan) Describe(w io.Writer) {
	s := p.Spec
	fmt.Fprintf(w, "experiment %s: %d datasets × %d methods, %d sizes × %d trials (sampling %s, seed %d)\n",
		s.Name, len(s.Datasets), len(s.Methods), len(s.Curve.Sizes), s.Curve.Trials, s.Curve.Sampling, s.Seed)
	fmt.Fprintf(w, "sizes: %s\n", formatSizes(s.Curve.Sizes))
	for _, ds := range s.Datasets {
		fmt.Fprintf(w, "dataset %s: %s", ds.ID, ds.Name)
		if len(ds.Params) > 0 {
			fmt.Fprintf(w, " {%s}", ds.Params.Label())
		}
		fmt.Fprintf(w, ", split %s", ds.Split.Kind)
		if ds.Split.Kind == "holdout" {
			fmt.Fprintf(w, " (test %s)", param.Format(ds.Split.Test))
		}
		if ds.Tasks != "" {
			fmt.Fprintf(w, ", tasks %s", ds.Tasks)
		}
		fmt.Fprintln(w)
		for _, t := range ds.Transforms {
			fmt.Fprintf(w, "  transform %s {%s}\n", t.Name, t.Params.Label())
		}
	}
	for _, m := range s.Methods {
		rule := m.Select.Rule
		if rule == "" {
			rule = "fixed"
		}
		fmt.Fprintf(w, "method %s: %s, %d grid points, select %s", m.Label, m.Name, len(m.Grid), rule)
		switch rule {
		case "cv":
			fmt.Fprintf(w, " (%d folds by %s)", m.Select.Folds, m.Select.Metric)
		case "test":
			fmt.Fprintf(w, " (by %s on the test set: oracle)", m.Select.Metric)
		}
		if len(m.Varying) > 0 {
			fmt.Fprintf(w, ", varying %s", strings.Join(m.Varying, ", "))
		}
		fmt.Fprintln(w)
	}
	grid := 0
	for _, m := range s.Methods {
		grid += len(m.Grid)
	}
	fmt.Fprintf(w, "%d datasets × %d methods (%d grid points) × %d sizes × %d trials = %d trials, %d fits\n",
		len(s.Datasets), len(s.Methods), grid, len(s.Curve.Sizes), s.Curve.Trials, len(p.Trials), p.Fits())
}

func formatSizes(sizes []float64) string {
	parts := make([]string, len(sizes))
	for i, v := range sizes {
		if v <= 1 {
			parts[i] = param.Format(v*100) + "%"
		} else {
			parts[i] = param.Format(v)
		}
	}
	return strings.Join(parts, ", ")
}
