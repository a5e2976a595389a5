package reports

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

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
	// failed before one was known, or spans several: Span).
	X float64
	// Span, when set, is what the row covers instead of one x value: "area
	// 10–400" (the whole curve), "10 → 30" (a trend along the sizes),
	// "k 10 → 30" (along a param).
	Span string
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
		if r.Pass && !r.Demanded && (r.Qualifier == "direction only" || r.Qualifier == "non-inferior by mean") {
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
// there (TestAt: report.test, else DefaultTest, design-t) over the
// trials both series have:
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
// Without the dataset sizes (see CheckDir) the pools the overlaps and
// corrected-t depend on are estimated from the split and the trials
// (PoolRows).
func Check(sp *spec.Spec, recs []results.Result) *Checked {
	return build(sp, recs).check("", nil)
}

// CheckDir is Check on the results of the output directory dir, whose
// datasets.json gives the dataset sizes the default test depends on, as
// in the reports Write renders there. A missing or damaged datasets.json
// leaves the estimates of Check.
func CheckDir(dir string, sp *spec.Spec, recs []results.Result) *Checked {
	m := build(sp, recs)
	infos, err := results.ReadDatasetInfo(dir)
	m.rows = datasetRows(infos)
	m.infoErr = err
	return m.check(dir, infos)
}

// check evaluates the expectations on the results of the output
// directory dir ("" when unknown: no artifacts to read) whose
// datasets.json holds infos (nil when unread: no dataset facts).
func (m *model) check(dir string, infos map[string]results.DatasetInfo) *Checked {
	c := &checker{model: m, dir: dir, infos: infos, arts: map[string]*artifactFile{}}
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
		base := CheckRow{Expect: i, Dataset: e.Dataset, Source: e.Source, Note: e.Note, P: math.NaN(), What: what(e)}
		if len(sets) == 0 {
			r := base
			r.Expected = c.expected(e)
			r.Measured = fmt.Sprintf("no dataset %q in the experiment", e.Dataset)
			out.Rows = append(out.Rows, r)
			continue
		}
		for _, d := range sets {
			base.Dataset = d.id
			switch {
			case e.Fact != "":
				out.Rows = append(out.Rows, c.checkFact(d, e, base))
			case e.Artifact.Measure == "table":
				out.Rows = append(out.Rows, c.checkTable(d, e, base)...)
			case e.Trend.Shape != "":
				out.Rows = append(out.Rows, c.checkTrend(d, e, base)...)
			case e.WTL.Series != "":
				out.Rows = append(out.Rows, c.checkWTL(d, e, base))
			default:
				out.Rows = append(out.Rows, c.checkOn(d, e, base)...)
			}
		}
	}
	return out
}

// what says what e checks: "hp mse", "fnr vs ridge LR accuracy", "best
// of MED accuracy", "DDR vs EE auc (area)", "cols of a / b".
func what(e *spec.Expectation) string {
	sub := e.Subject()
	var s string
	switch {
	case e.Fact != "":
		if e.OverDataset != "" {
			return sub + " / " + sub + " of " + e.OverDataset
		}
		return sub
	case e.WTL.Series != "":
		return e.WTL.Series + " vs " + e.WTL.Than + " " + sub + " W/T/L"
	case e.Better != "":
		s = e.Better + " vs " + thanName(e) + " " + sub
	default:
		s = e.Method + " " + sub
	}
	switch e.Best {
	case "grid":
		s = "best grid point: " + s
	case "x", "both":
		s = "best point: " + s
	}
	if e.Trend.Shape != "" {
		s += " along " + e.Trend.AlongOr()
		if e.Better != "" {
			s = "gap " + s
		}
	}
	if e.Area {
		s += " (area)"
	}
	return s
}

// expected describes what e expects, and for a relation whether it
// demands a significant test.
func (c *checker) expected(e *spec.Expectation) string {
	m := c.model
	alpha := "α=" + num(e.AlphaOr())
	if e.WTL.Series != "" {
		return fmt.Sprintf("W/T/L %s ± %d (significant at %s)", wtlOf(e), e.Slack, alpha)
	}
	if e.Trend.Shape != "" {
		return c.expectedTrend(e)
	}
	if e.Artifact.Measure == "table" {
		return "each row: artifact.values" + tolText(e)
	}
	if e.Better != "" {
		dir := "higher"
		if sj, err := c.subjectOf(e); err == nil && !sj.higher {
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
		if t := tolText(e); t != "" {
			s += t
		} else {
			s += fmt.Sprintf(" (at %d decimals)", m.digits(e.Subject()))
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

// checkOn evaluates a value check or a relation e on one dataset: at
// each x (or once over the curve, with Area; once at the best x, with
// Best x), each side's point — its series, or with Best grid the best of
// its label's — and the verdict on their values.
func (c *checker) checkOn(d *dataSet, e *spec.Expectation, base CheckRow) []CheckRow {
	base.Expected = c.expected(e)
	fail := failing(base)
	sj, err := c.subjectOf(e)
	if err != nil {
		return fail(err.Error())
	}
	names := []string{e.Method}
	if e.Better != "" {
		names = []string{e.Better, e.Than}
	}
	var sides [][]*series
	for i, name := range names {
		in := d
		if i == 1 && e.ThanDataset != "" {
			if in = c.dataset(e.ThanDataset); in == nil {
				return fail(fmt.Sprintf("no dataset %q in the experiment", e.ThanDataset))
			}
		}
		cands, err := candidates(in, name, e.Best)
		if err != nil {
			return fail(err.Error())
		}
		sides = append(sides, cands)
	}
	xs := rowXs(d, e, sides)
	if len(xs) == 0 {
		return fail(fmt.Sprintf("no successful trials of %s", sides[0][0].name))
	}
	// The rows: one per x, or one over all of them.
	rowsOf := make([][]float64, len(xs))
	for i, x := range xs {
		rowsOf[i] = []float64{x}
	}
	if e.Area || e.Best == "x" || e.Best == "both" {
		rowsOf = [][]float64{xs}
	}
	var rows []CheckRow
	for _, span := range rowsOf {
		r := base
		if len(span) == 1 {
			r.X = span[0]
		} else {
			r.Span = fmtX(span[0]) + "–" + fmtX(span[len(span)-1])
		}
		if e.Area {
			r.Span = "area " + r.Span
			if len(span) == 1 {
				r.Span = "area " + fmtX(span[0])
			}
		}
		var pts []point
		missing := ""
		for _, cands := range sides {
			p, why := c.pick(sj, cands, span, e.Area)
			if why != "" && missing == "" {
				missing = why
			}
			pts = append(pts, p)
		}
		for _, p := range pts {
			if p.s == nil || len(span) > 1 || len(sides[0]) > 1 {
				continue
			}
			if n := p.s.notRun(span[0]); n > 0 && missing == "" {
				missing = fmt.Sprintf("incomplete: %s of %s at size %s not run yet (finish the run first)", plural(n, "planned trial"), p.s.name, fmtX(span[0]))
			}
		}
		if missing != "" {
			r.Measured = missing
			rows = append(rows, r)
			continue
		}
		if !e.Area && len(span) > 1 && pts[0].x != areaX {
			r.X, r.Span = pts[0].x, ""
		}
		chose := e.Best != "" || pts[0].left > 0 || len(pts) > 1 && pts[1].left > 0
		if e.Better == "" {
			p := pts[0]
			r.Measured = c.fmtNum(sj, p.st.Mean)
			if p.st.N > 1 {
				r.Measured += " ± " + c.fmtNum(sj, p.st.SD)
			}
			r.Measured += fmt.Sprintf(" (n=%d)", p.st.N)
			if chose {
				r.Measured = describe(p, e) + ": " + r.Measured
			}
			r.Pass = c.valueOK(e, p.st.Mean, p.st.SD)
			if e.SDs != nil {
				r.Expected += " (" + sdBand(c, sj, e, p.st) + ")"
			}
		} else {
			a, b := pts[0], pts[1]
			diff := a.st.Mean - b.st.Mean
			if !sj.higher {
				diff = -diff
			}
			tt, dz := c.compareIn(d, a.cl, b.cl, sj.name)
			r.Test, r.P, r.Pairs = tt.Test, tt.P, tt.N
			r.Demanded = e.Significant || e.AtPar
			boot := ""
			if sj.own && !e.Area {
				boot = c.bootDiff(a.cl, b.cl, sj.name, sj.higher)
			}
			r.Measured = fmt.Sprintf("%s vs %s: by %s (%s %s, %d pairs%s%s)", c.fmtNum(sj, a.st.Mean), c.fmtNum(sj, b.st.Mean),
				c.signed(sj, diff), tt.Test, fmtP(tt.P), tt.N, testNote(tt, dz), boot)
			if chose {
				r.Measured = describe(a, e) + " vs " + describe(b, e) + ": " + r.Measured
			}
			c.relate(&r, e, tt, diff, sj.higher)
		}
		rows = append(rows, r)
	}
	return rows
}

// signed formats a difference of the subject with an explicit sign.
func (c *checker) signed(sj subject, v float64) string {
	if sj.e != nil && sj.e.Artifact.Name != "" {
		s := c.fmtNum(sj, v)
		if v >= 0 && !strings.HasPrefix(s, "-") {
			s = "+" + s
		}
		return s
	}
	return signed(c.model, sj.name, v)
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
func (c *checker) checkWTL(d *dataSet, e *spec.Expectation, r CheckRow) CheckRow {
	m := c.model
	r.Expected = c.expected(e)
	r.Demanded = true
	sj, err := c.subjectOf(e)
	if err != nil {
		r.Measured = err.Error()
		return r
	}
	if !sj.own && e.Extra == "" {
		r.Measured = "a Win/Tie/Loss count is of a metric or an extra"
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
			xs = append(xs, d.at(size))
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
	if !sj.own {
		// An extra: series of cells that hold it under its name.
		for _, s := range []**series{&a, &b} {
			v := &series{name: (*s).name, label: (*s).label, variant: (*s).variant, cells: map[float64]*cell{}}
			for _, x := range xs {
				cl, why := c.cellOf(sj, *s, x)
				if why != "" {
					r.Measured = why
					return r
				}
				if cl != nil {
					v.cells[x] = cl
				}
			}
			*s = v
		}
	}
	cnt := m.wtl(d, a, b, sj.name, sj.higher, e.AlphaOr(), xs)
	r.Test = strings.Join(cnt.Tests, "+")
	if r.Test == "" && len(xs) > 0 {
		r.Test, _ = m.testOf(d, a.cells[xs[len(xs)-1]])
	}
	r.Pairs = cnt.Win + cnt.Tie + cnt.Loss
	r.Measured = fmt.Sprintf("%s (paper %s) over %s, %s", cnt, wtlOf(e), plural(r.Pairs, "x value"), r.Test)
	if cnt.None > 0 {
		r.Measured += fmt.Sprintf("; %d with fewer than two pairs not counted", cnt.None)
	}
	r.Measured += wtlOverlap(cnt.Uses)
	paper := [3]*int{e.WTL.Wins, e.WTL.Ties, e.WTL.Losses}
	r.Pass = true
	for i, got := range [3]int{cnt.Win, cnt.Tie, cnt.Loss} {
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

// valueOK reports whether mean satisfies e's value and interval checks;
// sd is the standard deviation over trials that SDs scales (NaN for one
// trial: no band).
func (m *model) valueOK(e *spec.Expectation, mean, sd float64) bool {
	if math.IsNaN(mean) {
		return false
	}
	ok := true
	if e.Value != nil {
		v := *e.Value
		switch {
		case e.Tol == nil && e.RTol == nil && e.SDs == nil:
			ok = m.fmtNum(e.Subject(), mean) == m.fmtNum(e.Subject(), v)
		default:
			within := false
			if e.SDs != nil && !math.IsNaN(sd) && math.Abs(mean-v) <= *e.SDs*sd*(1+1e-12) {
				within = true
			}
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
// cells have, in a's order (pairTrials without the indices).
func pairs(a, b *cell, metricName string) (x, y []float64) {
	x, y, _ = pairTrials(a, b, metricName)
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
		switch {
		case r.Span != "":
			size = r.Span
		case r.X > 0:
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
