package conformance_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/reports"
	"github.com/repro-ml/repro/runner"
)

// probeOracle is the name the suite registers a copy of the first oracle
// select rule under: a rule no code can know by name, so that a report
// that flags oracle choices by the rule's name rather than by
// Selector.Oracle fails TestSelectors.
const probeOracle = "conformance-oracle"

func init() {
	for _, name := range runner.Selectors.Names() {
		sel, err := runner.Selectors.Lookup(name)
		if err != nil || !sel.Oracle {
			continue
		}
		probe := *sel
		probe.Doc = "a copy of " + name + " under a name of the conformance suite's (test fixture)"
		runner.Selectors.Register(probeOracle, &probe)
		return
	}
}

// oracleFlag is how reports flag a series whose grid point an oracle rule
// chose.
const oracleFlag = "[oracle]"

// TestSelectors runs a small experiment under every registered select
// rule — one method over a grid of two points — and checks that every
// trial succeeds with finite metrics; that a rule that chooses records a
// grid point of the grid in every result and one that does not makes a
// series of every grid point; that every result's Oracle field is the
// rule's Selector.Oracle; and that report.md flags the method and each of
// its series in every table row that names them as an oracle choice
// exactly when the rule is an oracle one — also when the results' Oracle
// fields are cleared (results stored before the field existed), so that
// the flag follows from the spec's rule as well as from the results.
func TestSelectors(t *testing.T) {
	if _, err := runner.Selectors.Lookup(probeOracle); err != nil {
		t.Logf("no oracle select rule is registered: nothing to probe the report's flag with")
	}
	for _, name := range runner.Selectors.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sel, err := runner.Selectors.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if sel.Doc == "" || sel.Choose == nil || sel.Fits == nil {
				t.Fatalf("Doc, Choose and Fits must be set (Doc %q)", sel.Doc)
			}
			grid := []float64{0.01, 10}
			spec := parseSpec(t, fmt.Sprintf(`name: conform-select
seed: 5
datasets: [{name: iris, split: {kind: holdout, test: 50, stratify: true}}]
methods:
  - {name: logreg-l2, label: probe, params: {C: [%v, %v]}, select: {rule: %s}}
curve: {sizes: [30, 60], trials: 2}
metrics: [accuracy]
`, grid[0], grid[1], name))
			dir := t.TempDir()
			sum := runSpec(t, spec, dir, 2)
			series := map[string]bool{}
			for i := range sum.Results {
				r := &sum.Results[i]
				checkFinite(t, r)
				if r.Oracle != sel.Oracle {
					t.Errorf("trial %d size %d: result's Oracle is %v, the rule's %v", r.Trial, r.Size, r.Oracle, sel.Oracle)
				}
				if sel.Chooses {
					c, ok := r.Chosen["C"].(float64)
					if !ok || !slices.Contains(grid, c) {
						t.Errorf("trial %d size %d: chosen %v, want C one of %v", r.Trial, r.Size, r.Chosen, grid)
					}
				}
				series[runner.SeriesName(r.Method, r.Variant)] = true
			}
			if want := map[bool]int{true: 1, false: len(grid)}[sel.Chooses]; len(series) != want {
				t.Errorf("%d series %v, want %d (Chooses %v)", len(series), slices.Sorted(maps.Keys(series)), want, sel.Chooses)
			}
			checkOracleFlag(t, dir, spec, sum.Results, sel.Oracle)
			if t.Failed() {
				return
			}
			cleared := slices.Clone(sum.Results)
			for i := range cleared {
				cleared[i].Oracle = false
			}
			t.Run("results-without-oracle-field", func(t *testing.T) {
				checkOracleFlag(t, dir, spec, cleared, sel.Oracle)
			})
		})
	}
}

// checkOracleFlag renders the reports of results and checks that every
// table row of report.md that names the method (label probe) carries the
// oracle flag when oracle is set, and that no part of the report does
// when it is not.
func checkOracleFlag(t *testing.T, dir string, spec *runner.Spec, results []runner.Result, oracle bool) {
	t.Helper()
	files, err := reports.Render(dir, spec, results)
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
