package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

// DefaultTest returns the paired test for trials of a dataset split by
// splitKind when report.test sets none: TestT for a kind whose metrics
// are in-sample (train), else TestDesignT — the paired t-test over the
// design's independent units (the trials, or the folds whose repeats
// share a split), which docs/statistics.md derives and the calibration
// (repro calibrate) measures on every design of experiments/.
func DefaultTest(splitKind string) string {
	if sp, err := spec.LookupSplitter(splitKind); err == nil && sp.InSample {
		return TestT
	}
	return TestDesignT
}

// TestAt returns the paired test the reports of spec use on the dataset
// with the given id (a datasets: entry, or a report.choose id, which
// takes the split of its first member): report.test if set, else
// DefaultTest of its split.
func TestAt(sp *spec.Spec, dataset string) string {
	if sp.Report.Test != "" {
		return sp.Report.Test
	}
	if ds := datasetSpec(sp, dataset); ds != nil {
		return DefaultTest(ds.Split.KindName())
	}
	return DefaultTest("")
}

// DesignOf returns the design facts of the trials of dataset entry ds
// (nil: the default split) that train on nTrain and test on nTest rows,
// of a dataset of rows rows (0: unknown; see PoolRows for maxTrain): the
// split kind's registration says how its trials draw (spec.Splitter's
// Design), the rows fill in the rest.
func DesignOf(ds *spec.DatasetSpec, rows, nTrain, nTest, maxTrain int) stats.Design {
	var split spec.Split
	if ds != nil {
		split = ds.Split
	}
	var d stats.Design
	if sp, err := spec.LookupSplitter(split.KindName()); err == nil && sp.Design != nil {
		d = sp.Design(split.Params)
	}
	d.Kind, d.Rows, d.Train, d.Test = split.KindName(), rows, nTrain, nTest
	d.Pool = PoolRows(ds, rows, nTrain, nTest, maxTrain)
	return d
}

// withUnits returns d with the unit of each of trials (Design.UnitOf)
// where the design repeats splits.
func withUnits(d stats.Design, trials []int) stats.Design {
	if !d.RepeatsSplits() {
		return d
	}
	d.Units = make([]int, len(trials))
	for i, t := range trials {
		d.Units[i] = d.UnitOf(t)
	}
	return d
}

// datasetSpec returns the datasets: entry of id, or of the first member
// of the report.choose entry id; nil if there is none.
func datasetSpec(sp *spec.Spec, id string) *spec.DatasetSpec {
	for _, c := range sp.Report.Choose {
		if c.ID == id && len(c.Among) > 0 {
			id = c.Among[0]
		}
	}
	for i := range sp.Datasets {
		if sp.Datasets[i].ID == id {
			return &sp.Datasets[i]
		}
	}
	return nil
}

// PoolRows returns the number of rows the trials of dataset entry ds draw
// their training samples from, for a trial of nTrain training and nTest
// test rows: for split rest all rows, for the other kinds the rows less
// the test part (kfold: the other folds; holdout: the rows the test set
// left; given: the dataset's own training part). rows is the dataset's
// row count (datasets.json); when it is unknown (0), the pool is
// estimated from the split (kfold: nTest·(folds−1); holdout with a test
// fraction f: nTest/f − nTest; rest: nTrain + nTest) or, failing that,
// taken as maxTrain, the largest training sample of the dataset's trials
// — at least the pool's size, which errs towards the corrected test.
func PoolRows(ds *spec.DatasetSpec, rows, nTrain, nTest, maxTrain int) int {
	var split spec.Split // no entry: the default kind
	if ds != nil {
		split = ds.Split
	}
	n := 0
	if sp, err := spec.LookupSplitter(split.KindName()); err == nil && sp.Pool != nil {
		n = sp.Pool(split.Params, rows, nTrain, nTest)
	} else if rows > 0 {
		n = max(rows-nTest, nTrain)
	}
	if n > 0 || rows > 0 {
		return n
	}
	return max(maxTrain, nTrain)
}

// datasetRows returns the row counts of infos by dataset id.
func datasetRows(infos map[string]results.DatasetInfo) map[string]int {
	if len(infos) == 0 {
		return nil
	}
	out := make(map[string]int, len(infos))
	for id, in := range infos {
		out[id] = in.Rows
	}
	return out
}

// rows returns the mean training and test rows of the trials of c, which
// the corrected t-test scales by: a trial's TrainRows and TestRows, or
// for a protocol with several observations per trial (active learning)
// the x of the cell, its labelled rows, as training rows.
func rows(c *cell) (nTrain, nTest int) {
	var tr, te float64
	n := 0
	for _, o := range c.obsOrNil() {
		if o.res == nil {
			continue
		}
		train := float64(o.res.TrainRows)
		if len(o.res.Observations) > 0 {
			train = c.x
		}
		tr += train
		te += float64(o.res.TestRows)
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return int(math.Round(tr / float64(n))), int(math.Round(te / float64(n)))
}

// maxTrain returns the largest mean training rows of a cell of d.
func (d *dataSet) maxTrain() int {
	if !d.largestOK {
		d.largestOK = true
		for _, s := range d.series {
			for _, c := range s.cells {
				if n, _ := rows(c); n > d.largest {
					d.largest = n
				}
			}
		}
	}
	return d.largest
}

// testOf returns the paired test of the reports on cell c of dataset d,
// and the design of its trials.
func (m *model) testOf(d *dataSet, c *cell) (string, stats.Design) {
	nTrain, nTest := rows(c)
	return TestAt(m.spec, d.id), DesignOf(datasetSpec(m.spec, d.first()), m.rows[d.first()], nTrain, nTest, d.maxTrain())
}

// first returns the id of the datasets: entry d takes its split and
// facts from: its own, or its report.choose entry's first member's.
func (d *dataSet) first() string {
	if d.choice != nil && len(d.choice.Among) > 0 {
		return d.choice.Among[0]
	}
	return d.id
}

// compare runs the reports' paired test on metric mn of cell a against
// cell b of d, over the trial indices both have.
func (m *model) compare(d *dataSet, a, b *cell, mn string) TestResult {
	r, _ := m.compareIn(d, a, b, mn)
	return r
}

// compareIn is compare, and the design the test assumed.
func (m *model) compareIn(d *dataSet, a, b *cell, mn string) (TestResult, stats.Design) {
	x, y, trials := pairTrials(a, b, mn)
	test, design := m.testOf(d, a)
	design = withUnits(design, trials)
	return stats.Paired(test, x, y, design), design
}

// pairTrials returns the values of metric mn of the trials a and b both
// have, in a's order, and those trials' indices.
func pairTrials(a, b *cell, mn string) (x, y []float64, trials []int) {
	av, at := a.values(mn)
	bv, bt := b.values(mn)
	byTrial := map[int]float64{}
	for i, t := range bt {
		byTrial[t] = bv[i]
	}
	for i, t := range at {
		if v, ok := byTrial[t]; ok {
			x, y, trials = append(x, av[i]), append(y, v), append(trials, t)
		}
	}
	return x, y, trials
}

// outcome classifies a paired test of a against b as W/T/L counts it:
// "win" when a is significantly better at alpha in the metric's
// direction (higher: larger is better), "loss" when significantly worse,
// "tie" when neither, "" when there is no test (fewer than two pairs).
func outcome(r TestResult, alpha float64, higher bool) string {
	if r.N < 2 || math.IsNaN(r.P) {
		return ""
	}
	dir := 1
	if !higher {
		dir = -1
	}
	switch {
	case r.Significant(alpha, dir):
		return "win"
	case r.Significant(alpha, -dir):
		return "loss"
	}
	return "tie"
}

// wtlCount is a Win/Tie/Loss count over x values.
type wtlCount struct {
	Win, Tie, Loss int
	// None counts the x values with no test (fewer than two pairs).
	None int
	// Tests are the tests that ran (TestResult.Test), in order of first
	// use; Uses the test at each x value counted.
	Tests []string
	Uses  []testUse
}

// testUse is the test that ran at one x value, and its design.
type testUse struct {
	x      float64
	test   string
	design stats.Design
}

// add counts the outcome of one test at x on trials of design dz.
func (c *wtlCount) add(x float64, r TestResult, verdict string, dz stats.Design) {
	switch verdict {
	case "win":
		c.Win++
	case "loss":
		c.Loss++
	case "tie":
		c.Tie++
	default:
		c.None++
		return
	}
	c.Uses = append(c.Uses, testUse{x, r.Test, dz})
	if !slices.Contains(c.Tests, r.Test) {
		c.Tests = append(c.Tests, r.Test)
	}
}

// testNote words, for a check row, what a test's trials share
// (stats.Design.Short) and a difference without spread: "; trials share
// 25% of training rows, 50% of test rows; constant difference: sign-test
// p, needs ≥ 6 pairs".
func testNote(r TestResult, dz stats.Design) string {
	var s string
	if r.Test != TestWilcoxon {
		if d := dz.Short(); d != "" {
			s += "; " + d
		}
	}
	if r.Constant {
		s += fmt.Sprintf("; constant difference: sign-test p, a verdict needs ≥ %d pairs", stats.MinPairs(spec.DefaultAlpha))
	}
	return s
}

// wtlOverlap words, for a W/T/L check row, what the trials of the
// largest x counted share (stats.Design.Short): "; at 1000 trials share
// …"; "" when unknown.
func wtlOverlap(uses []testUse) string {
	var last *testUse
	for i := range uses {
		if u := &uses[i]; u.test != TestWilcoxon && (last == nil || u.x > last.x) {
			last = u
		}
	}
	if last == nil {
		return ""
	}
	if d := last.design.Short(); d != "" {
		return "; at " + fmtX(last.x) + " " + d
	}
	return ""
}

// testsAt names the tests of uses for a table's note.
func testsAt(uses []testUse) string {
	var tests []string
	for _, u := range uses {
		if !slices.Contains(tests, u.test) {
			tests = append(tests, u.test)
		}
	}
	return testsName(tests)
}

// designNote describes, as a sentence of a table's note, what the
// trials of uses share and what their test assumed of it
// (stats.Describe): one design per x value (the first use of each; the
// least and largest x where there are more than six), unit naming the x
// ("sizes"); "" when no design is known.
func designNote(uses []testUse, unit string) string {
	var ds []stats.Design
	var xs []float64
	for _, u := range uses {
		if u.design.Scheme != stats.Unknown && !slices.Contains(xs, u.x) {
			xs = append(xs, u.x)
			ds = append(ds, u.design)
		}
	}
	if len(ds) == 0 {
		return ""
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(xs[a], xs[b]) })
	if len(idx) > 6 {
		idx = []int{idx[0], idx[len(idx)-1]}
	}
	var sel []stats.Design
	var labels []string
	for _, i := range idx {
		sel = append(sel, ds[i])
		labels = append(labels, fmtX(xs[i]))
	}
	note := stats.Describe(uses[0].test, sel, labels)
	if note == "" {
		return ""
	}
	if len(sel) > 1 {
		note += "; in parentheses the " + unit
	}
	return " Design: " + note + "."
}

// cmpFloat orders a before b.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// testsName names tests for a table's note: one test, or the tests
// joined when several ran.
func testsName(tests []string) string {
	switch {
	case len(tests) == 0:
		return ""
	case len(tests) == 1:
		return testName(tests[0])
	case len(tests) == 2 && slices.Contains(tests, TestT) && slices.Contains(tests, TestCorrectedT):
		return testName(TestCorrectedT) + ", or the two-sided paired t-test where the trials recorded no row counts"
	}
	names := make([]string, len(tests))
	for i, t := range tests {
		names[i] = testName(t)
	}
	return strings.Join(names, ", ")
}

func (c wtlCount) String() string { return fmt.Sprintf("%d/%d/%d", c.Win, c.Tie, c.Loss) }

// wtl counts, over xs, the x values where a beats b, loses or neither by
// d's paired test at alpha: the computation of every W/T/L table and of
// wtl expectations.
func (m *model) wtl(d *dataSet, a, b *series, mn string, higher bool, alpha float64, xs []float64) wtlCount {
	var c wtlCount
	for _, x := range xs {
		r, dz := m.compareIn(d, a.cells[x], b.cells[x], mn)
		c.add(x, r, outcome(r, alpha, higher), dz)
	}
	return c
}

// testName describes a test for tables: "corrected resampled t-test
// (Nadeau & Bengio 2003)".
func testName(test string) string {
	switch test {
	case TestT:
		return "two-sided paired t-test"
	case TestCorrectedT:
		return "two-sided corrected resampled t-test (Nadeau & Bengio 2003: variance × (1/J + n_test/n_train))"
	case TestWilcoxon:
		return "two-sided Wilcoxon signed-rank test"
	case TestDesignT:
		return "two-sided paired t-test (design-t)"
	}
	return test
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
