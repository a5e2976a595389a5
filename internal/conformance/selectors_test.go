package conformance_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// probeOracle is the name the suite registers a copy of the first oracle
// select rule under, probeOf: a rule no code can know by name, so that a
// report or protocol that treats oracle rules by name rather than by
// Selector.Oracle fails TestSelectors.
const probeOracle = "conformance-oracle"

var probeOf string

func init() {
	for _, name := range spec.Selectors.Names() {
		sel, err := runner.LookupSelector(name)
		if err != nil || !sel.Oracle {
			continue
		}
		probe := *sel
		probe.Doc = "a copy of " + name + " under a name of the conformance suite's (test fixture)"
		spec.Selectors.Register(probeOracle, &probe)
		probeOf = name
		return
	}
}

// oracleFlag is how reports flag a series whose grid point an oracle rule
// chose.
const oracleFlag = "[oracle]"

// TestSelectors runs a small experiment under every registered select
// rule and protocol — one method over a grid of two points — and checks
// that every trial succeeds with finite metrics (a protocol may refuse an
// oracle rule, failing every trial, but must then refuse the probe copy
// too); that a rule that chooses records a grid point of the grid in every
// result and one that does not makes a series of every grid point; that
// every result's Oracle field is the rule's Selector.Oracle; and that
// report.md flags the method and each of its series in every table row
// that names them as an oracle choice exactly when the rule is an oracle
// one — also when the results' Oracle fields are cleared (results stored
// before the field existed), so that the flag follows from the spec's rule
// as well as from the results.
func TestSelectors(t *testing.T) {
	if probeOf == "" {
		t.Logf("no oracle select rule is registered: nothing to probe the report's flag with")
	}
	grid := []float64{0.01, 10}
	run := func(t *testing.T, rule, protocol string) (*spec.Spec, string, *runner.Summary) {
		t.Helper()
		pr, err := runner.LookupProtocol(protocol)
		if err != nil {
			t.Fatal(err)
		}
		sp := parseSpec(t, protocolSpec(protocol, pr, protocolParams[protocol], "iris", "holdout, test: 50, stratify: true",
			fmt.Sprintf("{name: logreg-l2, label: probe, params: {C: [%v, %v]}, select: {rule: %s}}", grid[0], grid[1], rule)))
		dir := t.TempDir()
		return sp, dir, runResults(t, sp, dir, 2)
	}
	for _, name := range spec.Selectors.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sel, err := runner.LookupSelector(name)
			if err != nil {
				t.Fatal(err)
			}
			if sel.Doc == "" || sel.Choose == nil || sel.Fits == nil {
				t.Fatalf("Doc, Choose and Fits must be set (Doc %q)", sel.Doc)
			}
			for _, protocol := range spec.Protocols.Names() {
				t.Run(protocol, func(t *testing.T) {
					sp, dir, sum := run(t, name, protocol)
					if failed := failures(sum); failed != "" {
						if !sel.Oracle {
							t.Fatalf("%s", failed)
						}
						t.Logf("protocol %s refuses oracle rule %s: %s", protocol, name, failed)
					}
					if name == probeOracle {
						_, _, orig := run(t, probeOf, protocol)
						if a, b := failures(sum) != "", failures(orig) != ""; a != b {
							t.Fatalf("protocol %s: rule %s refused %v, its copy %s refused %v; want a rule treated by its Selector, not its name\n%s%s",
								protocol, probeOf, b, probeOracle, a, failures(orig), failures(sum))
						}
					}
					if failures(sum) != "" {
						return
					}
					checkSelection(t, sel, grid, sum)
					checkOracleFlag(t, dir, sp, sum.Results, sel.Oracle)
					if t.Failed() {
						return
					}
					cleared := slices.Clone(sum.Results)
					for i := range cleared {
						cleared[i].Oracle = false
					}
					t.Run("results-without-oracle-field", func(t *testing.T) {
						checkOracleFlag(t, dir, sp, cleared, sel.Oracle)
					})
				})
			}
		})
	}
}

// failures describes the failed trials of sum: "" when none failed.
func failures(sum *runner.Summary) string {
	var b strings.Builder
	for _, r := range sum.Results {
		if r.Failed() {
			fmt.Fprintf(&b, "trial %s/%s size %d trial %d failed: %s\n", r.Dataset, r.Method, r.Size, r.Trial, r.Error)
		}
	}
	return b.String()
}

// checkSelection checks the results of a rule: finite metrics, Oracle
// the rule's, a chosen point of grid when the rule chooses, and a series
// per grid point when it does not.
func checkSelection(t *testing.T, sel *runner.Selector, grid []float64, sum *runner.Summary) {
	t.Helper()
	series := map[string]bool{}
	for i := range sum.Results {
		r := &sum.Results[i]
		checkFinite(t, r)
		if r.Oracle != sel.Oracle {
			t.Errorf("%s trial %d size %d: result's Oracle is %v, the rule's %v", r.Dataset, r.Trial, r.Size, r.Oracle, sel.Oracle)
		}
		if sel.Chooses {
			c, ok := r.Chosen["C"].(float64)
			if !ok || !slices.Contains(grid, c) {
				t.Errorf("%s trial %d size %d: chosen %v, want C one of %v", r.Dataset, r.Trial, r.Size, r.Chosen, grid)
			}
		}
		series[spec.SeriesName(r.Method, r.Variant)] = true
	}
	if want := map[bool]int{true: 1, false: len(grid)}[sel.Chooses]; len(series) != want {
		t.Errorf("%d series %v, want %d (Chooses %v)", len(series), slices.Sorted(maps.Keys(series)), want, sel.Chooses)
	}
}

// checkOracleFlag renders the reports of results and checks that every
// table row of report.md that names the method (label probe) carries the
// oracle flag when oracle is set, and that no part of the report does
// when it is not.
func checkOracleFlag(t *testing.T, dir string, sp *spec.Spec, recs []results.Result, oracle bool) {
	t.Helper()
	files, err := reports.Render(dir, sp, recs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[reports.ReportFile])
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") || !strings.Contains(line, "probe") {
			continue
		}
		rows++
		if oracle && !strings.Contains(line, oracleFlag) {
			t.Errorf("report.md: a table row names the method of an oracle rule without %s:\n%s", oracleFlag, line)
		}
	}
	if rows == 0 {
		t.Errorf("report.md has no table row naming the method:\n%s", md)
	}
	if !oracle && strings.Contains(md, oracleFlag) {
		t.Errorf("report.md flags %s, but the rule is not an oracle one:\n%s", oracleFlag, md)
	}
}
