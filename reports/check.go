package reports

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// Checked is the outcome of checking an experiment's expect: block against
// its results: one row per expectation and x value (training size).
type Checked struct {
	Rows []CheckRow
}

// CheckRow is the verdict of one expectation at one x value.
type CheckRow struct {
	// Expect is the index of the expectation in Spec.Expect.
	Expect  int
	Dataset string
	// What says what is checked: "hp mse" or "fnr vs ridge LR accuracy".
	What string
	// X is the x value of the observations checked: the training size,
	// or the label budget of an active-learning trial (0 when the check
	// failed before one was known).
	X float64
	// Expected is the paper value with its tolerance, an interval, or a
	// relation ("≥ ridge LR + 4").
	Expected string
	// Measured is the mean over trials (with sd and n), the difference of
	// a relation with its paired t-test p-value, or why nothing could be
	// measured.
	Measured string
	Pass     bool
	Source   string
	Note     string
	// Test, P and Pairs are the paired test of a relation (or, for a
	// Win/Tie/Loss count, the test and the number of x values compared):
	// the test's name, its two-sided p-value (NaN when none) and the
	// number of pairs. A value check has none.
	Test  string
	P     float64
	Pairs int
	// Demanded says whether the rule demanded a test: significant,
	// at_par or wtl. A relation without it compares means only, and a
	// pass then says so (Qualifier).
	Demanded bool
	// Qualifier, if set, qualifies the verdict: "direction only" or
	// "non-inferior by mean" on a pass that rests on the means alone,
	// "not significant" or "significant difference" on a failure the
	// test decided.
	Qualifier string
}

// Verdict returns the row's verdict as check prints it: PASS or FAIL,
// followed by the qualifier and the p-value when there is one —
// "PASS (direction only, p=0.530)".
func (r *CheckRow) Verdict() string {
	v := "FAIL"
	if r.Pass {
		v = "PASS"
	}
	if r.Qualifier != "" {
		v += " (" + r.Qualifier
		if r.Test != "" && !math.IsNaN(r.P) {
			v += ", " + fmtP(r.P)
		}
		v += ")"
	}
	return v
}

// MeansOnly returns the number of passed rows whose pass rests on the
// means alone: relations that demanded no test.
func (c *Checked) MeansOnly() int {
	n := 0
	for _, r := range c.Rows {
		if r.Pass && r.Test != "" && !r.Demanded {
			n++
		}
	}
	return n
}

// Passed returns the number of rows that passed.
func (c *Checked) Passed() int {
	n := 0
	for _, r := range c.Rows {
		if r.Pass {
			n++
		}
	}
	return n
}

// Failed returns the number of rows that failed.
func (c *Checked) Failed() int { return len(c.Rows) - c.Passed() }

// Check evaluates spec.Expect against results. A value check passes at
// an x value (sizes: in the expectation) when the mean over trials of the
// method series' metric is within Tol (absolute) or RTol (relative to
// Value) of Value — or, with neither, equal to it at report.digits
// decimals — and within [Min, Max] when given.
//
// A relation is checked at each x value with the reports' paired test
// there (TestAt: report.test, else DefaultTest of the trials' training
// rows and pool) over the trials both series have:
//   - plain: Better's mean beats Than's by at least By in the metric's
//     direction (strictly, when By is 0). The test decides nothing: a
//     pass is qualified "direction only", with its p-value.
//   - significant: as plain, and the test finds Better ahead at Alpha.
//   - at_par: the test finds no difference at Alpha and, with Within,
//     the means differ by at most Within.
//   - Within alone: Better's mean trails Than's by at most Within (a
//     non-inferiority margin on the means; qualified "non-inferior by
//     mean").
//
// A Win/Tie/Loss count (WTL) is checked once per dataset: the report's
// W/T/L of WTL.Series against WTL.Than over the x values (Sizes, when
// given) with the dataset's test at Alpha passes when each of the three
// counts is within Slack of the paper's. A series, size or result that
// is missing is a failure with the reason as its measurement.
//
// Without the dataset sizes (see CheckDir) the pools the default test
// depends on are estimated from the split and the trials (PoolRows).
func Check(sp *spec.Spec, recs []results.Result) *Checked {
	return build(sp, recs).check()
}

// CheckDir is Check on the results of the output directory dir, whose
// datasets.json gives the dataset sizes the default test depends on, as
// in the reports Write renders there. A missing or damaged datasets.json
// leaves the estimates of Check.
func CheckDir(dir string, sp *spec.Spec, recs []results.Result) *Checked {
	m := build(sp, recs)
	infos, _ := results.ReadDatasetInfo(dir)
	m.rows = datasetRows(infos)
	return m.check()
}

func (m *model) check() *Checked {
	out := &Checked{}
	for i := range m.spec.Expect {
		e := &m.spec.Expect[i]
		var sets []*dataSet
		if e.Dataset == "" {
			sets = m.datasets
		} else {
			for _, d := range m.datasets {
				if d.id == e.Dataset {
					sets = append(sets, d)
				}
			}
		}
		base := CheckRow{Expect: i, Dataset: e.Dataset, Source: e.Source, Note: e.Note, P: math.NaN()}
		switch {
		case e.WTL.Series != "":
			base.What = e.WTL.Series + " vs " + e.WTL.Than + " " + e.Metric + " W/T/L"
		case e.Better != "":
			base.What = e.Better + " vs " + thanName(e) + " " + e.Metric
		default:
			base.What = e.Method + " " + e.Metric
		}
		if len(sets) == 0 {
			r := base
			r.Expected = m.expected(e)
			r.Measured = fmt.Sprintf("no dataset %q in the experiment", e.Dataset)
			out.Rows = append(out.Rows, r)
			continue
		}
		for _, d := range sets {
			base.Dataset = d.id
			if e.Metric == "" || e.Best != "" || e.Trend.Shape != "" || e.Area {
				r := base
				r.Measured = "not evaluated yet: this form of expect lands in reports next"
				out.Rows = append(out.Rows, r)
				continue
			}
			if e.WTL.Series != "" {
				out.Rows = append(out.Rows, m.checkWTL(d, e, base))
				continue
			}
			out.Rows = append(out.Rows, m.checkOn(d, e, base)...)
		}
	}
	return out
}

// expected describes what e expects, and for a relation whether it
// demands a significant test.
func (m *model) expected(e *spec.Expectation) string {
	alpha := "α=" + num(e.AlphaOr())
	if e.WTL.Series != "" {
		return fmt.Sprintf("W/T/L %s ± %d (significant at %s)", wtlOf(e), e.Slack, alpha)
	}
	if e.Better != "" {
		dir := "higher"
		if mt, err := metric.Lookup(e.Metric); err == nil && !mt.HigherIsBetter {
			dir = "lower"
		}
		switch {
		case e.AtPar && e.Within != nil:
			return fmt.Sprintf("at par with %s: no significant difference at %s, means within ±%s", thanName(e), alpha, num(*e.Within))
		case e.AtPar:
			return fmt.Sprintf("at par with %s: no significant difference at %s", thanName(e), alpha)
		case e.Within != nil:
			return fmt.Sprintf("not worse than %s by more than %s (means only)", thanName(e), num(*e.Within))
		}
		s := fmt.Sprintf("%s than %s", dir, thanName(e))
		if e.By != 0 {
			s += " by ≥ " + num(e.By)
		}
		if e.Significant {
			return s + ", significant at " + alpha
		}
		return s + " (direction only)"
	}
	var s string
	if e.Value != nil {
		s = num(*e.Value)
		switch {
		case e.Tol != nil && e.RTol != nil:
			s += fmt.Sprintf(" ± %s or %s%%", num(*e.Tol), num(*e.RTol*100))
		case e.Tol != nil:
			s += " ± " + num(*e.Tol)
		case e.RTol != nil:
			s += fmt.Sprintf(" ± %s%%", num(*e.RTol*100))
		default:
			s += fmt.Sprintf(" (at %d decimals)", m.digits(e.Metric))
		}
	}
	if e.Min != nil || e.Max != nil {
		if s != "" {
			s += ", "
		}
		switch {
		case e.Min != nil && e.Max != nil:
			s += fmt.Sprintf("in [%s, %s]", num(*e.Min), num(*e.Max))
		case e.Min != nil:
			s += "≥ " + num(*e.Min)
		default:
			s += "≤ " + num(*e.Max)
		}
	}
	if s == "" {
		s = "(nothing to check)"
	}
	return s
}

// num formats a number from a spec as written: shortest exact form.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// checkOn evaluates e on one dataset.
func (m *model) checkOn(d *dataSet, e *spec.Expectation, base CheckRow) []CheckRow {
	base.Expected = m.expected(e)
	fail := func(why string) []CheckRow {
		r := base
		r.Measured = why
		return []CheckRow{r}
	}
	mt, err := metric.Lookup(e.Metric)
	if err != nil {
		return fail(err.Error())
	}
	var ss []*series
	names := []string{e.Method}
	if e.Better != "" {
		names = []string{e.Better, e.Than}
	}
	for i, name := range names {
		in := d
		if i == 1 && e.ThanDataset != "" {
			if in = m.dataset(e.ThanDataset); in == nil {
				return fail(fmt.Sprintf("no dataset %q in the experiment", e.ThanDataset))
			}
		}
		s, err := in.find(name)
		if err != nil {
			return fail(err.Error())
		}
		ss = append(ss, s)
	}
	var xs []float64
	for _, size := range e.Sizes {
		xs = append(xs, float64(size))
	}
	if len(xs) == 0 {
		seen := map[float64]bool{}
		for _, x := range d.xs {
			for _, s := range ss {
				if len(s.cells[x].obsOrNil()) > 0 && !seen[x] {
					seen[x] = true
					xs = append(xs, x)
				}
			}
		}
		if len(xs) == 0 {
			return fail(fmt.Sprintf("no successful trials of %s", ss[0].name))
		}
	}
	var rows []CheckRow
	for _, x := range xs {
		r := base
		r.X = x
		var sts []summary
		missing := ""
		for _, s := range ss {
			vals, _ := s.cells[x].values(e.Metric)
			st := summarize(vals)
			if inf := countInf(vals); inf > 0 && missing == "" {
				// An infinite mean passes a bound on one side and fails
				// no relation's direction: a diverged metric is a failure.
				missing = fmt.Sprintf("%s infinite (±Inf) in %d of %d trials of %s at size %s", e.Metric, inf, len(vals), s.name, fmtX(x))
			}
			if st.N == 0 && missing == "" && len(vals) > 0 {
				missing = fmt.Sprintf("%s undefined (NaN) in all %d trials of %s at size %s", e.Metric, len(vals), s.name, fmtX(x))
			}
			if st.N == 0 && missing == "" {
				missing = fmt.Sprintf("no results of %s at size %s", s.name, fmtX(x))
				if f := s.failedAt(x); f > 0 {
					missing += fmt.Sprintf(" (%d failed trials)", f)
				}
			}
			sts = append(sts, st)
		}
		for _, s := range ss {
			if n := s.notRun(x); n > 0 && missing == "" {
				missing = fmt.Sprintf("incomplete: %s of %s at size %s not run yet (finish the run first)", plural(n, "planned trial"), s.name, fmtX(x))
			}
		}
		if missing != "" {
			r.Measured = missing
			rows = append(rows, r)
			continue
		}
		if e.Better == "" {
			st := sts[0]
			r.Measured = m.fmtNum(e.Metric, st.Mean)
			if st.N > 1 {
				r.Measured += " ± " + m.fmtNum(e.Metric, st.SD)
			}
			r.Measured += fmt.Sprintf(" (n=%d)", st.N)
			r.Pass = m.valueOK(e, st.Mean)
		} else {
			diff := sts[0].Mean - sts[1].Mean
			if !mt.HigherIsBetter {
				diff = -diff
			}
			tt := m.compare(d, ss[0].cells[x], ss[1].cells[x], e.Metric)
			r.Test, r.P, r.Pairs = tt.Test, tt.P, tt.N
			r.Demanded = e.Significant || e.AtPar
			r.Measured = fmt.Sprintf("%s vs %s: by %s (%s %s, %d pairs%s)", m.fmtNum(e.Metric, sts[0].Mean), m.fmtNum(e.Metric, sts[1].Mean),
				signed(m, e.Metric, diff), tt.Test, fmtP(tt.P), tt.N, m.bootDiff(ss[0].cells[x], ss[1].cells[x], e.Metric, mt.HigherIsBetter))
			m.relate(&r, e, tt, diff, mt.HigherIsBetter)
		}
		rows = append(rows, r)
	}
	return rows
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

// relate decides the verdict of relation e at one x value from the
// difference of the means diff (positive favours Better) and the paired
// test tt of Better against Than.
func (m *model) relate(r *CheckRow, e *spec.Expectation, tt TestResult, diff float64, higher bool) {
	dir := 1
	if !higher {
		dir = -1
	}
	alpha := e.AlphaOr()
	noTest := tt.N < 2 || math.IsNaN(tt.P)
	ahead := diff > 0
	if e.By != 0 {
		ahead = diff >= e.By
	}
	switch {
	case e.AtPar:
		gapOK := e.Within == nil || math.Abs(diff) <= *e.Within*(1+1e-12)
		switch {
		case noTest:
			r.Qualifier = "no test: fewer than two pairs"
		case tt.P < alpha:
			r.Qualifier = "significant difference"
		case !gapOK:
			r.Qualifier = "gap above within"
		default:
			r.Pass = true
		}
	case e.Significant:
		switch {
		case !ahead:
			r.Qualifier = "wrong direction"
			if diff > 0 {
				r.Qualifier = "margin not reached"
			}
		case noTest:
			r.Qualifier = "no test: fewer than two pairs"
		case !tt.Significant(alpha, dir):
			r.Qualifier = "not significant"
		default:
			r.Pass = true
		}
	case e.Within != nil:
		r.Pass = diff >= -*e.Within
		if r.Pass {
			r.Qualifier = "non-inferior by mean"
		}
	default:
		r.Pass = ahead
		if r.Pass {
			r.Qualifier = "direction only"
		}
	}
}

// wtlOf formats e's paper counts as "37/3/0".
func wtlOf(e *spec.Expectation) string {
	c := func(p *int) string {
		if p == nil {
			return "?"
		}
		return strconv.Itoa(*p)
	}
	return c(e.WTL.Wins) + "/" + c(e.WTL.Ties) + "/" + c(e.WTL.Losses)
}

// checkWTL evaluates the Win/Tie/Loss count e on dataset d.
func (m *model) checkWTL(d *dataSet, e *spec.Expectation, r CheckRow) CheckRow {
	r.Expected = m.expected(e)
	r.Demanded = true
	mt, err := metric.Lookup(e.Metric)
	if err != nil {
		r.Measured = err.Error()
		return r
	}
	a, err := d.find(e.WTL.Series)
	if err != nil {
		r.Measured = err.Error()
		return r
	}
	b, err := d.find(e.WTL.Than)
	if err != nil {
		r.Measured = err.Error()
		return r
	}
	xs := d.xs
	if len(e.Sizes) > 0 {
		xs = nil
		for _, size := range e.Sizes {
			xs = append(xs, float64(size))
		}
	}
	for _, s := range []*series{a, b} {
		for _, x := range xs {
			if n := s.notRun(x); n > 0 {
				r.Measured = fmt.Sprintf("incomplete: %s of %s at %s not run yet (finish the run first)", plural(n, "planned trial"), s.name, fmtX(x))
				return r
			}
		}
	}
	c := m.wtl(d, a, b, e.Metric, mt.HigherIsBetter, e.AlphaOr(), xs)
	r.Test = strings.Join(c.Tests, "+")
	if r.Test == "" && len(xs) > 0 {
		r.Test, _, _ = m.testOf(d, a.cells[xs[len(xs)-1]])
	}
	r.Pairs = c.Win + c.Tie + c.Loss
	r.Measured = fmt.Sprintf("%s (paper %s) over %s, %s", c, wtlOf(e), plural(r.Pairs, "x value"), r.Test)
	if c.None > 0 {
		r.Measured += fmt.Sprintf("; %d with fewer than two pairs not counted", c.None)
	}
	paper := [3]*int{e.WTL.Wins, e.WTL.Ties, e.WTL.Losses}
	r.Pass = true
	for i, got := range [3]int{c.Win, c.Tie, c.Loss} {
		if paper[i] == nil || abs(got-*paper[i]) > e.Slack {
			r.Pass = false
		}
	}
	if !r.Pass {
		r.Qualifier = fmt.Sprintf("a count off by more than %d", e.Slack)
	}
	return r
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (c *cell) obsOrNil() []observation {
	if c == nil {
		return nil
	}
	return c.obs
}

// signed formats a difference of the metric name with an explicit sign:
// with the metric's digits, or up to three more when those round a
// nonzero difference to zero ("by +0.0004", not "by +0.000").
func signed(m *model, name string, v float64) string {
	s := m.fmtNum(name, v)
	for d := m.digits(name) + 1; d <= m.digits(name)+3 && v != 0 && !math.IsNaN(v) && strings.Trim(s, "-+0.") == ""; d++ {
		s = strconv.FormatFloat(v, 'f', d, 64)
	}
	if v >= 0 && s[0] != '-' && s[0] != '+' {
		s = "+" + s
	}
	return s
}

// fmtP formats a p-value.
func fmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "p=n/a"
	case p < 0.001:
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// valueOK reports whether mean satisfies e's value and interval checks.
func (m *model) valueOK(e *spec.Expectation, mean float64) bool {
	if math.IsNaN(mean) {
		return false
	}
	ok := true
	if e.Value != nil {
		v := *e.Value
		switch {
		case e.Tol == nil && e.RTol == nil:
			ok = m.fmtNum(e.Metric, mean) == m.fmtNum(e.Metric, v)
		default:
			within := false
			if e.Tol != nil && math.Abs(mean-v) <= *e.Tol*(1+1e-12) {
				within = true
			}
			if e.RTol != nil && math.Abs(mean-v) <= *e.RTol*math.Abs(v)*(1+1e-12) {
				within = true
			}
			ok = within
		}
	}
	if e.Min != nil && mean < *e.Min {
		ok = false
	}
	if e.Max != nil && mean > *e.Max {
		ok = false
	}
	return ok
}

// pairs returns the metric values of a and b on the trial indices both
// cells have, in trial order.
func pairs(a, b *cell, metricName string) (x, y []float64) {
	av, at := a.values(metricName)
	bv, bt := b.values(metricName)
	byTrial := map[int]float64{}
	for i, t := range bt {
		byTrial[t] = bv[i]
	}
	for i, t := range at {
		if v, ok := byTrial[t]; ok {
			x = append(x, av[i])
			y = append(y, v)
		}
	}
	return x, y
}

// WriteCheck writes c as a Markdown table — dataset, check, size,
// expected, measured, verdict, source — followed by "N passed, M failed",
// and returns the number of failed rows.
func WriteCheck(w io.Writer, c *Checked) int {
	var buf bytes.Buffer
	writeCheckTable(&buf, c, false)
	fmt.Fprintf(&buf, "\n%d passed, %d failed\n", c.Passed(), c.Failed())
	writeMeansOnly(&buf, c)
	w.Write(buf.Bytes())
	return c.Failed()
}

// writeMeansOnly says how many passes of c rest on the means alone.
func writeMeansOnly(w io.Writer, c *Checked) {
	switch n := c.MeansOnly(); n {
	case 0:
	case 1:
		fmt.Fprintf(w, "1 pass rests on the means alone (direction only or non-inferior by mean): its rule demanded no significant test.\n")
	default:
		fmt.Fprintf(w, "%d passes rest on the means alone (direction only or non-inferior by mean): their rules demanded no significant test.\n", n)
	}
}

// writeCheckTable writes the rows of c; with notes, a note column too.
func writeCheckTable(w io.Writer, c *Checked, notes bool) {
	header := []string{"dataset", "check", "size", "expected", "measured", "verdict", "source"}
	if notes {
		header = append(header, "note")
	}
	var rows [][]string
	for _, r := range c.Rows {
		size := "—"
		if r.X > 0 {
			size = fmtX(r.X)
		}
		row := []string{r.Dataset, r.What, size, r.Expected, r.Measured, r.Verdict(), r.Source}
		if notes {
			row = append(row, r.Note)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	writeTable(w, header, rows, "llrllll")
}
