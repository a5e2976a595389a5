package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// CorrectedOverlap is the expected share of training rows two trials
// have in common (training rows over pool rows) at and above which the
// default test is the corrected resampled t-test (DefaultTest).
const CorrectedOverlap = 0.5

// DefaultTest returns the paired test for trials of a dataset split by
// splitKind that train on nTrain rows drawn from a pool of pool rows.
// For train, whose metrics are in-sample, it is TestT. Otherwise it is
// TestCorrectedT where two trials' training samples are expected to
// share at least CorrectedOverlap of their rows (nTrain/pool ≥ 1/2:
// k-fold cross-validation, repeated subsampling of most of the pool —
// the setting Nadeau & Bengio's correction models) and TestT where they
// barely overlap (learning curves and active learning at sizes small
// beside the pool), where the correction's factor 1/J + n_test/n_train
// would multiply the variance by up to n_test/n_train without a reason.
// An unknown pool (0) gives TestCorrectedT, the cautious choice.
func DefaultTest(splitKind string, nTrain, pool int) string {
	switch sp, err := spec.LookupSplitter(splitKind); {
	case err == nil && sp.InSample:
		return TestT
	case pool <= 0 || nTrain <= 0:
		return TestCorrectedT
	case float64(nTrain) >= CorrectedOverlap*float64(pool):
		return TestCorrectedT
	}
	return TestT
}

// TestAt returns the paired test the reports of spec use on the dataset
// with the given id (a datasets: entry, or a report.choose id, which
// takes the split of its first member) for trials of nTrain training
// rows drawn from a pool of pool rows: report.test if set, else
// DefaultTest.
func TestAt(sp *spec.Spec, dataset string, nTrain, pool int) string {
	if sp.Report.Test != "" {
		return sp.Report.Test
	}
	if ds := datasetSpec(sp, dataset); ds != nil {
		return DefaultTest(ds.Split.KindName(), nTrain, pool)
	}
	return DefaultTest("", nTrain, pool)
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
// and the rows it scales by.
func (m *model) testOf(d *dataSet, c *cell) (test string, nTrain, nTest int) {
	nTrain, nTest = rows(c)
	pool := PoolRows(datasetSpec(m.spec, d.id), m.rows[d.first()], nTrain, nTest, d.maxTrain())
	return TestAt(m.spec, d.id, nTrain, pool), nTrain, nTest
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
	x, y := pairs(a, b, mn)
	test, nTrain, nTest := m.testOf(d, a)
	return PairedTest(test, x, y, nTrain, nTest)
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

// testUse is the test that ran at one x value.
type testUse struct {
	x    float64
	test string
}

// add counts the outcome of one test at x.
func (c *wtlCount) add(x float64, r TestResult, verdict string) {
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
	c.Uses = append(c.Uses, testUse{x, r.Test})
	if !slices.Contains(c.Tests, r.Test) {
		c.Tests = append(c.Tests, r.Test)
	}
}

// testsAt names the tests of uses for a table's note: one test; the
// plain paired t-test below some x and the corrected one from it on
// (the default where training samples grow to most of the pool) as
// "two-sided paired t-test; … corrected resampled t-test … at sizes ≥ N",
// unit naming the x ("sizes"); else the tests' names, the corrected
// test's with where the plain one ran instead.
func testsAt(uses []testUse, unit string) string {
	var tests []string
	from, below := math.Inf(1), math.Inf(-1) // corrected-t's least x, t's largest
	for _, u := range uses {
		if !slices.Contains(tests, u.test) {
			tests = append(tests, u.test)
		}
		switch u.test {
		case TestCorrectedT:
			from = math.Min(from, u.x)
		case TestT:
			below = math.Max(below, u.x)
		}
	}
	if len(tests) == 2 && slices.Contains(tests, TestT) && slices.Contains(tests, TestCorrectedT) && below < from {
		return fmt.Sprintf("%s at %s < %s; %s at %s ≥ %s (where two trials' training samples share at least half their rows)",
			testName(TestT), unit, num(from), testName(TestCorrectedT), unit, num(from))
	}
	return testsName(tests)
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
		return testName(TestCorrectedT) + " where two trials' training samples share at least half their rows, else (or where the trials recorded no row counts) the two-sided paired t-test"
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
		r := m.compare(d, a.cells[x], b.cells[x], mn)
		c.add(x, r, outcome(r, alpha, higher))
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
