package reports

import (
	"math"
	"slices"
	"testing"

	"github.com/repro-ml/repro/spec"
	"github.com/repro-ml/repro/stats"
)

// The spec's names are the registry's tests.
func TestPairedTestNames(t *testing.T) {
	if !slices.Equal(spec.PairedTests, stats.Names()) || !slices.Equal(Tests, stats.Names()) {
		t.Errorf("spec.PairedTests %v, Tests %v, want the registry's %v", spec.PairedTests, Tests, stats.Names())
	}
}

// near reports whether a and b differ by at most tol.
func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

// A diff row keeps each pair's unit when it drops a pair that is not
// finite in the new run: design-t then averages the repeats of each fold
// that are left.
func TestDiffRowUnits(t *testing.T) {
	d := &Diff{opts: DiffOptions{Alpha: 0.05}}
	dz := stats.Design{Scheme: stats.Folds, Folds: 2, Repeats: 2, Units: []int{0, 0, 1, 1}}
	old := []float64{80, 80, 80, 80}
	new := []float64{81, math.Inf(1), 82, 84}
	r := d.row("d", "s", "accuracy", 10, old, new, TestDesignT, dz)
	// Pairs left: (81, 80) in fold 0, (82, 80) and (84, 80) in fold 1:
	// fold means 1 and 3, the test of {1, 3}.
	want := stats.Paired(TestDesignT, []float64{1, 3}, []float64{0, 0}, stats.Design{})
	if r.Pairs != 3 || r.NonFinite != 1 || !near(r.P, want.P, 1e-12) {
		t.Errorf("row = %+v; want 3 pairs, 1 not finite, p %v", r, want.P)
	}
}
