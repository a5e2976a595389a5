package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

const diffSynopsis = `diff OLD_DIR NEW_DIR [--tolerance T|P%] [--alpha A] [--test NAME] [--allow-missing|-fewer|-other-seed|-other-name|-corrupt]

Pairs the trials of two runs by dataset, method series, size and trial
index, whatever else changed between their specs (listed first), and
compares each metric's means with a paired test (--test; by default the
spec's report.test if set, else Student's paired t-test, which is more
sensitive than the corrected t-test the reports default to). Exits 1 on a series
significantly worse beyond --tolerance, a trial that finished in OLD_DIR
and fails in NEW_DIR, nothing compared (or no row with two pairs to
test), an empty results file, and —
unless the --allow flag named in its FAIL line accepts it — a dataset,
series, size or metric of OLD_DIR that NEW_DIR's spec lacks, trials
OLD_DIR finished and NEW_DIR did not, another seed or experiment name,
an unreadable result line (a torn last line, what a kill leaves, is
dropped with a warning as run does: its trial counts as not finished),
a metric that is finite in OLD_DIR and NaN or ±Inf in NEW_DIR.
`

// cmdDiff compares two runs of one experiment trial by trial, as
// benchstat compares benchmarks: the CI regression check after a change
// to a solver, with the baseline run kept as an artifact. It exits 1 on
// a regression and on anything that would let one pass unseen — nothing
// compared, a dataset, series, size or trials of the old run absent from
// the new one, runs of two seeds or experiments, an empty or damaged
// results file — unless an --allow flag accepts exactly that.
func cmdDiff(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("diff", stderr, diffSynopsis)
	tolFlag := fs.String("tolerance", "0", "how much worse a mean may get before a significant change fails: in the metric's units, or with % relative to the old mean")
	alpha := fs.Float64("alpha", 0.05, "significance level of the paired test")
	test := fs.String("test", "", "the paired test: "+strings.Join(reports.Tests, ", ")+", or "+reports.DiffTestReports+" (the default): the test the new run's reports use (report.test, else design-t: the paired t-test over the design's independent units, docs/statistics.md)")
	var opts reports.DiffOptions
	fs.BoolVar(&opts.AllowMissing, "allow-missing", false, "accept a dataset, series, size or metric of the old run that the new run's spec no longer has")
	fs.BoolVar(&opts.AllowFewer, "allow-fewer", false, "accept trials the old run finished and the new one did not (an unfinished run, fewer trials per size); a trial that fails in the new run is still a regression")
	fs.BoolVar(&opts.AllowOtherSeed, "allow-other-seed", false, "accept runs of different seeds (trials of one index then train on different samples)")
	fs.BoolVar(&opts.AllowOtherName, "allow-other-name", false, "accept runs of two experiments (different names)")
	allowCorrupt := fs.Bool("allow-corrupt", false, "skip the lines of a results file that cannot be read, with a warning, instead of failing")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 2 {
		fs.Usage()
		return exitUsage
	}
	if err := diffOptions(&opts, *tolFlag, *alpha, *test); err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return exitUsage
	}
	d, code := compareDirs(stderr, pos[0], pos[1], opts, *allowCorrupt)
	if d == nil {
		return code
	}
	if reports.WriteDiff(stdout, d) > 0 {
		return exitFailed
	}
	return exitOK
}

// diffOptions parses --tolerance (a number, or a percentage), --alpha and
// --test into opts.
func diffOptions(opts *reports.DiffOptions, tol string, alpha float64, test string) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("--alpha %g: want a level in (0, 1)", alpha)
	}
	if test != "" && test != reports.DiffTestReports && !slices.Contains(reports.Tests, test) {
		return fmt.Errorf("--test %q: want one of %s or %s", test, strings.Join(reports.Tests, ", "), reports.DiffTestReports)
	}
	opts.Test = test
	s, rel := strings.CutSuffix(strings.TrimSpace(tol), "%")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || v > 1e300 {
		return fmt.Errorf("--tolerance %q: want a number ≥ 0, or a percentage such as 1%%", tol)
	}
	if rel {
		v /= 100
	}
	opts.Alpha, opts.Tolerance, opts.Relative = alpha, v, rel
	return nil
}

// compareDirs reads the specs and results of two output directories and
// compares them; on failure it prints why and returns a nil Diff and the
// exit code: 2 for a directory that is not a run's, 1 for results that
// cannot be compared.
func compareDirs(stderr io.Writer, oldDir, newDir string, opts reports.DiffOptions, allowCorrupt bool) (*reports.Diff, int) {
	oldSpec, err := loadDir(oldDir, nil)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return nil, exitUsage
	}
	newSpec, err := loadDir(newDir, nil)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return nil, exitUsage
	}
	oldResults, err := diffResults(stderr, oldDir, oldSpec, allowCorrupt)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: old run: %v\n", err)
		return nil, exitFailed
	}
	newResults, err := diffResults(stderr, newDir, newSpec, allowCorrupt)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: new run: %v\n", err)
		return nil, exitFailed
	}
	if infos, err := results.ReadDatasetInfo(newDir); err == nil {
		opts.Rows = map[string]int{}
		for id, in := range infos {
			opts.Rows[id] = in.Rows
		}
	}
	d, err := reports.Compare(oldSpec, oldResults, newSpec, newResults, opts)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return nil, exitUsage
	}
	return d, exitOK
}

// diffResults reads the results of spec's plan stored in dir with
// loadResults, after failing where a comparison would silently shrink: no
// results file, a line that cannot be read (unless allowCorrupt: then
// loadResults warns of it), no result of the spec's trials.
func diffResults(stderr io.Writer, dir string, sp *spec.Spec, allowCorrupt bool) ([]results.Result, error) {
	all, warns, found, err := results.ReadAllResults(dir)
	// A torn last line (a killed run) is dropped as run, report and
	// check drop it: its trial has no result, which the comparison
	// counts (Diff.Fewer). A corrupt line elsewhere fails.
	_, corrupt := results.Damaged(warns)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%s: no %s: the run has not started", dir, results.ResultsFile)
	case len(corrupt) > 0 && !allowCorrupt:
		var b strings.Builder
		for _, w := range corrupt {
			fmt.Fprintf(&b, "\n\t%v", w)
		}
		return nil, fmt.Errorf("%s: %d unreadable result lines (--allow-corrupt skips them):%s", dir, len(corrupt), b.String())
	case len(all) == 0:
		return nil, fmt.Errorf("%s: %s holds no results: nothing to compare", dir, results.ResultsFile)
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	// The results read once; what the plan keeps is a copy, and the
	// lines read are let go with this function.
	mine, err := planResults(dir, sp, all, stderr)
	if err != nil {
		return nil, err
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("%s: none of the %d results is of a trial of its %s: nothing to compare", dir, len(all), spec.SpecFile)
	}
	return mine, nil
}
