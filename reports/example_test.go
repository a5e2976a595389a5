package reports_test

import (
	"fmt"
	"os"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

func Example() {
	paper := 90.0
	tol := 1.5
	sp := &spec.Spec{
		Name:     "demo",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "iris"}},
		Methods: []spec.MethodSpec{
			{Name: "logreg-l2", Label: "lr", Grid: []param.Values{{"C": 1.0}}},
			{Name: "knn", Label: "knn", Grid: []param.Values{{"k": 3}}},
		},
		Curve:   spec.Curve{Sizes: []float64{30}, Trials: 2, Sampling: "random"},
		Metrics: []string{"accuracy"},
		Expect: []spec.Expectation{
			{Metric: "accuracy", Method: "lr", Value: &paper, Tol: &tol, Source: "Table 1"},
			// Means only: passes, qualified "direction only".
			{Metric: "accuracy", Better: "lr", Than: "knn"},
			// A significant win: the paired t-test over 2 trials does
			// not find it (the default test: samples of 30 of the 150
			// rows barely overlap, so no correction).
			{Metric: "accuracy", Better: "lr", Than: "knn", Significant: true},
		},
	}
	var recs []results.Result
	for i, acc := range []float64{91, 90, 85, 87} {
		method := "lr"
		if i >= 2 {
			method = "knn"
		}
		recs = append(recs, results.Result{Key: string(rune('a' + i)), Dataset: "iris", Method: method,
			Size: 30, Trial: i % 2, TrainRows: 30, TestRows: 120, Metrics: map[string]float64{"accuracy": acc}})
	}
	failed := reports.WriteCheck(os.Stdout, reports.Check(sp, recs))
	fmt.Println("failed:", failed)
	// Output:
	// | dataset | check              | size | expected                               | measured                                      | verdict                         | source  |
	// |:--------|:-------------------|-----:|:---------------------------------------|:----------------------------------------------|:--------------------------------|:--------|
	// | iris    | lr accuracy        |   30 | 90 ± 1.5                               | 90.50 ± 0.71 (n=2)                            | PASS                            | Table 1 |
	// | iris    | lr vs knn accuracy |   30 | higher than knn (direction only)       | 90.50 vs 86.00: by +4.50 (t p=0.205, 2 pairs) | PASS (direction only, p=0.205)  |         |
	// | iris    | lr vs knn accuracy |   30 | higher than knn, significant at α=0.05 | 90.50 vs 86.00: by +4.50 (t p=0.205, 2 pairs) | FAIL (not significant, p=0.205) |         |
	//
	// 2 passed, 1 failed
	// 1 pass rests on the means alone (direction only or non-inferior by mean): its rule demanded no significant test.
	// failed: 1
}

// PairedTest on ten paired scores: the corrected t-test of 10 trials that
// trained on 90 rows and tested on 10 (10-fold cross-validation) is less
// sure of the difference than the plain t-test, which takes the trials as
// independent.
func ExamplePairedTest() {
	a := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30, 1.1}
	b := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29, 0.9}
	for _, test := range reports.Tests {
		r := reports.PairedTest(test, a, b, 90, 10)
		fmt.Printf("%-11s n=%d mean diff %+.3f p=%.4f\n", r.Test, r.N, r.Diff, r.P)
	}
	// Output:
	// t           n=10 mean diff +0.409 p=0.0116
	// corrected-t n=10 mean diff +0.409 p=0.0577
	// wilcoxon    n=10 mean diff +0.409 p=0.0195
}

// Friedman ranks three series on four datasets (higher is better) and
// NemenyiCD gives the gap in average rank the post-hoc test needs
// (scipy.stats.friedmanchisquare: 7.538, p = 0.0231).
func ExampleFriedman() {
	scores := [][]float64{
		{75.1, 75.6, 75.6},
		{77.6, 79.0, 79.1},
		{80.8, 81.6, 81.6},
		{82.5, 83.1, 83.1},
	}
	r := reports.Friedman(scores, true)
	fmt.Printf("average ranks %.2f, χ² = %.2f, p = %.3f\n", r.AvgRanks, r.Chi2, r.P)
	fmt.Printf("CD = %.2f\n", reports.NemenyiCD(r.K, r.N, 0.05))
	// Output:
	// average ranks [3.00 1.62 1.38], χ² = 7.54, p = 0.023
	// CD = 1.66
}
