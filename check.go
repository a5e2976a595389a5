package main

import (
	"fmt"
	"io"
	"os"

	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/spec"
)

func cmdCheck(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("check", stderr, "check FILE.yaml|DIR [-o DIR] [--set key.path=value ...]")
	out := fs.String("o", "", "output directory of FILE.yaml's run (default out/<experiment name>)")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field (as given to run)")
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	// A FILE.yaml is checked with its own expect: block (edited after the
	// run or not) against the results in its output directory; a DIR with
	// the spec stored there.
	var sp *spec.Spec
	dir := arg
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		if *out != "" {
			fmt.Fprintf(stderr, "repro check: -o is for FILE.yaml; %s is a directory\n", dir)
			return exitUsage
		}
		if sp, err = loadDir(dir, sets); err != nil {
			fmt.Fprintf(stderr, "repro check: %v\n", err)
			return exitUsage
		}
	} else {
		if sp, err = loadSpec(arg, sets, stderr); err != nil {
			return exitUsage
		}
		dir = outDir(*out, sp)
	}
	results, err := loadResults(dir, sp, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro check: %v (run the experiment first)\n", err)
		return exitUsage
	}
	if len(sp.Expect) == 0 {
		fmt.Fprintf(stdout, "%s has no expect: entries\n", sp.Name)
		return exitOK
	}
	if reports.WriteCheck(stdout, reports.CheckDir(dir, sp, results)) > 0 {
		return exitFailed
	}
	return exitOK
}
