package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
	file := false
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
		file = true
	}
	results, err := loadResults(dir, sp, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "repro check: %v (run the experiment first)\n", err)
		return exitUsage
	}
	if file && !sameRun(stderr, arg, dir, sp, len(results)) {
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

// sameRun says, when the spec stored in dir is not FILE.yaml's (arg) in
// what runs — a grid, a dataset, the sizes changed since the run — that
// the stored results come from another spec, with what changed, and how
// many of FILE.yaml's trials have a result. It returns false when none
// has one: checking would only say "no successful trials".
func sameRun(stderr io.Writer, arg, dir string, sp *spec.Spec, have int) bool {
	stored, err := loadDir(dir, nil)
	if err != nil {
		return true
	}
	changes := reports.SpecChanges(stored, sp)
	if len(changes) == 0 {
		return true
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		return true
	}
	var b strings.Builder
	for i, c := range changes {
		if i == 5 {
			fmt.Fprintf(&b, "\n\t… and %d more", len(changes)-5)
			break
		}
		fmt.Fprintf(&b, "\n\t%s: %s: %s (stored) → %s (%s)", c.Scope, c.Field, c.Old, c.New, arg)
	}
	what := fmt.Sprintf("the results in %s come from another spec: %s differs from %s in what runs:%s", dir, filepath.Join(dir, spec.SpecFile), arg, b.String())
	if have == 0 {
		fmt.Fprintf(stderr, "repro check: %s\nnone of %s's %d trials has a stored result: run it (repro run %s -o %s), or check the stored spec (repro check %s)\n",
			what, arg, len(plan.Trials), arg, dir, dir)
		return false
	}
	fmt.Fprintf(stderr, "warning: %s\n%d of %s's %d trials have a stored result; the others count as not run\n", what, have, arg, len(plan.Trials))
	return true
}
