package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/repro-ml/repro/runner"
)

// DefaultTest returns the paired test for trials of a dataset split by
// the split kind: TestCorrectedT for every kind with a test set (kfold,
// holdout, rest, given and kinds registered later) — their trials draw
// training samples from one pool, so the samples share rows (k-fold
// cross-validation, repeated random subsampling, subsamples of a given
// training part) and the test sets overlap or coincide, which makes the
// plain t-test find differences too often — and TestT for train, whose
// metrics are in-sample.
func DefaultTest(splitKind string) string {
	if splitKind == "train" {
		return TestT
	}
	return TestCorrectedT
}

// TestFor returns the paired test that the reports of spec use on the
// dataset with the given id (a datasets: entry, or a report.choose id,
// which takes the split of its first member): report.test if set, else
// DefaultTest of the dataset's split.
func TestFor(spec *runner.Spec, dataset string) string {
	if spec.Report.Test != "" {
		return spec.Report.Test
	}
	for _, c := range spec.Report.Choose {
		if c.ID == dataset && len(c.Among) > 0 {
			dataset = c.Among[0]
		}
	}
	for _, d := range spec.Datasets {
		if d.ID == dataset {
			return DefaultTest(d.Split.KindName())
		}
	}
	return DefaultTest("")
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

// compare runs d's paired test on metric mn of cell a against cell b,
// over the trial indices both have.
func (m *model) compare(d *dataSet, a, b *cell, mn string) TestResult {
	x, y := pairs(a, b, mn)
	nTrain, nTest := rows(a)
	return PairedTest(TestFor(m.spec, d.id), x, y, nTrain, nTest)
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
	// Tests are the tests that ran (TestResult.Test), in order of first use.
	Tests []string
}

// add counts the outcome of one test.
func (c *wtlCount) add(r TestResult, verdict string) {
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
	if !slices.Contains(c.Tests, r.Test) {
		c.Tests = append(c.Tests, r.Test)
	}
}

// testsName names tests for a table's note: one test, or "the paired
// t-test where …" when the corrected test lacked row counts somewhere.
func testsName(tests []string) string {
	switch {
	case len(tests) == 0:
		return ""
	case len(tests) == 1:
		return testName(tests[0])
	case len(tests) == 2 && slices.Contains(tests, TestT) && slices.Contains(tests, TestCorrectedT):
		return testName(TestCorrectedT) + " (the plain paired t-test where the trials recorded no training and test row counts)"
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
		c.add(r, outcome(r, alpha, higher))
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
