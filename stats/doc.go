// Package stats holds the numerics of repro's comparisons: descriptive
// summaries, the paired tests of two series over trials (a registry of
// them: t, corrected-t, wilcoxon and design-t, the default), the design
// facts their variance corrections follow (Design: the expected overlap
// of two trials' training samples and test sets, and the trials that
// repeat one split), Friedman's test with the Nemenyi critical
// difference over several datasets, and bootstrap percentile intervals.
//
// It renders nothing and imports no other package of the module: reports
// renders its results, check and diff compare through it, and the
// calibration (repro calibrate) measures its tests' Type I error and
// power by simulation. docs/statistics.md derives the default test.
package stats
