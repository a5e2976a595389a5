package reports

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// expectedTrend describes what a trend e expects: "increasing along k
// (10 → 30), last vs first significant at α=0.05".
func (c *checker) expectedTrend(e *spec.Expectation) string {
	s := e.Trend.Shape
	if e.Better != "" {
		s = fmt.Sprintf("gap over %s %s", thanName(e), s)
	}
	s += " along " + e.Trend.AlongOr()
	if len(e.Trend.At) > 0 {
		at := make([]string, len(e.Trend.At))
		for i, v := range e.Trend.At {
			at[i] = num(v)
		}
		s += " (" + strings.Join(at, " → ") + ")"
	}
	if e.Significant {
		return s + ", last vs first significant at α=" + num(e.AlphaOr())
	}
	return s + " (means only)"
}

// trendPoint is one point of a trend: its label (the size, or the param
// value) and the cells of the method (a) and, for a gap, of than (b).
type trendPoint struct {
	label string
	a, b  *cell
	s, t  *series
}

// checkTrend evaluates a trend e on d: the means of Method, or the gaps
// of Better over Than, along the sizes (one row) or a grid param (one
// row per group of the other params and x, or per group with Area).
func (c *checker) checkTrend(d *dataSet, e *spec.Expectation, base CheckRow) []CheckRow {
	base.Expected = c.expected(e)
	fail := failing(base)
	sj, err := c.subjectOf(e)
	if err != nil {
		return fail(err.Error())
	}
	name := e.Method
	if name == "" {
		name = e.Better
	}
	thanIn := d
	if e.ThanDataset != "" {
		if thanIn = c.dataset(e.ThanDataset); thanIn == nil {
			return fail(fmt.Sprintf("no dataset %q in the experiment", e.ThanDataset))
		}
	}
	along := e.Trend.AlongOr()
	if along == "size" {
		s, err := d.find(name)
		if err != nil {
			return fail(err.Error())
		}
		var t *series
		if e.Than != "" {
			if t, err = thanIn.find(e.Than); err != nil {
				return fail(err.Error())
			}
		}
		var xs []float64
		for _, v := range e.Trend.At {
			xs = append(xs, d.at(v))
		}
		if len(xs) == 0 {
			sides := [][]*series{{s}}
			if t != nil {
				sides = append(sides, []*series{t})
			}
			xs = rowXs(d, e, sides)
		}
		if len(xs) == 0 {
			return fail(fmt.Sprintf("no successful trials of %s", s.name))
		}
		var pts []trendPoint
		for _, x := range xs {
			p := trendPoint{label: fmtX(x), s: s, t: t}
			if why := c.trendCells(sj, &p, []float64{x}, false); why != "" {
				return fail(why)
			}
			pts = append(pts, p)
		}
		r := base
		if len(xs) > 0 {
			r.Span = fmtX(xs[0]) + " → " + fmtX(xs[len(xs)-1])
		}
		return []CheckRow{c.trendRow(d, e, sj, r, pts)}
	}
	groups, err := alongGroups(d, name, along, e.Trend.At)
	if err != nil {
		return fail(err.Error())
	}
	var rows []CheckRow
	for _, g := range groups {
		// The than series of each point: the one of the same value of
		// along, or one series when than does not vary it.
		thans := make([]*series, len(g.series))
		if e.Than != "" {
			tg, err := alongGroups(thanIn, e.Than, along, nil)
			switch {
			case err == nil && len(tg) == 1:
				for i, v := range g.values {
					j := slices.IndexFunc(tg[0].values, func(w float64) bool { return sameValue(v, w) })
					if j < 0 {
						return fail(fmt.Sprintf("%s has no series at %s=%s to compare with %s", e.Than, along, num(v), g.series[i].name))
					}
					thans[i] = tg[0].series[j]
				}
			case err == nil:
				return fail(fmt.Sprintf("%s has %d groups of series along %s; name one series of it", e.Than, len(tg), along))
			default:
				t, err := thanIn.find(e.Than)
				if err != nil {
					return fail(err.Error())
				}
				for i := range thans {
					thans[i] = t
				}
			}
		}
		sides := [][]*series{g.series}
		if e.Than != "" {
			sides = append(sides, thans)
		}
		xs := rowXs(d, e, sides)
		if len(xs) == 0 {
			return fail(fmt.Sprintf("no successful trials of %s", g.series[0].name))
		}
		spans := make([][]float64, len(xs))
		for i, x := range xs {
			spans[i] = []float64{x}
		}
		if e.Area {
			spans = [][]float64{xs}
		}
		for _, span := range spans {
			r := base
			if g.key != "" {
				r.What += " [" + g.key + "]"
			}
			if len(span) == 1 && !e.Area {
				r.X = span[0]
			} else if len(span) > 0 {
				r.Span = "area " + fmtX(span[0]) + "–" + fmtX(span[len(span)-1])
			}
			var pts []trendPoint
			why := ""
			for i, s := range g.series {
				p := trendPoint{label: along + "=" + num(g.values[i]), s: s, t: thans[i]}
				if why = c.trendCells(sj, &p, span, e.Area); why != "" {
					break
				}
				pts = append(pts, p)
			}
			if why != "" {
				r.Measured = why
				rows = append(rows, r)
				continue
			}
			rows = append(rows, c.trendRow(d, e, sj, r, pts))
		}
	}
	return rows
}

// trendCells fills the cells of point p over span (its one x, or the
// curve with area), or says why it cannot: a trial not run, no values.
func (c *checker) trendCells(sj subject, p *trendPoint, span []float64, area bool) string {
	for _, s := range []*series{p.s, p.t} {
		if s == nil {
			continue
		}
		for _, x := range span {
			if n := s.notRun(x); n > 0 {
				return fmt.Sprintf("incomplete: %s of %s at size %s not run yet (finish the run first)", plural(n, "planned trial"), s.name, fmtX(x))
			}
		}
	}
	get := func(s *series) (*cell, string) {
		if area {
			cl, _, why := c.areaCell(sj, s, span)
			return cl, why
		}
		return c.cellOf(sj, s, span[0])
	}
	var why string
	if p.a, why = get(p.s); why != "" {
		return why
	}
	if p.t != nil {
		if p.b, why = get(p.t); why != "" {
			return why
		}
	}
	return ""
}

// gapCell returns the cell of the per-trial gaps of a over b in the
// subject's direction (positive: a ahead), over the trials both have.
func gapCell(sj subject, a, b *cell) *cell {
	av, at := a.values(sj.name)
	bv, bt := b.values(sj.name)
	byTrial := map[int]float64{}
	for i, t := range bt {
		byTrial[t] = bv[i]
	}
	out := &cell{x: a.x}
	for i, t := range at {
		v, ok := byTrial[t]
		if !ok {
			continue
		}
		g := av[i] - v
		if !sj.higher {
			g = -g
		}
		out.obs = append(out.obs, observation{trial: t, metrics: results.Metrics{sj.name: g}, res: a.obs[i].res, last: a.obs[i].last})
	}
	return out
}

// trendRow decides the trend e on its points: their means (or gaps of
// the means) monotone in the shape's sense and, with Significant, the
// paired test finding the last point ahead of the first.
func (c *checker) trendRow(d *dataSet, e *spec.Expectation, sj subject, r CheckRow, pts []trendPoint) CheckRow {
	if len(pts) < 2 {
		r.Measured = fmt.Sprintf("%d point(s) to compare; want two or more", len(pts))
		return r
	}
	vals := make([]float64, len(pts))
	cells := make([]*cell, len(pts))
	parts := make([]string, len(pts))
	for i, p := range pts {
		cells[i] = p.a
		if p.b != nil {
			cells[i] = gapCell(sj, p.a, p.b)
		}
		vs, _ := cells[i].values(sj.name)
		st := summarize(vs)
		vals[i] = st.Mean
		if st.N == 0 {
			r.Measured = fmt.Sprintf("no values of %s at %s", p.s.name, p.label)
			return r
		}
		if p.b != nil {
			// The gap of the means, as the relation rows give it.
			bs, _ := p.b.values(sj.name)
			as, _ := p.a.values(sj.name)
			vals[i] = summarize(as).Mean - summarize(bs).Mean
			if !sj.higher {
				vals[i] = -vals[i]
			}
			parts[i] = p.label + ": " + c.signed(sj, vals[i])
		} else {
			parts[i] = p.label + ": " + c.fmtNum(sj, vals[i])
		}
	}
	r.Measured = strings.Join(parts, ", ")
	ok := monotone(vals, e.Trend.Shape)
	r.Pass = ok
	if !ok {
		r.Qualifier = "not " + e.Trend.Shape
	}
	if !e.Significant {
		if ok {
			r.Qualifier = "direction only"
		}
		return r
	}
	// The last point against the first, in the shape's sense.
	dir := 1
	if e.Trend.Shape == "decreasing" || e.Trend.Shape == "nonincreasing" {
		dir = -1
	}
	name := sj.name
	tt := c.compare(d, cells[len(cells)-1], cells[0], name)
	r.Test, r.P, r.Pairs, r.Demanded = tt.Test, tt.P, tt.N, true
	r.Measured += fmt.Sprintf(" (last vs first: %s %s, %d pairs)", tt.Test, fmtP(tt.P), tt.N)
	switch {
	case !ok:
	case tt.N < 2 || math.IsNaN(tt.P):
		r.Pass, r.Qualifier = false, "no test: fewer than two pairs"
	case !tt.Significant(e.AlphaOr(), dir):
		r.Pass, r.Qualifier = false, "not significant"
	}
	return r
}

// monotone reports whether vals follow shape: increasing or decreasing
// strictly, nondecreasing or nonincreasing; a NaN breaks any.
func monotone(vals []float64, shape string) bool {
	for i := 1; i < len(vals); i++ {
		a, b := vals[i-1], vals[i]
		if math.IsNaN(a) || math.IsNaN(b) {
			return false
		}
		var ok bool
		switch shape {
		case "increasing":
			ok = b > a
		case "decreasing":
			ok = b < a
		case "nondecreasing":
			ok = b >= a
		case "nonincreasing":
			ok = b <= a
		}
		if !ok {
			return false
		}
	}
	return true
}

// alongGroup is the series of one method that differ only in the param a
// trend runs along, in the order of its values.
type alongGroup struct {
	key    string // the other params: "c=2", "" when none
	values []float64
	series []*series
}

// alongGroups returns the series of d that name stands for along param p
// (the series of its label, or when name is a series name those with its
// other params), grouped by their other params and ordered by p; with
// at, only those values, in at's order. It is an error when the label's
// series do not vary p.
func alongGroups(d *dataSet, name, p string, at []float64) ([]alongGroup, error) {
	label, fixed := name, param.Values(nil)
	for _, s := range d.series {
		if s.name == name {
			label, fixed = s.label, s.variant
		}
	}
	byKey := map[string]*alongGroup{}
	var keys []string
	found := false
	for _, s := range d.series {
		if s.label != label {
			continue
		}
		found = true
		v, ok := toFloat(s.variant[p])
		if !ok {
			continue
		}
		rest := param.Values{}
		for k, w := range s.variant {
			if k != p {
				rest[k] = w
			}
		}
		if fixed != nil && !sameOthers(fixed, rest, p) {
			continue
		}
		key := rest.Label()
		g := byKey[key]
		if g == nil {
			g = &alongGroup{key: key}
			byKey[key] = g
			keys = append(keys, key)
		}
		g.values = append(g.values, v)
		g.series = append(g.series, s)
	}
	if !found {
		return nil, fmt.Errorf("no method series %q in dataset %q", name, d.id)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the series of %s in dataset %q do not vary %s", label, d.id, p)
	}
	var out []alongGroup
	for _, k := range keys {
		g := byKey[k]
		idx := make([]int, len(g.values))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return g.values[idx[i]] < g.values[idx[j]] })
		if len(at) > 0 {
			idx = idx[:0]
			for _, v := range at {
				j := slices.IndexFunc(g.values, func(w float64) bool { return sameValue(v, w) })
				if j < 0 {
					return nil, fmt.Errorf("%s has no series at %s=%s (trend.at)", label, p, num(v))
				}
				idx = append(idx, j)
			}
		}
		ng := alongGroup{key: g.key}
		for _, i := range idx {
			ng.values = append(ng.values, g.values[i])
			ng.series = append(ng.series, g.series[i])
		}
		out = append(out, ng)
	}
	return out, nil
}

// sameOthers reports whether the variant fixed agrees with rest on every
// param but p.
func sameOthers(fixed, rest param.Values, p string) bool {
	for k, v := range fixed {
		if k == p {
			continue
		}
		if fmt.Sprint(rest[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

// sameValue reports whether two param values are equal up to rounding.
func sameValue(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}
