package reports

import (
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/metric"
)

// labels returns the labelled ticks of a log axis over [lo, hi] whose
// data run from dlo to dhi.
func labels(dlo, dhi, lo, hi float64) string {
	var out []string
	for _, t := range (logTicks{lo: dlo, hi: dhi}).Ticks(lo, hi) {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " ")
}

// A log x axis labels the curve's end points: sizes 30 … 400 (the axis
// padded by 4% of the span on each side, as render does) show 30 and 400
// besides the round 50, 100, 200; a round label next to an end gives way.
func TestLogTicksLabelEnds(t *testing.T) {
	tests := []struct {
		dlo, dhi, lo, hi float64
		want             string
	}{
		{30, 400, 27.1, 442, "30 50 100 200 400"},
		{20, 800, 17.4, 920, "20 50 100 200 500 800"},
		{10, 1000, 8.3, 1202, "10 20 50 100 200 500 1000"},
		{110, 400, 105, 420, "110 200 400"}, // 100 is off the axis
		{95, 1000, 86, 1100, "95 200 500 1000"},
	}
	for _, tt := range tests {
		if got := labels(tt.dlo, tt.dhi, tt.lo, tt.hi); got != tt.want {
			t.Errorf("data %g … %g on [%g, %g]: labels %q, want %q", tt.dlo, tt.dhi, tt.lo, tt.hi, got, tt.want)
		}
	}
}

// A bounded metric's axis stops at its range: AUC at 1, accuracy at 100
// and 0; the legend that then has no room above the data goes beside.
func TestYAxisBounded(t *testing.T) {
	fig := func(name string) *figure { return metricFigure("t", "x", name, false) }
	const lineH = 12.5
	tests := []struct {
		name       string
		dmin, dmax float64
		lo, hiMax  float64 // the axis starts at lo and ends in [min(dmax, hiMax), hiMax]
		beside     bool
	}{
		{"auc", 0.9, 1.02, 0.894, 1, true},           // mean+sd past 1
		{"auc", 0.6, 0.8, 0.59, 1, false},            // room for the legend below 1
		{"auc", 0.9, 0.99, 0.8955, 1, true},          // no room below 1
		{"accuracy", -2, 60, 0, 100, false},          // error bars below 0
		{"accuracy", 70, 99, 68.55, 100, true},       // no room below 100
		{"mse", 1, 3, 0.9, 4, false},                 // no upper bound
		{"components", 0.9, 1.02, 0.894, 1.1, false}, // an extra: unbounded
	}
	for _, tt := range tests {
		lo, hi, beside := fig(tt.name).yAxis(tt.dmin, tt.dmax, 2, lineH, false)
		if !near(lo, tt.lo, 1e-9) || hi < math.Min(tt.dmax, tt.hiMax) || hi > tt.hiMax || beside != tt.beside {
			t.Errorf("%s over [%g, %g]: axis [%.4g, %.4g] beside %v, want [%.4g, ≤ %.4g] beside %v", tt.name, tt.dmin, tt.dmax, lo, hi, beside, tt.lo, tt.hiMax, tt.beside)
		}
	}
	if m, _ := metric.Lookup("auc"); m.Max == nil || *m.Max != 1 {
		t.Fatal("auc has no upper bound 1")
	}
}
