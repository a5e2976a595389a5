package spec_test

import (
	"slices"
	"testing"

	"github.com/repro-ml/repro/spec"
)

// The subjects and modifiers beyond a metric — extra, fact, artifact,
// best, trend, area: what decodes (and reads back from spec.yaml), and
// each bad combination reported once at its field.
func TestExpectSubjects(t *testing.T) {
	const head = `name: t
datasets: [{name: fake-blobs, id: a}, {name: fake-blobs, id: b}]
methods: [{name: fake-centroid, label: m, params: {shrink: [0, 0.5]}}, {name: fake-centroid, label: n, params: {shrink: [0, 0.5]}}]
curve: {sizes: [10, 20]}
metrics: [accuracy]
expect:
`
	good := []struct {
		name, entry string
		check       func(e spec.Expectation) bool
	}{
		{"extra value", `{dataset: a, method: "m (shrink=0)", extra: components, min: 10, max: 40}`,
			func(e spec.Expectation) bool {
				return e.Extra == "components" && e.Subject() == "components" && *e.Min == 10
			}},
		{"extra relation lower", `{dataset: a, better: "m (shrink=0)", than: "n (shrink=0)", extra: iterations, direction: lower}`,
			func(e spec.Expectation) bool { return e.Extra == "iterations" && !e.HigherIsBetter() }},
		{"extra ratio", `{dataset: a, method: "m (shrink=0)", extra: chosen.alpha, over_extra: chosen.beta, value: 100, rtol: 0.5}`,
			func(e spec.Expectation) bool {
				return e.OverExtra == "chosen.beta" && e.Subject() == "chosen.alpha / chosen.beta"
			}},
		{"fact ratio", `{dataset: a, over_dataset: b, fact: cols, min: 100}`,
			func(e spec.Expectation) bool { return e.Fact == "cols" && e.OverDataset == "b" && *e.Min == 100 }},
		{"value within sds", `{dataset: a, method: "m (shrink=0)", metric: accuracy, value: 90, sds: 2}`,
			func(e spec.Expectation) bool { return *e.SDs == 2 && e.Tol == nil }},
		{"fact value", `{dataset: a, fact: rows, value: 4177, tol: 0}`,
			func(e spec.Expectation) bool { return e.Fact == "rows" && *e.Value == 4177 }},
		{"artifact zeros", `{dataset: a, method: "m (shrink=0)", artifact: {name: weights, measure: zeros, eps: 0.01}, min: 0.8}`,
			func(e spec.Expectation) bool {
				return e.Artifact.Name == "weights" && e.Artifact.Measure == "zeros" && e.Artifact.Eps == 0.01 && e.Subject() == "weights zeros"
			}},
		{"artifact table", `{dataset: a, method: "m (shrink=0)", artifact: {name: coefficients, column: beta_std, measure: table, rows: [x, y], values: [0.5, -1]}, tol: 0.1}`,
			func(e spec.Expectation) bool {
				return slices.Equal(e.Artifact.Rows, []string{"x", "y"}) && slices.Equal(e.Artifact.Values, []float64{0.5, -1}) && *e.Tol == 0.1
			}},
		{"artifact all_zero", `{dataset: a, method: "m (shrink=0.5)", artifact: {name: bandwidths, column: hp_norm, rows: [h=0.3162, h=100], measure: all_zero}, min: 1}`,
			func(e spec.Expectation) bool { return e.Artifact.Measure == "all_zero" && len(e.Artifact.Rows) == 2 }},
		{"artifact zero_set relative", `{dataset: a, method: "m (shrink=0.5)", artifact: {name: bandwidths, column: hp_norm, rows: [h=0.3162], measure: zero_set, eps: 0.01, relative: true}, min: 1}`,
			func(e spec.Expectation) bool {
				return e.Artifact.Measure == "zero_set" && e.Artifact.Relative && e.Artifact.Eps == 0.01
			}},
		{"artifact relation", `{dataset: a, better: "m (shrink=0.5)", than: "m (shrink=0)", artifact: {name: weights, measure: zeros}, significant: true}`,
			func(e spec.Expectation) bool { return e.Artifact.Measure == "zeros" && e.Significant }},
		{"best grid", `{dataset: a, method: m, best: grid, metric: accuracy, value: 96, tol: 1}`,
			func(e spec.Expectation) bool { return e.Best == "grid" }},
		{"best against best", `{dataset: a, better: m, than: n, best: grid, metric: accuracy}`,
			func(e spec.Expectation) bool { return e.Best == "grid" && e.Better == "m" }},
		{"best of itself on two datasets", `{dataset: a, than_dataset: b, better: m, than: m, best: x, metric: accuracy}`,
			func(e spec.Expectation) bool { return e.Best == "x" }},
		{"trend significant over three points", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {shape: increasing, at: [10, 20, 10]}, significant: true}`,
			func(e spec.Expectation) bool { return e.Significant && len(e.Trend.At) == 3 }},
		{"trend along size", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {shape: increasing}}`,
			func(e spec.Expectation) bool { return e.Trend.Shape == "increasing" && e.Trend.AlongOr() == "size" }},
		{"trend of a gap along a param", `{dataset: a, better: m, than: n, metric: accuracy, area: true, trend: {shape: increasing, along: shrink, at: [0, 0.5]}, significant: true}`,
			func(e spec.Expectation) bool {
				return e.Trend.Along == "shrink" && slices.Equal(e.Trend.At, []float64{0, 0.5}) && e.Area && e.Significant
			}},
		{"area relation", `{dataset: a, better: "m (shrink=0)", than: "n (shrink=0)", metric: accuracy, area: true, significant: true, sizes: [10, 20]}`,
			func(e spec.Expectation) bool { return e.Area && len(e.Sizes) == 2 }},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) { expectRoundTrip(t, head+"  - "+tc.entry+"\n", tc.check) })
	}

	bad := []struct{ name, entry, want string }{
		{"no subject", `{dataset: a, method: m, min: 1}`,
			`t.yaml:7:5: expect[0].metric: missing; want the metric the expectation is about (or extra, fact or artifact instead)`},
		{"two subjects", `{dataset: a, method: "m (shrink=0)", metric: accuracy, extra: components, min: 1}`,
			`t.yaml:7:67: expect[0].extra: extra beside metric; want one of metric, extra, fact and artifact per entry`},
		{"fact with method", `{dataset: a, method: m, fact: cols, min: 1}`,
			`t.yaml:7:26: expect[0].method: method does not apply to a fact check (fact), which is about the dataset alone; want no method`},
		{"fact without bound", `{dataset: a, fact: cols}`,
			`t.yaml:7:5: expect[0]: a fact check without value, min or max; want what the dataset's cols should be`},
		{"fact unknown over_dataset", `{dataset: a, over_dataset: c, fact: cols, min: 100}`,
			`t.yaml:7:32: expect[0].over_dataset: unknown dataset "c" (did you mean "a"?); want a dataset id: a, b`},
		{"fact over itself", `{dataset: a, over_dataset: a, fact: cols, min: 100}`,
			`t.yaml:7:32: expect[0].over_dataset: "a" is the expectation's own dataset; want another dataset id, whose cols divides this one's`},
		{"over_dataset without fact", `{dataset: a, over_dataset: b, method: "m (shrink=0)", metric: accuracy, min: 1}`,
			`t.yaml:7:32: expect[0].over_dataset: over_dataset belongs to a fact check; want fact with it, or no over_dataset`},
		{"over_extra without extra", `{dataset: a, method: "m (shrink=0)", metric: accuracy, over_extra: iterations, min: 1}`,
			`t.yaml:7:72: expect[0].over_extra: over_extra divides an extra; want extra with it, or no over_extra`},
		{"direction of a metric", `{dataset: a, better: "m (shrink=0)", than: "n (shrink=0)", metric: accuracy, direction: lower}`,
			`t.yaml:7:93: expect[0].direction: a metric's direction is its own; want direction only with extra or artifact`},
		{"bad direction", `{dataset: a, better: "m (shrink=0)", than: "n (shrink=0)", extra: components, direction: up}`,
			`t.yaml:7:94: expect[0].direction: unknown value "up"; want one of higher, lower`},
		{"artifact without measure", `{dataset: a, method: "m (shrink=0)", artifact: {name: weights}, min: 1}`,
			`t.yaml:7:52: expect[0].artifact.measure: missing; want zeros, nonzero, all_zero, zero_set, cell or table`},
		{"artifact unknown measure", `{dataset: a, method: "m (shrink=0)", artifact: {name: weights, measure: zero}, min: 1}`,
			`t.yaml:7:77: expect[0].artifact.measure: unknown value "zero" (did you mean "zeros"?); want one of zeros, nonzero, all_zero, zero_set, cell, table`},
		{"artifact table without values", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: table, rows: [x]}, tol: 1}`,
			`t.yaml:7:52: expect[0].artifact.values: missing; want the paper's value of each of the 1 rows`},
		{"artifact table values and rows differ", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: table, rows: [x, y], values: [1]}, tol: 1}`,
			`t.yaml:7:100: expect[0].artifact.values: 1 values for 2 rows; want one value per row`},
		{"artifact table without tolerance", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: table, rows: [x], values: [1]}}`,
			`t.yaml:7:52: expect[0].tol: missing; want tol (absolute), rtol (relative) or sds (standard deviations of ours): how far each row's mean may be from artifact.values`},
		{"artifact table with min", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: table, rows: [x], values: [1]}, tol: 1, min: 0}`,
			`t.yaml:7:116: expect[0].min: measure table compares each row with artifact.values; want tol or rtol and no min`},
		{"artifact table in a relation", `{dataset: a, better: "m (shrink=0)", than: "n (shrink=0)", artifact: {name: c, measure: table, rows: [x], values: [1]}}`,
			`t.yaml:7:74: expect[0].artifact.measure: table compares each row with the paper's, so it is a value check of one method; want method with it, not a relation (better, than)`},
		{"artifact cell of two rows", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: cell, rows: [x, y]}, min: 0}`,
			`t.yaml:7:83: expect[0].artifact.rows: 2 rows; want the one row whose cell is measured`},
		{"artifact values without table", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: zeros, values: [1]}, min: 0}`,
			`t.yaml:7:86: expect[0].artifact.values: values belong to measure table; want measure: table, or no values`},
		{"artifact eps with cell", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: cell, rows: [x], eps: 0.1}, min: 0}`,
			`t.yaml:7:93: expect[0].artifact.eps: eps belongs to measures zeros, nonzero, all_zero and zero_set, not cell; want no eps`},
		{"relative without eps", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: zeros, relative: true}, min: 0}`,
			`t.yaml:7:88: expect[0].artifact.relative: relative qualifies eps (a fraction of the largest |v|); want eps beside it with measure zeros, nonzero, all_zero or zero_set, or no relative`},
		{"zero_set without rows", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: zero_set}, min: 1}`,
			`t.yaml:7:52: expect[0].artifact.rows: missing; want the rows that should be the zero ones, exactly`},
		{"artifact with area", `{dataset: a, method: "m (shrink=0)", artifact: {name: c, measure: zeros}, min: 0, area: true}`,
			`t.yaml:7:93: expect[0].area: an artifact is saved once per trial, at its last point, so it has no curve; want no area with artifact`},
		{"best on a wtl", `{dataset: a, metric: accuracy, wtl: {series: m, than: n, wins: 1, ties: 0, losses: 0}, best: grid}`,
			`t.yaml:7:98: expect[0].best: best belongs to a value check or a relation, not a Win/Tie/Loss count; want no best`},
		{"best unknown", `{dataset: a, method: m, best: max, metric: accuracy, min: 0}`,
			`t.yaml:7:35: expect[0].best: unknown value "max" (did you mean "x"?); want one of grid, x, both`},
		{"trend without shape", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {along: size}}`,
			`t.yaml:7:67: expect[0].trend.shape: missing; want increasing, decreasing, nondecreasing or nonincreasing`},
		{"trend with value", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {shape: increasing}, min: 1}`,
			`t.yaml:7:93: expect[0].min: min does not apply to a trend, which compares its points with each other; want no min`},
		{"trend of method and gap", `{dataset: a, method: m, better: m, than: n, metric: accuracy, trend: {shape: increasing, along: shrink}}`,
			`t.yaml:7:26: expect[0].method: a trend of one method's values and of a gap at once; want method, or better and than`},
		{"trend along an unknown param", `{dataset: a, method: m, metric: accuracy, trend: {shape: increasing, along: shrnk}}`,
			`t.yaml:7:81: expect[0].trend.along: "shrnk" is not a param method "m"'s series vary (did you mean "shrink"?); want size or one of shrink`},
		{"trend at one point", `{dataset: a, method: m, metric: accuracy, trend: {shape: increasing, along: shrink, at: [0]}}`,
			`t.yaml:7:93: expect[0].trend.at: one point; want two or more values of shrink to compare`},
		{"trend area along size", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {shape: increasing}, area: true}`,
			`t.yaml:7:94: expect[0].area: area collapses the sizes a trend along size would compare; want trend.along a grid param with area, or no area`},
		{"artifact in a wtl", `{dataset: a, artifact: {name: w, measure: zeros}, wtl: {series: m, than: n, wins: 1, ties: 0, losses: 0}}`,
			`t.yaml:7:28: expect[0].artifact: a Win/Tie/Loss count is of a metric or an extra at each x, and an artifact is saved once per trial; want metric or extra`},
		{"trend at a size not run", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {shape: increasing, at: [10, 30]}}`,
			`t.yaml:7:96: expect[0].trend.at[1]: 30 is not a training size of curve.sizes; want one of 10, 20`},
		{"trend at a fraction", `{dataset: a, method: "m (shrink=0)", metric: accuracy, trend: {shape: increasing, at: [10, 0.5]}}`,
			`t.yaml:7:96: expect[0].trend.at[1]: 0.5 is not a training size; want a count of rows, one of curve.sizes`},
		{"sds without value", `{dataset: a, method: "m (shrink=0)", metric: accuracy, min: 1, sds: 2}`,
			`t.yaml:7:73: expect[0].sds: a tolerance without a value; want value beside sds`},
		{"sds on a fact", `{dataset: a, fact: rows, value: 10, sds: 2}`,
			`t.yaml:7:46: expect[0].sds: sds does not apply to a fact check (fact), which is about the dataset alone; want no sds`},
		{"trend and wtl", `{dataset: a, metric: accuracy, wtl: {series: m, than: n, wins: 1, ties: 0, losses: 0}, trend: {shape: increasing}}`,
			`t.yaml:7:5: expect[0]: more than one of a Win/Tie/Loss count (wtl), a trend (trend); want one of them per entry`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) { oneParseError(t, head+"  - "+tc.entry+"\n", tc.want) })
	}
}
