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
