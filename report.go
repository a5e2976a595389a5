package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/results"
)

func cmdReport(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("report", stderr, "report DIR")
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	spec, err := loadDir(arg, nil)
	if err != nil {
		fmt.Fprintf(stderr, "repro report: %v\n", err)
		return exitUsage
	}
	unlock, err := results.LockDir(arg)
	if err != nil {
		fmt.Fprintf(stderr, "repro report: %v\n", err)
		return exitError
	}
	defer unlock()
	recs, err := loadResults(arg, spec, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro report: %v\n", err)
		return exitUsage
	}
	if err := reports.Write(arg, spec, recs); err != nil {
		fmt.Fprintf(stderr, "repro report: writing the reports in %s: %v\n", arg, err)
		return exitError
	}
	fmt.Fprintf(stdout, "report: %s (%d results)\n", filepath.Join(arg, "report.md"), len(recs))
	return exitOK
}
