package reports

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// artifact returns the table artifact name of the trial of o, or why
// there is none.
func (c *checker) artifact(name string, o *observation) (*artifactFile, string) {
	if c.dir == "" {
		return nil, "no output directory to read artifacts from"
	}
	if o.res == nil {
		return nil, "no result"
	}
	var names []string
	for _, rel := range o.res.Artifacts {
		a, ok := c.arts[rel]
		if !ok {
			var err error
			a, err = readArtifact(c.dir, rel)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Sprintf("%s is missing", rel)
				}
				return nil, fmt.Sprintf("reading %s: %v", rel, err)
			}
			c.arts[rel] = a
		}
		if a.Name == name {
			if a.Table == nil {
				return nil, fmt.Sprintf("artifact %q is a plot; want a table artifact", name)
			}
			return a, ""
		}
		names = append(names, a.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Sprintf("no artifact %q: the trial saved none", name)
	}
	return nil, fmt.Sprintf("no artifact %q; the trial saved %s", name, strings.Join(names, ", "))
}

// cells returns the cells of table a that ac selects (its column, or all;
// its rows, or all), null cells left out, or why they cannot be selected.
func cells(a *artifactFile, ac *spec.ArtifactCheck) ([]float64, string) {
	t := a.Table
	cols := make([]int, 0, len(t.Columns))
	switch {
	case ac.Column != "":
		j := slices.Index(t.Columns, ac.Column)
		if j < 0 {
			return nil, fmt.Sprintf("artifact %q has no column %q; its columns: %s", a.Name, ac.Column, strings.Join(t.Columns, ", "))
		}
		cols = append(cols, j)
	case (ac.Measure == "cell" || ac.Measure == "table") && len(t.Columns) > 1:
		return nil, fmt.Sprintf("artifact %q has %d columns; want artifact.column, one of %s", a.Name, len(t.Columns), strings.Join(t.Columns, ", "))
	default:
		for j := range t.Columns {
			cols = append(cols, j)
		}
	}
	rows := make([]int, 0, len(t.Rows))
	if len(ac.Rows) == 0 {
		for i := range t.Rows {
			rows = append(rows, i)
		}
	}
	for _, name := range ac.Rows {
		i := slices.Index(t.Rows, name)
		if i < 0 {
			return nil, fmt.Sprintf("artifact %q has no row %q; its rows: %s", a.Name, name, strings.Join(t.Rows, ", "))
		}
		rows = append(rows, i)
	}
	var out []float64
	for _, i := range rows {
		for _, j := range cols {
			if i < len(t.Values) && j < len(t.Values[i]) && t.Values[i][j] != nil {
				out = append(out, *t.Values[i][j])
			}
		}
	}
	return out, ""
}

// measure returns the artifact measure ac of the trial of o (zeros,
// nonzero, all_zero, cell), or why it has none.
func (c *checker) measure(ac *spec.ArtifactCheck, o *observation) (float64, string) {
	a, why := c.artifact(ac.Name, o)
	if why != "" {
		return 0, why
	}
	if ac.Measure == "zero_set" {
		return zeroSet(a, ac)
	}
	vs, why := cells(a, ac)
	if why != "" {
		return 0, why
	}
	if len(vs) == 0 {
		return 0, fmt.Sprintf("artifact %q has no values in the cells selected", ac.Name)
	}
	eps := epsOf(ac, vs)
	zeros := 0
	for _, v := range vs {
		if math.Abs(v) <= eps {
			zeros++
		}
	}
	switch ac.Measure {
	case "zeros":
		return float64(zeros) / float64(len(vs)), ""
	case "nonzero":
		return float64(len(vs) - zeros), ""
	case "all_zero":
		if zeros == len(vs) {
			return 1, ""
		}
		return 0, ""
	case "cell":
		if len(vs) != 1 {
			return 0, fmt.Sprintf("%d cells selected; want artifact.rows of one row and one column", len(vs))
		}
		return vs[0], ""
	}
	return 0, fmt.Sprintf("measure %q is not a value per trial", ac.Measure)
}

// epsOf returns the bound on |v| that counts as zero among the cells vs:
// ac.Eps, or with Relative that fraction of their largest |v|.
func epsOf(ac *spec.ArtifactCheck, vs []float64) float64 {
	if !ac.Relative {
		return ac.Eps
	}
	top := 0.0
	for _, v := range vs {
		top = math.Max(top, math.Abs(v))
	}
	return ac.Eps * top
}

// zeroSet returns 1 when the rows of table a whose cells (of ac.Column,
// or all columns) are all within eps of zero are exactly ac.Rows, else
// 0; or why the rows cannot be told.
func zeroSet(a *artifactFile, ac *spec.ArtifactCheck) (float64, string) {
	for _, r := range ac.Rows {
		if !slices.Contains(a.Table.Rows, r) {
			return 0, fmt.Sprintf("artifact %q has no row %q; its rows: %s", a.Name, r, strings.Join(a.Table.Rows, ", "))
		}
	}
	all := *ac
	all.Rows = nil
	vs, why := cells(a, &all)
	if why != "" {
		return 0, why
	}
	eps := epsOf(ac, vs)
	for _, r := range a.Table.Rows {
		one := all
		one.Rows = []string{r}
		rv, _ := cells(a, &one)
		zero := len(rv) > 0
		for _, v := range rv {
			zero = zero && math.Abs(v) <= eps
		}
		if zero != slices.Contains(ac.Rows, r) {
			return 0, ""
		}
	}
	return 1, ""
}

// checkTable evaluates an artifact measure table on d: for each row of
// the paper's table, the mean over trials of the method's cell at each x
// against the paper's value, within Tol or RTol.
func (c *checker) checkTable(d *dataSet, e *spec.Expectation, base CheckRow) []CheckRow {
	ac := &e.Artifact
	base.Expected = c.expected(e)
	fail := failing(base)
	if len(ac.Values) != len(ac.Rows) || len(ac.Rows) == 0 {
		return fail(fmt.Sprintf("%d values for %d rows; want one value per row", len(ac.Values), len(ac.Rows)))
	}
	s, err := d.find(e.Method)
	if err != nil {
		return fail(err.Error())
	}
	xs := rowXs(d, e, [][]*series{{s}})
	if len(xs) == 0 {
		return fail(fmt.Sprintf("no successful trials of %s", s.name))
	}
	sj := subject{name: e.Subject(), e: e}
	var out []CheckRow
	for _, x := range xs {
		if n := s.notRun(x); n > 0 {
			r := base
			r.X = x
			r.Measured = fmt.Sprintf("incomplete: %s of %s at size %s not run yet (finish the run first)", plural(n, "planned trial"), s.name, fmtX(x))
			out = append(out, r)
			continue
		}
		// Each row of the table: its cell in each trial.
		vals := make([][]float64, len(ac.Rows))
		why := ""
		for _, o := range s.cells[x].obsOrNil() {
			if !o.last {
				continue
			}
			a, w := c.artifact(ac.Name, &o)
			for i, row := range ac.Rows {
				if w != "" {
					break
				}
				one := *ac
				one.Rows = []string{row}
				var vs []float64
				if vs, w = cells(a, &one); w == "" && len(vs) == 1 {
					vals[i] = append(vals[i], vs[0])
				}
			}
			if w != "" {
				why = fmt.Sprintf("%s, trial %d at size %s: %s", s.name, o.trial, fmtX(x), w)
				break
			}
		}
		for i, row := range ac.Rows {
			r := base
			r.X = x
			r.What = base.What + " " + row
			v := ac.Values[i]
			r.Expected = num(v) + tolText(e)
			st := summarize(vals[i])
			switch {
			case why != "":
				r.Measured = why
			case st.N == 0:
				r.Measured = fmt.Sprintf("no value of row %q in the trials of %s at size %s", row, s.name, fmtX(x))
			default:
				r.Measured = c.fmtNum(sj, st.Mean)
				if st.N > 1 {
					r.Measured += " ± " + c.fmtNum(sj, st.SD)
				}
				r.Measured += fmt.Sprintf(" (n=%d)", st.N)
				one := *e
				one.Value = &v
				r.Pass = c.valueOK(&one, st.Mean, st.SD)
				if e.SDs != nil {
					r.Expected += " (" + sdBand(c, sj, e, st) + ")"
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// tolText is the tolerance of e as expected prints it: " ± 0.5", " ±
// 10%", " ± 2 sd", " ± 0.5 or 10%".
func tolText(e *spec.Expectation) string {
	var parts []string
	if e.Tol != nil {
		parts = append(parts, num(*e.Tol))
	}
	if e.RTol != nil {
		parts = append(parts, num(*e.RTol*100)+"%")
	}
	if e.SDs != nil {
		parts = append(parts, num(*e.SDs)+" sd")
	}
	if len(parts) == 0 {
		return ""
	}
	return " ± " + strings.Join(parts, " or ")
}

// sdBand says what the band of e's sds came to: "2 sd = 0.42", or why
// there is none.
func sdBand(c *checker, sj subject, e *spec.Expectation, st summary) string {
	if math.IsNaN(st.SD) {
		return "no sd: one trial"
	}
	return num(*e.SDs) + " sd = " + c.fmtNum(sj, *e.SDs*st.SD)
}

// checkFact evaluates a dataset fact e on d: its value in datasets.json,
// or the ratio of d's to OverDataset's.
func (c *checker) checkFact(d *dataSet, e *spec.Expectation, r CheckRow) CheckRow {
	r.Expected = c.expected(e)
	switch {
	case c.infoErr != nil:
		r.Measured = c.infoErr.Error()
		return r
	case c.infos == nil:
		r.Measured = "incomplete: no datasets.json in the output directory (run the experiment first)"
		return r
	}
	v, why := factOf(c.infos, d.first(), e.Fact)
	if why != "" {
		r.Measured = why
		return r
	}
	r.Measured = fmtFact(v)
	if e.OverDataset != "" {
		id := e.OverDataset
		if o := c.dataset(id); o != nil {
			id = o.first()
		}
		w, why := factOf(c.infos, id, e.Fact)
		if why != "" {
			r.Measured = why
			return r
		}
		v = v / w
		r.Measured = fmt.Sprintf("%s / %s = %s", r.Measured, fmtFact(w), fmtFact(v))
	}
	r.Pass = c.valueOK(e, v, math.NaN())
	return r
}

// factOf returns the fact name of dataset id in infos: rows, cols,
// classes (their number) or a key of its stats; or why there is none.
func factOf(infos map[string]results.DatasetInfo, id, name string) (float64, string) {
	info, ok := infos[id]
	if !ok {
		return 0, fmt.Sprintf("incomplete: dataset %q is not in datasets.json (run the experiment first)", id)
	}
	switch name {
	case "rows":
		return float64(info.Rows), ""
	case "cols":
		return float64(info.Cols), ""
	case "classes":
		return float64(len(info.Classes)), ""
	}
	if v, ok := info.Stats[name]; ok {
		return v, ""
	}
	keys := []string{"rows", "cols", "classes"}
	for k := range info.Stats {
		keys = append(keys, k)
	}
	slices.Sort(keys[3:])
	return 0, fmt.Sprintf("dataset %q has no fact %q; it has %s", id, name, strings.Join(keys, ", "))
}

// fmtFact formats a dataset fact: a count as an integer with thousands
// separated, a ratio with 3 significant digits or more.
func fmtFact(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return thousands(int64(v))
	}
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%#.4g", v)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
