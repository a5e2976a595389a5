package main

import (
	"path/filepath"
	"testing"
)

// TestDocsExamples runs each example experiment of docs/examples (a
// user's own data, beside the spec in its folder) as its README says, in
// its smoke form, and checks its expectations: the example works as
// documented, with no conversion of the data.
func TestDocsExamples(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("docs", "examples", "*", "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, spec := range specs {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			spec, err := filepath.Abs(spec)
			if err != nil {
				t.Fatal(err)
			}
			data := filepath.Dir(spec)
			out := filepath.Join(t.TempDir(), "out")
			// validate --data caches corpus transforms in ./out/.cache,
			// as a run without -o would: here, not in the source tree.
			t.Chdir(t.TempDir())
			mustCLI(t, exitOK, "validate", "--data", data, spec)
			mustCLI(t, exitOK, "run", spec, "--smoke", "--data", data, "-o", out, "-q", "-j", "2")
			// The smoke form's own spec (spec.yaml in the output) holds
			// its reductions: check judges the trials it planned.
			stdout, _ := mustCLI(t, exitOK, "check", out)
			t.Logf("%s", stdout)
		})
	}
}
