package reports

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// checker evaluates an experiment's expectations: the model of its
// results, and the output directory they came from, whose datasets.json
// (infos) holds the dataset facts and whose artifacts/ the artifacts.
// Without a directory (Check) facts and artifacts are unknown.
type checker struct {
	*model
	dir   string
	infos map[string]results.DatasetInfo
	// arts caches the artifact files read, by path (nil: unreadable).
	arts map[string]*artifactFile
}

// subject is what an expectation is about: a metric, an extra, or a
// measure of an artifact. Its values sit in the cells the checks compare
// under name: a metric's in the series' own cells, the others' in cells
// cellOf makes.
type subject struct {
	name   string
	higher bool
	// own: the values are the series' own (a metric, an extra the
	// results store by name), so the series' cells serve as they are.
	own bool
	e   *spec.Expectation
}

// subjectOf returns the subject of e.
func (c *checker) subjectOf(e *spec.Expectation) (subject, error) {
	sj := subject{name: e.Subject(), higher: e.HigherIsBetter(), e: e}
	switch {
	case e.Extra != "":
	case e.Artifact.Name != "":
	default:
		mt, err := metric.Lookup(e.Metric)
		if err != nil {
			return sj, err
		}
		sj.higher, sj.own = mt.HigherIsBetter, true
	}
	return sj, nil
}

// fmtNum formats a value of the subject: a metric's or an extra's with
// its digits, an artifact measure's with 3 decimals (a fraction of zeros,
// a coefficient), a count as an integer.
func (c *checker) fmtNum(sj subject, v float64) string {
	if sj.e != nil && sj.e.Artifact.Name != "" {
		if math.IsNaN(v) {
			return "—"
		}
		if sj.e.Artifact.Measure == "nonzero" && v == math.Trunc(v) {
			return fmtX(v)
		}
		return strings.TrimSuffix(fmt.Sprintf("%.3f", v), "-0.000")
	}
	return c.model.fmtNum(sj.name, v)
}

// extraValue returns the value called name that observation o records:
// a metric or an extra; a field of its result (iterations, fit_seconds,
// select_seconds, train_rows, test_rows, select_score); chosen.P, the
// grid value a select rule chose.
func extraValue(o *observation, name string) (float64, bool) {
	if v, ok := o.value(name); ok {
		return v, true
	}
	r := o.res
	if r == nil {
		return 0, false
	}
	switch name {
	case "iterations":
		return float64(r.Iterations), true
	case "fit_seconds":
		return r.FitSeconds, true
	case "select_seconds":
		return r.SelectSeconds, true
	case "train_rows":
		return float64(r.TrainRows), true
	case "test_rows":
		return float64(r.TestRows), true
	case "select_score":
		if r.SelectScore != nil {
			return *r.SelectScore, true
		}
		return 0, false
	}
	if p, ok := strings.CutPrefix(name, "chosen."); ok {
		if v, ok := r.Chosen[p]; ok {
			return toFloat(v)
		}
	}
	return 0, false
}

// recorded lists the names of the values observation o records, for a
// message about one it does not.
func recorded(o *observation) []string {
	var names []string
	for k := range o.extras {
		names = append(names, k)
	}
	sort.Strings(names)
	names = append(names, "iterations", "fit_seconds", "train_rows", "test_rows")
	if o.res != nil {
		if o.res.SelectSeconds > 0 {
			names = append(names, "select_seconds")
		}
		if o.res.SelectScore != nil {
			names = append(names, "select_score")
		}
		var ch []string
		for k := range o.res.Chosen {
			ch = append(ch, "chosen."+k)
		}
		sort.Strings(ch)
		names = append(names, ch...)
	}
	return names
}

// cellOf returns the cell of s at x that holds the subject's values under
// sj.name, or why there is none: the series' own cell for a metric, else
// one made of its observations' extras or artifact measures (one per
// trial, the trial's index and result kept, so that the paired test pairs
// and sizes them as it does the metrics).
func (c *checker) cellOf(sj subject, s *series, x float64) (*cell, string) {
	own := s.cells[x]
	if sj.own || own == nil {
		return own, ""
	}
	out := &cell{x: x, failed: own.failed}
	e := sj.e
	found := false
	for i := range own.obs {
		o := &own.obs[i]
		var v float64
		switch {
		case e.Extra != "":
			var ok bool
			if v, ok = extraValue(o, e.Extra); !ok {
				v = math.NaN()
			}
			if e.OverExtra != "" {
				w, okw := extraValue(o, e.OverExtra)
				if !okw {
					return nil, fmt.Sprintf("%s records no %q at size %s; it records %s", s.name, e.OverExtra, fmtX(x), strings.Join(recorded(o), ", "))
				}
				v /= w
			}
			found = found || ok
		default:
			if !o.last {
				continue // artifacts belong to a trial's last point
			}
			var why string
			if v, why = c.measure(&e.Artifact, o); why != "" {
				return nil, fmt.Sprintf("%s, trial %d at size %s: %s", s.name, o.trial, fmtX(x), why)
			}
			found = true
		}
		out.obs = append(out.obs, observation{trial: o.trial, metrics: results.Metrics{sj.name: v}, res: o.res, last: o.last})
	}
	if e.Extra != "" && !found && len(own.obs) > 0 {
		return nil, fmt.Sprintf("%s records no %q at size %s; it records %s", s.name, e.Extra, fmtX(x), strings.Join(recorded(&own.obs[0]), ", "))
	}
	if e.Artifact.Name != "" && len(out.obs) == 0 && len(own.obs) > 0 {
		return nil, fmt.Sprintf("%s saves no artifacts at size %s: they belong to each trial's last point", s.name, fmtX(x))
	}
	return out, ""
}

// areaCell returns the cell of s whose values are each trial's area under
// its curve of the subject over xs divided by the x range (the
// trapezoidal mean; the value itself at one x), at the largest of xs,
// and how many trials were left out for a missing or undefined value at
// some x; or why there is none.
func (c *checker) areaCell(sj subject, s *series, xs []float64) (*cell, int, string) {
	if len(xs) == 0 {
		return nil, 0, fmt.Sprintf("no x values of %s to take the area over", s.name)
	}
	byTrial := map[int][]float64{}
	lastObs := map[int]observation{}
	var order []int
	failed := 0
	for j, x := range xs {
		cl, why := c.cellOf(sj, s, x)
		if why != "" {
			return nil, 0, why
		}
		if cl != nil {
			failed += cl.failed
		}
		vals, trials := cl.values(sj.name)
		for i, t := range trials {
			if j == 0 {
				order = append(order, t)
				byTrial[t] = make([]float64, len(xs))
				for k := range byTrial[t] {
					byTrial[t][k] = math.NaN()
				}
			}
			if v, ok := byTrial[t]; ok {
				v[j] = vals[i]
				lastObs[t] = cl.obs[i]
			}
		}
	}
	out := &cell{x: xs[len(xs)-1], failed: failed}
	left := 0
	for _, t := range order {
		v := byTrial[t]
		a := trapezoidMean(xs, v)
		if math.IsNaN(a) {
			left++
			continue
		}
		o := lastObs[t]
		out.obs = append(out.obs, observation{trial: t, metrics: results.Metrics{sj.name: a}, res: o.res, last: o.last})
	}
	return out, left, ""
}

// trapezoidMean returns the area under the piecewise linear curve through
// (xs[i], ys[i]) divided by the range of xs: the curve's mean over its x
// range; ys[0] for one point; NaN when a value is.
func trapezoidMean(xs, ys []float64) float64 {
	for _, y := range ys {
		if math.IsNaN(y) {
			return math.NaN()
		}
	}
	if len(xs) == 1 {
		return ys[0]
	}
	a := 0.0
	for i := 1; i < len(xs); i++ {
		a += (xs[i] - xs[i-1]) * (ys[i] + ys[i-1]) / 2
	}
	return a / (xs[len(xs)-1] - xs[0])
}

// candidates returns the series name stands for on d: with best grid or
// both, every series of the label name (or the series name itself); else
// the one d.find gives.
func candidates(d *dataSet, name, best string) ([]*series, error) {
	if best != "grid" && best != "both" {
		s, err := d.find(name)
		if err != nil {
			return nil, err
		}
		return []*series{s}, nil
	}
	var out []*series
	for _, s := range d.series {
		if s.name == name {
			return []*series{s}, nil
		}
		if s.label == name {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no method series %q in dataset %q", name, d.id)
	}
	return out, nil
}

// point is one side of a check at one row: the series chosen, its x (the
// row's, or the best one's), and the cell of the subject's values there.
type point struct {
	s     *series
	x     float64
	cl    *cell
	st    summary
	left  int // trials left out of an area
	among int // the points the best was chosen among (0: no choice)
}

// areaX stands for the whole curve in a row of an area check.
const areaX = -1

// pick returns the point of the candidates cands at the row's x: the one
// point, or with several candidates or x values (best) the one whose mean
// is best in the subject's direction (ties to the first); or why none can
// be measured. xs are the x values the row spans: its own, the curve's
// (best x, area).
func (c *checker) pick(sj subject, cands []*series, xs []float64, area bool) (point, string) {
	var best point
	var none string
	n := 0
	for _, s := range cands {
		for _, x := range xs {
			if k := s.notRun(x); k > 0 && (len(cands) > 1 || len(xs) > 1 || area) {
				return point{}, fmt.Sprintf("incomplete: %s of %s at size %s not run yet (finish the run first)", plural(k, "planned trial"), s.name, fmtX(x))
			}
		}
		var pts []point
		if area {
			cl, left, why := c.areaCell(sj, s, xs)
			if why != "" {
				return point{}, why
			}
			pts = append(pts, point{s: s, x: areaX, cl: cl, left: left})
		} else {
			for _, x := range xs {
				cl, why := c.cellOf(sj, s, x)
				if why != "" {
					return point{}, why
				}
				pts = append(pts, point{s: s, x: x, cl: cl})
			}
		}
		for _, p := range pts {
			vals, _ := p.cl.values(sj.name)
			if inf := countInf(vals); inf > 0 {
				// An infinite mean passes a bound on one side and fails
				// no relation's direction: a diverged value is a failure.
				at := "at size " + fmtX(p.x)
				if area {
					at = "over the curve"
				}
				return point{}, fmt.Sprintf("%s infinite (±Inf) in %d of %d trials of %s %s", sj.name, inf, len(vals), p.s.name, at)
			}
			p.st = summarize(vals)
			if p.st.N == 0 {
				if none == "" {
					none = c.noValues(sj, p, vals, area)
				}
				continue
			}
			n++
			if best.s == nil || (sj.higher && p.st.Mean > best.st.Mean) || (!sj.higher && p.st.Mean < best.st.Mean) {
				best = p
			}
		}
	}
	if best.s == nil {
		return point{}, none
	}
	if len(cands) > 1 || (len(xs) > 1 && !area) {
		best.among = n
	}
	return best, ""
}

// noValues says why point p has no value: undefined in every trial, or
// no results (with the failed trials).
func (c *checker) noValues(sj subject, p point, vals []float64, area bool) string {
	at := "at size " + fmtX(p.x)
	if area {
		at = "over the curve"
	}
	if len(vals) > 0 {
		return fmt.Sprintf("%s undefined (NaN) in all %d trials of %s %s", sj.name, len(vals), p.s.name, at)
	}
	if area && p.left > 0 {
		return fmt.Sprintf("no trial of %s has every x value of the curve", p.s.name)
	}
	msg := fmt.Sprintf("no results of %s %s", p.s.name, at)
	if f := p.s.failedAt(p.x); f > 0 && !area {
		msg += fmt.Sprintf(" (%d failed trials)", f)
	}
	return msg
}

// rowXs returns the x values e checks on the sides' candidates: Sizes,
// or every x where one of them has results.
func rowXs(d *dataSet, e *spec.Expectation, sides [][]*series) []float64 {
	var xs []float64
	for _, size := range e.Sizes {
		xs = append(xs, d.at(size))
	}
	if len(xs) > 0 {
		return xs
	}
	for _, x := range d.xs {
		for _, cands := range sides {
			if slices.ContainsFunc(cands, func(s *series) bool { return len(s.cells[x].obsOrNil()) > 0 }) && !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
	}
	return xs
}

// describe says which point p is, for a row whose check chose it (best)
// or left trials out of it (area): "MED (c=2 rho=0.0001), best of 35",
// "DDR (k=10) at 30, best of 3".
func describe(p point, e *spec.Expectation) string {
	s := p.s.name
	if e.Best == "x" || e.Best == "both" {
		s += " at " + fmtX(p.x)
	}
	if p.among > 1 {
		s += fmt.Sprintf(", best of %d", p.among)
	}
	if p.left > 0 {
		s += fmt.Sprintf(", %s without every x left out", plural(p.left, "trial"))
	}
	return s
}

// failing returns a function that makes the one row of a check that
// failed before measuring: base, with why as its measurement.
func failing(base CheckRow) func(why string) []CheckRow {
	return func(why string) []CheckRow {
		r := base
		r.Measured = why
		return []CheckRow{r}
	}
}

// countInf counts the infinite values of vs.
func countInf(vs []float64) int {
	n := 0
	for _, v := range vs {
		if math.IsInf(v, 0) {
			n++
		}
	}
	return n
}
