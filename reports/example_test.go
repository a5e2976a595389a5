package reports_test

import (
	"os"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/runner"
)

func Example() {
	paper := 90.0
	tol := 1.5
	spec := &runner.Spec{
		Name:     "demo",
		Datasets: []runner.DatasetSpec{{Name: "csv", ID: "iris"}},
		Methods: []runner.MethodSpec{
			{Name: "logreg-l2", Label: "lr", Grid: []param.Values{{"C": 1.0}}},
			{Name: "knn", Label: "knn", Grid: []param.Values{{"k": 3}}},
		},
		Curve:   runner.Curve{Sizes: []float64{30}, Trials: 2, Sampling: "random"},
		Metrics: []string{"accuracy"},
		Expect: []runner.Expectation{
			{Metric: "accuracy", Method: "lr", Value: &paper, Tol: &tol, Source: "Table 1"},
			{Metric: "accuracy", Better: "lr", Than: "knn"},
		},
	}
	var results []runner.Result
	for i, acc := range []float64{91, 90, 85, 87} {
		method := "lr"
		if i >= 2 {
			method = "knn"
		}
		results = append(results, runner.Result{Key: string(rune('a' + i)), Dataset: "iris", Method: method,
			Size: 30, Trial: i % 2, Metrics: map[string]float64{"accuracy": acc}})
	}
	failed := reports.WriteCheck(os.Stdout, reports.Check(spec, results))
	if failed > 0 {
		os.Exit(1)
	}
	// Output:
	// | dataset | check              | size | expected        | measured                                    | verdict | source  |
	// |:--------|:-------------------|-----:|:----------------|:--------------------------------------------|:--------|:--------|
	// | iris    | lr accuracy        |   30 | 90 ± 1.5        | 90.50 ± 0.71 (n=2)                          | PASS    | Table 1 |
	// | iris    | lr vs knn accuracy |   30 | higher than knn | 90.50 vs 86.00: by +4.50 (p=0.205, 2 pairs) | PASS    |         |
	//
	// 2 passed, 0 failed
}
