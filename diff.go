package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/reports"
)

const diffSynopsis = "diff OLD_DIR NEW_DIR [--tolerance T|P%] [--alpha A]"

// cmdDiff compares two runs of one experiment trial by trial, as
// benchstat compares benchmarks: the CI regression check after a change
// to a solver, with the baseline run kept as an artifact.
func cmdDiff(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("diff", stderr, diffSynopsis)
	tolFlag := fs.String("tolerance", "0", "how much worse a mean may get before a significant change fails: in the metric's units, or with % relative to the old mean")
	alpha := fs.Float64("alpha", 0.05, "significance level of the paired t-test")
	pos, err := parse(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 2 {
		fs.Usage()
		return exitUsage
	}
	opts, err := diffOptions(*tolFlag, *alpha)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return exitUsage
	}
	d, code := compareDirs(stderr, pos[0], pos[1], opts)
	if d == nil {
		return code
	}
	if reports.WriteDiff(stdout, d) > 0 {
		return exitFailed
	}
	return exitOK
}

// diffOptions parses --tolerance (a number, or a percentage) and --alpha.
func diffOptions(tol string, alpha float64) (reports.DiffOptions, error) {
	opts := reports.DiffOptions{Alpha: alpha}
	if !(alpha > 0 && alpha < 1) {
		return opts, fmt.Errorf("--alpha %g: want a level in (0, 1)", alpha)
	}
	s, rel := strings.CutSuffix(strings.TrimSpace(tol), "%")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || v > 1e300 {
		return opts, fmt.Errorf("--tolerance %q: want a number ≥ 0, or a percentage such as 1%%", tol)
	}
	if rel {
		v /= 100
	}
	opts.Tolerance, opts.Relative = v, rel
	return opts, nil
}

// compareDirs reads the specs and results of two output directories and
// compares them; on failure it prints why and returns a nil Diff and the
// exit code.
func compareDirs(stderr io.Writer, oldDir, newDir string, opts reports.DiffOptions) (*reports.Diff, int) {
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
	oldResults, err := loadResults(oldDir, oldSpec, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return nil, exitUsage
	}
	newResults, err := loadResults(newDir, newSpec, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return nil, exitUsage
	}
	if oldSpec.Name != newSpec.Name {
		fmt.Fprintf(stderr, "warning: comparing runs of two experiments, %q and %q: only trials with the same key are paired\n", oldSpec.Name, newSpec.Name)
	}
	d, err := reports.Compare(oldSpec, oldResults, newSpec, newResults, opts)
	if err != nil {
		fmt.Fprintf(stderr, "repro diff: %v\n", err)
		return nil, exitUsage
	}
	return d, exitOK
}
