package spec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/repro-ml/repro/param"
)

// The forms of an expectation, as check tells them apart. Each entry is
// one form about one subject (metric, extra, fact or artifact).
const (
	formValue = "a value check (method, value, min, max)"
	formRel   = "a relation (better, than)"
	formWTL   = "a Win/Tie/Loss count (wtl)"
	formTrend = "a trend (trend)"
	formFact  = "a fact check (fact)"
)

// Subject returns what e is about, as check prints it: the metric, the
// extra, the dataset fact ("cols") or the artifact measure ("weights
// zeros").
func (e *Expectation) Subject() string {
	switch {
	case e.Extra != "" && e.OverExtra != "":
		return e.Extra + " / " + e.OverExtra
	case e.Extra != "":
		return e.Extra
	case e.Fact != "":
		return e.Fact
	case e.Artifact.Name != "":
		s := e.Artifact.Name
		if e.Artifact.Column != "" {
			s += "[" + e.Artifact.Column + "]"
		}
		return s + " " + e.Artifact.Measure
	}
	return e.Metric
}

// HigherIsBetter reports e's direction for an extra or an artifact
// measure: Direction, higher by default. A metric's is the metric's own
// (the reports package looks it up).
func (e *Expectation) HigherIsBetter() bool { return e.Direction != "lower" }

// check relates the fields of an expectation: its subject (metric, extra,
// fact, artifact) and its form (a value check, a relation, a
// Win/Tie/Loss count, a trend, a fact check), each with what it needs and
// nothing of the others.
func (x *Expectation) check(d *decoder, f *fields, path string) bool {
	has := func(k string) bool { return f.get(d, k) != nil }
	// not reports the keys of f that belong to another form.
	not := func(form, with string, keys ...string) {
		for _, k := range keys {
			switch {
			case !has(k):
			case with == "":
				d.errorf(f.get(d, k), Sub(path, k), "%s belongs to %s; want no %s", k, form, k)
			default:
				d.errorf(f.get(d, k), Sub(path, k), "%s belongs to %s; want %s with it, or no %s", k, form, with, k)
			}
		}
	}
	x.checkSubject(d, f, path)
	if has("fact") {
		if !has("value") && !has("min") && !has("max") {
			d.errorf(f.node, path, "a fact check without value, min or max; want what the dataset's %s should be", x.Fact)
		}
		x.checkBounds(d, f, path)
		for _, k := range []string{"method", "better", "than", "wtl", "trend", "best", "area", "sizes", "by", "within", "significant", "at_par", "alpha", "slack", "than_dataset", "direction", "sds"} {
			if has(k) {
				d.errorf(f.get(d, k), Sub(path, k), "%s does not apply to a fact check (fact), which is about the dataset alone; want no %s", k, k)
			}
		}
		return true
	}
	isTrend := has("trend")
	isValue := !isTrend && (has("method") || has("value") || has("min") || has("max"))
	isRel := !isTrend && (has("better") || has("than"))
	isWTL := has("wtl")
	table := x.Artifact.Measure == "table"
	var forms []string
	for _, fm := range []struct {
		on   bool
		name string
	}{{isValue, formValue}, {isRel, formRel}, {isWTL, formWTL}, {isTrend, formTrend}} {
		if fm.on {
			forms = append(forms, fm.name)
		}
	}
	switch {
	case len(forms) > 1 && !isTrend:
		d.errorf(f.node, path, "more than one of a value check (method, value, min, max), a relation (better, than) and a Win/Tie/Loss count (wtl); want one of them per entry")
		return true
	case len(forms) > 1:
		d.errorf(f.node, path, "more than one of %s; want one of them per entry", strings.Join(forms, ", "))
		return true
	case len(forms) == 0:
		d.errorf(f.node, path, "neither a value check, a relation nor a Win/Tie/Loss count; want method with value (and tol or rtol), min or max, or better with than, or wtl, or trend with method or better and than, or fact with value, min or max")
		return true
	}
	if table && !(isValue && !has("value") && !has("min") && !has("max")) {
		switch {
		case !isValue:
			d.errorf(f.get(d, "artifact"), Sub(Sub(path, "artifact"), "measure"), "table compares each row with the paper's, so it is a value check of one method; want method with it, not %s", forms[0])
		default:
			for _, k := range []string{"value", "min", "max"} {
				if has(k) {
					d.errorf(f.get(d, k), Sub(path, k), "measure table compares each row with artifact.values; want tol or rtol and no %s", k)
				}
			}
		}
	}
	switch {
	case isValue && table:
		if !has("method") {
			d.errorf(f.node, Sub(path, "method"), "missing; want the method label the table is about")
		}
		if !has("tol") && !has("rtol") && !has("sds") {
			d.errorf(f.get(d, "artifact"), Sub(path, "tol"), "missing; want tol (absolute), rtol (relative) or sds (standard deviations of ours): how far each row's mean may be from artifact.values")
		}
		not("a relation", "better and than", "by", "within", "than_dataset", "significant", "at_par", "alpha")
		not("a Win/Tie/Loss count", "wtl", "slack")
		not("a check over the series' values, not measure table", "", "best", "area")
	case isValue:
		if !has("method") {
			d.errorf(f.node, Sub(path, "method"), "missing; want the method label the value is about")
		}
		if !has("value") && !has("min") && !has("max") {
			d.errorf(f.node, path, "no value, min or max; want what the method's %s should be", subjectWord(x))
		}
		x.checkBounds(d, f, path)
		not("a relation", "better and than", "by", "within", "than_dataset", "significant", "at_par", "alpha")
		not("a Win/Tie/Loss count", "wtl", "slack")
	case isRel:
		x.checkRelation(d, f, path)
		not("a Win/Tie/Loss count", "wtl", "slack")
	case isWTL:
		w := f.sub("wtl")
		at := f.get(d, "wtl")
		for _, k := range []string{"series", "than"} {
			if w != nil && w.get(d, k) == nil {
				d.errorf(at, Sub(Sub(path, "wtl"), k), "missing; want the %s", map[string]string{"series": "label or series name whose wins are counted", "than": "label or series name it is compared with"}[k])
			}
		}
		for _, k := range []string{"wins", "ties", "losses"} {
			if w != nil && w.get(d, k) == nil {
				d.errorf(at, Sub(Sub(path, "wtl"), k), "missing; want the paper's count of %s (0 if none)", k)
			}
		}
		if x.WTL.Series != "" && x.WTL.Series == x.WTL.Than {
			d.errorf(w.get(d, "than"), Sub(Sub(path, "wtl"), "than"), "%s is compared with itself; want two different series", param.Quote(x.WTL.Than))
		}
		not("a relation, not a Win/Tie/Loss count", "", "by", "within", "than_dataset", "significant", "at_par")
		if has("artifact") {
			d.errorf(f.get(d, "artifact"), Sub(path, "artifact"), "a Win/Tie/Loss count is of a metric or an extra at each x, and an artifact is saved once per trial; want metric or extra")
		}
		not("a value check or a relation, not a Win/Tie/Loss count", "", "best", "area")
	case isTrend:
		x.checkTrend(d, f, path)
	}
	if has("artifact") && has("area") {
		d.errorf(f.get(d, "area"), Sub(path, "area"), "an artifact is saved once per trial, at its last point, so it has no curve; want no area with artifact")
	}
	return true
}

// subjectWord names what e is about in messages: "metric", "extra",
// "artifact measure".
func subjectWord(x *Expectation) string {
	switch {
	case x.Extra != "":
		return "extra " + x.Extra
	case x.Artifact.Name != "":
		return "artifact measure"
	}
	return "metric"
}

// checkSubject checks that x is about exactly one of a metric, an extra,
// a dataset fact and an artifact, with the keys each needs.
func (x *Expectation) checkSubject(d *decoder, f *fields, path string) {
	has := func(k string) bool { return f.get(d, k) != nil }
	var subjects []string
	for _, k := range []string{"metric", "extra", "fact", "artifact"} {
		if has(k) {
			subjects = append(subjects, k)
		}
	}
	switch len(subjects) {
	case 0:
		d.errorf(f.node, Sub(path, "metric"), "missing; want the metric the expectation is about (or extra, fact or artifact instead)")
	case 1:
	default:
		d.errorf(f.get(d, subjects[1]), Sub(path, subjects[1]), "%s beside %s; want one of metric, extra, fact and artifact per entry", subjects[1], subjects[0])
	}
	if has("over_dataset") {
		switch {
		case !has("fact"):
			d.errorf(f.get(d, "over_dataset"), Sub(path, "over_dataset"), "over_dataset belongs to a fact check; want fact with it, or no over_dataset")
		case x.OverDataset == x.Dataset:
			d.errorf(f.get(d, "over_dataset"), Sub(path, "over_dataset"), "%s is the expectation's own dataset; want another dataset id, whose %s divides this one's", param.Quote(x.OverDataset), x.Fact)
		}
	}
	if has("over_extra") && !has("extra") {
		d.errorf(f.get(d, "over_extra"), Sub(path, "over_extra"), "over_extra divides an extra; want extra with it, or no over_extra")
	}
	if has("direction") && !has("extra") && !has("artifact") {
		d.errorf(f.get(d, "direction"), Sub(path, "direction"), "a metric's direction is its own; want direction only with extra or artifact")
	}
	if has("extra") && strings.TrimSpace(x.Extra) == "" {
		d.errorf(f.get(d, "extra"), Sub(path, "extra"), "empty; want the name of a value the method records (components, iterations, chosen.C)")
	}
	if has("fact") && strings.TrimSpace(x.Fact) == "" {
		d.errorf(f.get(d, "fact"), Sub(path, "fact"), "empty; want rows, cols, classes or a key of the dataset's stats")
	}
	a := f.sub("artifact")
	if a == nil || !has("artifact") {
		return
	}
	ap := Sub(path, "artifact")
	at := f.get(d, "artifact")
	if a.get(d, "name") == nil {
		d.errorf(at, Sub(ap, "name"), "missing; want the artifact's name (artifacts/KEY/NAME.json: weights, coefficients, bandwidths)")
	}
	if a.get(d, "measure") == nil {
		d.errorf(at, Sub(ap, "measure"), "missing; want zeros, nonzero, all_zero, zero_set, cell or table")
		return
	}
	ac := &x.Artifact
	switch ac.Measure {
	case "table":
		switch {
		case len(ac.Rows) == 0:
			d.errorf(at, Sub(ap, "rows"), "missing; want the table's rows the paper gives, with their values in values")
		case a.get(d, "values") == nil:
			d.errorf(at, Sub(ap, "values"), "missing; want the paper's value of each of the %d rows", len(ac.Rows))
		case len(ac.Values) != len(ac.Rows):
			d.errorf(a.get(d, "values"), Sub(ap, "values"), "%d values for %d rows; want one value per row", len(ac.Values), len(ac.Rows))
		}
	case "zero_set":
		if a.get(d, "rows") == nil {
			d.errorf(at, Sub(ap, "rows"), "missing; want the rows that should be the zero ones, exactly")
		}
	case "cell":
		if len(ac.Rows) != 1 {
			d.errorf(orNode(a.get(d, "rows"), at), Sub(ap, "rows"), "%d rows; want the one row whose cell is measured", len(ac.Rows))
		}
	}
	if a.get(d, "values") != nil && ac.Measure != "table" {
		d.errorf(a.get(d, "values"), Sub(ap, "values"), "values belong to measure table; want measure: table, or no values")
	}
	zeroish := ac.Measure == "zeros" || ac.Measure == "nonzero" || ac.Measure == "all_zero" || ac.Measure == "zero_set"
	if a.get(d, "eps") != nil && !zeroish {
		d.errorf(a.get(d, "eps"), Sub(ap, "eps"), "eps belongs to measures zeros, nonzero, all_zero and zero_set, not %s; want no eps", ac.Measure)
	}
	if a.get(d, "relative") != nil && (!zeroish || a.get(d, "eps") == nil) {
		d.errorf(a.get(d, "relative"), Sub(ap, "relative"), "relative qualifies eps (a fraction of the largest |v|); want eps beside it with measure zeros, nonzero, all_zero or zero_set, or no relative")
	}
}

// orNode returns n, or at when n is nil.
func orNode[T comparable](n, at T) T {
	var zero T
	if n == zero {
		return at
	}
	return n
}

// checkBounds checks the value, tolerance and interval of a value or fact
// check.
func (x *Expectation) checkBounds(d *decoder, f *fields, path string) {
	has := func(k string) bool { return f.get(d, k) != nil }
	if has("value") && !has("tol") && !has("rtol") && !has("sds") {
		d.errorf(f.get(d, "value"), Sub(path, "value"), "no tolerance; want tol (absolute), rtol (relative) or sds (standard deviations of ours) beside value")
	}
	if !has("value") {
		for _, k := range []string{"tol", "rtol", "sds"} {
			if has(k) {
				d.errorf(f.get(d, k), Sub(path, k), "a tolerance without a value; want value beside %s", k)
			}
		}
	}
	if x.Min != nil && x.Max != nil && *x.Min > *x.Max {
		d.errorf(f.get(d, "min"), Sub(path, "min"), "min %s is above max %s; want min ≤ max", param.Format(*x.Min), param.Format(*x.Max))
	}
}

// checkRelation checks a relation's keys: better and than, and a
// consistent choice of margin and test.
func (x *Expectation) checkRelation(d *decoder, f *fields, path string) {
	has := func(k string) bool { return f.get(d, k) != nil }
	if !has("better") {
		d.errorf(f.node, Sub(path, "better"), "missing; want the method label that should win")
	}
	if !has("than") {
		d.errorf(f.node, Sub(path, "than"), "missing; want the method label it should beat")
	}
	if has("than_dataset") && x.ThanDataset == x.Dataset {
		d.errorf(f.get(d, "than_dataset"), Sub(path, "than_dataset"), "%q is the expectation's own dataset; want another dataset id, or no than_dataset", x.ThanDataset)
	}
	switch {
	case x.AtPar && has("by"):
		d.errorf(f.get(d, "by"), Sub(path, "by"), "a margin to win by in a parity claim (at_par); want within (the largest gap) with at_par, or by without it")
	case x.AtPar && x.Significant:
		d.errorf(f.get(d, "significant"), Sub(path, "significant"), "a significant win and a parity claim (at_par) at once; want one of them")
	case x.Significant && has("within"):
		d.errorf(f.get(d, "within"), Sub(path, "within"), "a significant win with a margin to trail by; want by (the margin to win by) with significant, or within with at_par")
	case has("by") && has("within"):
		d.errorf(f.get(d, "within"), Sub(path, "within"), "both by (Better wins by a margin) and within (Better trails by at most a margin); want one of them")
	}
	if has("alpha") && !x.Significant && !x.AtPar {
		d.errorf(f.get(d, "alpha"), Sub(path, "alpha"), "a significance level without a test; want significant: true or at_par: true beside it, or no alpha")
	}
	if x.Better != "" && x.Better == x.Than && (x.ThanDataset == "" || x.ThanDataset == x.Dataset) && x.Best == "" {
		d.errorf(f.get(d, "than"), Sub(path, "than"), "%s is compared with itself; want two different methods", param.Quote(x.Than))
	}
}

// checkTrend checks a trend: a shape, and either method or better and
// than, with no value, margin or count; significant tests the first point
// against the last.
func (x *Expectation) checkTrend(d *decoder, f *fields, path string) {
	has := func(k string) bool { return f.get(d, k) != nil }
	tp := Sub(path, "trend")
	t := f.sub("trend")
	if t != nil && t.get(d, "shape") == nil {
		d.errorf(f.get(d, "trend"), Sub(tp, "shape"), "missing; want increasing, decreasing, nondecreasing or nonincreasing")
	}
	rel := has("better") || has("than")
	switch {
	case has("method") && rel:
		d.errorf(f.get(d, "method"), Sub(path, "method"), "a trend of one method's values and of a gap at once; want method, or better and than")
	case rel:
		x.checkRelation(d, f, path)
	case !has("method"):
		d.errorf(f.node, Sub(path, "method"), "missing; want the method label whose values follow the trend (or better and than: their gap)")
	}
	for _, k := range []string{"value", "tol", "rtol", "sds", "min", "max", "by", "within", "at_par", "best", "slack"} {
		if has(k) {
			d.errorf(f.get(d, k), Sub(path, k), "%s does not apply to a trend, which compares its points with each other; want no %s", k, k)
		}
	}
	if len(x.Trend.At) == 1 {
		d.errorf(t.get(d, "at"), Sub(tp, "at"), "one point; want two or more values of %s to compare", x.Trend.AlongOr())
	}
	if len(x.Trend.At) > 0 && x.Trend.AlongOr() == "size" && has("sizes") {
		d.errorf(t.get(d, "at"), Sub(tp, "at"), "both sizes and trend.at choose the sizes; want one of them")
	}
	if x.Area && x.Trend.AlongOr() == "size" {
		d.errorf(f.get(d, "area"), Sub(path, "area"), "area collapses the sizes a trend along size would compare; want trend.along a grid param with area, or no area")
	}
}

// AlongOr returns what the trend runs along: Along, or "size".
func (t TrendSpec) AlongOr() string {
	if t.Along == "" {
		return "size"
	}
	return t.Along
}

// checkAlong checks that the param a trend of x runs along is varied by
// the grid of the method it names (method, or better), as a series of
// its own under rule fixed (Variants).
func (d *decoder) checkAlong(s *Spec, x Expectation, n *yaml.Node, path string) {
	name := x.Method
	if name == "" {
		name = x.Better
	}
	label, _, _ := strings.Cut(name, " (")
	var m *MethodSpec
	for i := range s.Methods {
		if s.Methods[i].Label == label {
			m = &s.Methods[i]
		}
	}
	if m == nil {
		return // reported at the name
	}
	var varied []string
	for _, v := range m.Variants() {
		for k := range v.Values {
			if !slices.Contains(varied, k) {
				varied = append(varied, k)
			}
		}
	}
	if slices.Contains(varied, x.Trend.Along) {
		return
	}
	slices.Sort(varied)
	msg := fmt.Sprintf("%s is not a param method %s's series vary", param.Quote(x.Trend.Along), param.Quote(label))
	if c := param.Closest(x.Trend.Along, varied); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	want := "size"
	if len(varied) > 0 {
		want += " or one of " + strings.Join(varied, ", ")
	}
	d.errorf(n, path, "%s; want %s", msg, want)
}

// checkTrendSizes checks the points of a trend along the sizes (at the
// node n of trend.at) as checkExpectSizes checks sizes: each a training
// size of curve.sizes.
func (d *decoder) checkTrendSizes(s *Spec, x Expectation, n *yaml.Node, path string) {
	sizes := make([]float64, len(x.Trend.At))
	for j, v := range x.Trend.At {
		if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
			at := n
			if n != nil && n.Kind == yaml.SequenceNode && j < len(n.Content) {
				at = n.Content[j]
			}
			d.errorf(at, Index(path, j), "%s is not a training size; want a count of rows, one of curve.sizes", param.Format(v))
			return
		}
		sizes[j] = v
	}
	x.Sizes = sizes
	d.checkExpectSizes(s, x, n, path)
}
