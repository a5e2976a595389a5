package reports

import "github.com/repro-ml/repro/stats"

// summary holds descriptive statistics of a sample (stats.Summary).
type summary = stats.Summary

// summarize returns the statistics of xs, ignoring NaN values
// (stats.Summarize).
func summarize(xs []float64) summary { return stats.Summarize(xs) }

// The paired tests the reports run (stats' registry), as report.test
// names them.
const (
	TestT          = stats.TestT
	TestCorrectedT = stats.TestCorrectedT
	TestWilcoxon   = stats.TestWilcoxon
	TestDesignT    = stats.TestDesignT
)

// Tests lists the paired tests report.test and diff --test accept.
var Tests = stats.Names()

// TestResult is the outcome of a paired test (stats.Result).
type TestResult = stats.Result
