package stats_test

import (
	"fmt"

	"github.com/repro-ml/repro/stats"
)

// Paired on ten paired scores: the corrected t-test of 10 trials that
// trained on 90 rows and tested on 10 (10-fold cross-validation) is less
// sure of the difference than the plain t-test, which takes the trials as
// independent.
func ExamplePaired() {
	a := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30, 1.1}
	b := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29, 0.9}
	for _, test := range []string{stats.TestT, stats.TestCorrectedT, stats.TestWilcoxon} {
		r := stats.Paired(test, a, b, stats.Design{Train: 90, Test: 10})
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
	r := stats.Friedman(scores, true)
	fmt.Printf("average ranks %.2f, χ² = %.2f, p = %.3f\n", r.AvgRanks, r.Chi2, r.P)
	fmt.Printf("CD = %.2f\n", stats.NemenyiCD(r.K, r.N, 0.05))
	// Output:
	// average ranks [3.00 1.62 1.38], χ² = 7.54, p = 0.023
	// CD = 1.66
}
