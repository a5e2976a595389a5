package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOtherSpec is issue 42's case: check FILE -o DIR after FILE's
// grid changed said "no successful trials of LR". It says the stored
// results come from another spec, and what changed; with no trial of
// FILE stored it refuses (exit 2), with some it warns and checks.
func TestCheckOtherSpec(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "-j", "2")
	mustCLI(t, exitOK, "check", irisSpec, "-o", dir)

	_, stderr := mustCLI(t, exitUsage, "check", irisSpec, "-o", dir, "--set", "datasets.0.split.test=50")
	for _, want := range []string{
		"repro check: the results in " + dir + " come from another spec: " + filepath.Join(dir, "spec.yaml") + " differs from " + irisSpec + " in what runs:\n",
		"dataset iris: split.test: 60.0 (stored) → 50.0 (" + irisSpec + ")",
		"none of " + irisSpec + "'s 8 trials has a stored result: run it (repro run " + irisSpec + " -o " + dir + "), or check the stored spec (repro check " + dir + ")",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %q in\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "no successful trials") {
		t.Errorf("still says no successful trials:\n%s", stderr)
	}

	// Half the grid stored: a warning, and the check of what is there.
	stdout, stderr := mustCLI(t, exitOK, "check", irisSpec, "-o", dir, "--set", "methods.0.params.C=[10, 100]")
	if !strings.Contains(stderr, "warning: the results in "+dir+" come from another spec") || !strings.Contains(stderr, "4 of "+irisSpec+"'s 8 trials have a stored result") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "PASS") {
		t.Errorf("stdout:\n%s", stdout)
	}
	// An edited expect: block changes nothing that runs: no warning.
	_, stderr = mustCLI(t, exitOK, "check", irisSpec, "-o", dir, "--set", "expect=[]")
	if strings.Contains(stderr, "another spec") {
		t.Errorf("expect edited:\n%s", stderr)
	}
}
