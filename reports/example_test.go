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
	// | dataset | check              | size | expected                               | measured                                                                                                  | verdict                         | source  |
	// |:--------|:-------------------|-----:|:---------------------------------------|:----------------------------------------------------------------------------------------------------------|:--------------------------------|:--------|
	// | iris    | lr accuracy        |   30 | 90 ± 1.5                               | 90.50 ± 0.71 (n=2)                                                                                        | PASS                            | Table 1 |
	// | iris    | lr vs knn accuracy |   30 | higher than knn (direction only)       | 90.50 vs 86.00: by +4.50 (design-t p=0.205, 2 pairs; trials share 20% of training rows, 80% of test rows) | PASS (direction only, p=0.205)  |         |
	// | iris    | lr vs knn accuracy |   30 | higher than knn, significant at α=0.05 | 90.50 vs 86.00: by +4.50 (design-t p=0.205, 2 pairs; trials share 20% of training rows, 80% of test rows) | FAIL (not significant, p=0.205) |         |
	//
	// 2 passed, 1 failed
	// 1 pass rests on the means alone (direction only or non-inferior by mean): its rule demanded no significant test.
	// failed: 1
}
