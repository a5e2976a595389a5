package reports

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/runner"
)

// DiffOptions controls Compare.
type DiffOptions struct {
	// Alpha is the significance level of the paired t-test; 0 means 0.05.
	Alpha float64
	// Tolerance is how much worse a mean may get, in the metric's units
	// (Relative: as a fraction of the old mean's magnitude), before a
	// significant change is a regression.
	Tolerance float64
	Relative  bool
}

// DiffRow compares one metric of one method series at one x value (a
// training size, or an active-learning budget) between two runs, over
// the trials both runs finished.
type DiffRow struct {
	Dataset, Series, Metric string
	X                       float64
	// Old and New are the means over the paired trials; Change is
	// New − Old.
	Old, New, Change float64
	// Pairs is the number of trials paired; P the two-sided p-value of
	// a paired t-test of the change (NaN with fewer than two pairs).
	Pairs int
	P     float64
	// Significant reports P < alpha; Better and Worse the direction of a
	// significant change for a metric whose direction is known.
	Significant, Better, Worse bool
	// Regression marks a significant worsening beyond the tolerance.
	Regression bool
}

// DiffTrial names a trial listed by Compare: present, or finished, in one
// run only.
type DiffTrial struct {
	Dataset, Series string
	// Size is the size as the spec writes it (0 for a whole-curve trial).
	Size  float64
	Trial int
}

// Diff is the comparison of two runs of one experiment.
type Diff struct {
	Rows []DiffRow
	// OnlyOld and OnlyNew list the trials with a result in one run only
	// (another spec, or a run that did not finish).
	OnlyOld, OnlyNew []DiffTrial
	// FailedOld and FailedNew list the trials present in both runs that
	// failed in that run; a trial failed in both is in both lists.
	FailedOld, FailedNew []DiffTrial
	// NewlyFailed counts the trials that finished in the old run and
	// failed in the new one: regressions too.
	NewlyFailed int
	opts        DiffOptions
	m           *model
}

// Regressions returns the number of significant worsenings beyond the
// tolerance plus the trials that newly fail.
func (d *Diff) Regressions() int {
	n := d.NewlyFailed
	for _, r := range d.Rows {
		if r.Regression {
			n++
		}
	}
	return n
}

// Compare pairs the trials of two runs by key — the same trial of the
// same experiment: seed, data, method, size and trial index — and
// compares, per dataset, method series, x value and metric, the means of
// the pairs both runs finished with a paired t-test. The results are
// those of each run's own spec (runner.ForPlan); rows follow the new
// spec's order, then the old one's.
func Compare(oldSpec *runner.Spec, oldResults []runner.Result, newSpec *runner.Spec, newResults []runner.Result, opts DiffOptions) (*Diff, error) {
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	oldPlan, err := runner.NewPlan(oldSpec)
	if err != nil {
		return nil, fmt.Errorf("old run: %w", err)
	}
	newPlan, err := runner.NewPlan(newSpec)
	if err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	d := &Diff{opts: opts, m: &model{spec: newSpec}}
	planned := map[string]*runner.Trial{}
	for _, p := range []*runner.Plan{newPlan, oldPlan} {
		for _, t := range p.Trials {
			if planned[t.Key] == nil {
				planned[t.Key] = t
			}
		}
	}
	name := func(r *runner.Result) DiffTrial {
		t := planned[r.Key]
		return DiffTrial{Dataset: r.Dataset, Series: runner.SeriesName(r.Method, param.Values(r.Variant)), Size: t.Size, Trial: r.Trial}
	}
	oldBy := map[string]*runner.Result{}
	for _, r := range runner.ForPlan(oldPlan, runner.Latest(oldResults)) {
		oldBy[r.Key] = &r
	}

	type group struct{ dataset, series string }
	type cellKey struct {
		g      group
		x      float64
		metric string
	}
	var groups []group
	seenGroup := map[group]bool{}
	xs := map[group][]float64{}
	metrics := map[group][]string{}
	pairs := map[cellKey]*[2][]float64{}
	seenNew := map[string]bool{}
	for _, nr := range runner.ForPlan(newPlan, runner.Latest(newResults)) {
		seenNew[nr.Key] = true
		or := oldBy[nr.Key]
		if or == nil {
			d.OnlyNew = append(d.OnlyNew, name(&nr))
			continue
		}
		if or.Failed() {
			d.FailedOld = append(d.FailedOld, name(or))
		}
		if nr.Failed() {
			d.FailedNew = append(d.FailedNew, name(&nr))
			if !or.Failed() {
				d.NewlyFailed++
			}
		}
		if or.Failed() || nr.Failed() {
			continue
		}
		g := group{nr.Dataset, runner.SeriesName(nr.Method, param.Values(nr.Variant))}
		if !seenGroup[g] {
			seenGroup[g] = true
			groups = append(groups, g)
		}
		oldAt := map[float64]runner.Observation{}
		for _, o := range or.Points() {
			oldAt[o.X] = o
		}
		for _, no := range nr.Points() {
			oo, ok := oldAt[no.X]
			if !ok {
				continue
			}
			if !slices.Contains(xs[g], no.X) {
				xs[g] = append(xs[g], no.X)
			}
			for mn, nv := range no.Metrics {
				ov, ok := oo.Metrics[mn]
				if !ok {
					continue
				}
				if !slices.Contains(metrics[g], mn) {
					metrics[g] = append(metrics[g], mn)
				}
				k := cellKey{g, no.X, mn}
				p := pairs[k]
				if p == nil {
					p = &[2][]float64{}
					pairs[k] = p
				}
				p[0] = append(p[0], ov)
				p[1] = append(p[1], nv)
			}
		}
	}
	for _, t := range oldPlan.Trials {
		if r := oldBy[t.Key]; r != nil && !seenNew[t.Key] {
			d.OnlyOld = append(d.OnlyOld, name(r))
		}
	}

	for _, g := range groups {
		sort.Float64s(xs[g])
		ms := metrics[g]
		sort.Slice(ms, func(i, j int) bool { return metricBefore(newSpec.Metrics, ms[i], ms[j]) })
		for _, x := range xs[g] {
			for _, mn := range ms {
				p := pairs[cellKey{g, x, mn}]
				if p == nil {
					continue
				}
				d.Rows = append(d.Rows, d.row(g.dataset, g.series, mn, x, p[0], p[1]))
			}
		}
	}
	return d, nil
}

// metricBefore orders metric names as the spec lists them, a metric's
// parts ("binary_errors/1") after it, unknown names last by name.
func metricBefore(order []string, a, b string) bool {
	rank := func(s string) int {
		base, _, _ := strings.Cut(s, "/")
		if i := slices.Index(order, base); i >= 0 {
			return i
		}
		return len(order)
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a < b
}

// row compares the paired values of one cell.
func (d *Diff) row(dataset, series, mn string, x float64, old, new []float64) DiffRow {
	r := DiffRow{Dataset: dataset, Series: series, Metric: mn, X: x,
		Old: summarize(old).Mean, New: summarize(new).Mean}
	t := pairedTTest(new, old)
	r.Pairs, r.P = t.N, t.P
	r.Change = r.New - r.Old
	r.Significant = !math.IsNaN(t.P) && t.P < d.opts.Alpha
	base, _, _ := strings.Cut(mn, "/")
	higher, known := direction(base)
	if r.Significant && known && r.Change != 0 {
		r.Better = (r.Change > 0) == higher
		r.Worse = !r.Better
	}
	if r.Worse {
		tol := d.opts.Tolerance
		if d.opts.Relative {
			tol *= math.Abs(r.Old)
		}
		r.Regression = math.Abs(r.Change) > tol*(1+1e-12)
	}
	return r
}

// WriteDiff writes d as a Markdown table — dataset, method, size,
// metric, old and new means, change, p-value and pairs, verdict — then
// the trials only one run has or that failed, and a last line counting
// the regressions. It returns the number of regressions
// (Diff.Regressions).
//
// The verdict is "~" for no significant change, "better" or "worse" for
// a significant one (a metric of unknown direction: "changed"), and
// "WORSE" for a regression: significantly worse beyond the tolerance.
func WriteDiff(w io.Writer, d *Diff) int {
	var buf bytes.Buffer
	m := d.m
	var rows [][]string
	for _, r := range d.Rows {
		verdict := "~"
		switch {
		case r.Regression:
			verdict = "WORSE"
		case r.Worse:
			verdict = "worse"
		case r.Better:
			verdict = "better"
		case r.Significant && r.Change != 0:
			verdict = "changed"
		}
		p := "n/a"
		switch {
		case r.P < 0.001:
			p = "<0.001"
		case !math.IsNaN(r.P):
			p = strconv.FormatFloat(r.P, 'f', 3, 64)
		}
		rows = append(rows, []string{r.Dataset, mdText(r.Series), fmtX(r.X), r.Metric,
			m.fmtNum(r.Metric, r.Old), m.fmtNum(r.Metric, r.New), signed(m, r.Metric, r.Change),
			p, strconv.Itoa(r.Pairs), verdict})
	}
	if len(rows) == 0 {
		fmt.Fprintln(&buf, "no trial finished in both runs")
	} else {
		writeTable(&buf, []string{"dataset", "method", "size", "metric", "old", "new", "change", "p", "pairs", "verdict"}, rows, "llrlrrrrrl")
	}
	listTrials(&buf, "only in the old run", d.OnlyOld)
	listTrials(&buf, "only in the new run", d.OnlyNew)
	listTrials(&buf, "failed in the old run", d.FailedOld)
	listTrials(&buf, "failed in the new run", d.FailedNew)

	tol := num(d.opts.Tolerance)
	if d.opts.Relative {
		tol = num(d.opts.Tolerance*100) + "%"
	}
	n := d.Regressions()
	fmt.Fprintf(&buf, "\n%d compared, %d significantly better, %d significantly worse, %d regressions (alpha %s, tolerance %s",
		len(d.Rows), countRows(d.Rows, func(r DiffRow) bool { return r.Better }), countRows(d.Rows, func(r DiffRow) bool { return r.Worse }), n, num(d.opts.Alpha), tol)
	if d.NewlyFailed > 0 {
		fmt.Fprintf(&buf, "; %d of them newly failed trials", d.NewlyFailed)
	}
	buf.WriteString(")\n")
	w.Write(buf.Bytes())
	return n
}

func countRows(xs []DiffRow, f func(DiffRow) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// listTrials writes the trials under a heading, one line per dataset,
// series and size with their trial indices.
func listTrials(w io.Writer, heading string, trials []DiffTrial) {
	if len(trials) == 0 {
		return
	}
	type group struct {
		dataset, series string
		size            float64
	}
	var order []group
	idx := map[group][]int{}
	for _, t := range trials {
		g := group{t.Dataset, t.Series, t.Size}
		if _, ok := idx[g]; !ok {
			order = append(order, g)
		}
		idx[g] = append(idx[g], t.Trial)
	}
	fmt.Fprintf(w, "\n%s: %s\n", heading, plural(len(trials), "trial"))
	for _, g := range order {
		ts := idx[g]
		sort.Ints(ts)
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = strconv.Itoa(t)
		}
		size := ""
		if g.size > 0 {
			size = " / size " + param.Format(g.size)
		}
		fmt.Fprintf(w, "- %s / %s%s: trial %s\n", g.dataset, g.series, size, strings.Join(s, ", "))
	}
}
