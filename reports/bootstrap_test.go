package reports

import (
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// Two trials with 41 resamples each: resample r of trial 0 is 60 + r/2,
// of trial 1 70 + r/2, so resample r of the mean is 65 + r/2: the sorted
// means are 65, 65.5, …, 85, whose 2.5% and 97.5% quantiles (type 7, h =
// 0.025·40 = 1 and 39) are 65.5 and 84.5, and whose sd is
// 0.5·sd(0…40) = 0.5·√(41·42/12) = 5.9896.
func TestBootstrapTable(t *testing.T) {
	sp, rs := twoSeries(map[string][]float64{"a": {80, 90}, "b": {70, 75}})
	for i := range rs {
		if rs[i].Method != "a" {
			continue
		}
		v := make([]float64, 41)
		for r := range v {
			v[r] = 60 + 10*float64(rs[i].Trial) + float64(r)/2
		}
		rs[i].Bootstrap = results.Samples{"accuracy": v}
	}
	md, _ := renderMD(t, sp, rs)
	got := row(t, md, "Bootstrap 95% interval of accuracy", "a")
	if !strings.Contains(got, "65.50 – 84.50 (se 5.99)") {
		t.Errorf("bootstrap row %q; want 65.50 – 84.50 (se 5.99)", got)
	}
	table, _, _ := strings.Cut(md[strings.Index(md, "Bootstrap 95%"):], "Percentile interval")
	if strings.Contains(table, "| b ") {
		t.Errorf("series b stored no resamples but has a bootstrap row:\n%s", md)
	}
	if !strings.Contains(md, "across 41 resamples") {
		t.Errorf("no resample count in the note:\n%s", md)
	}

	// Only one trial with resamples: its own interval, marked n=1.
	rs2 := append([]results.Result(nil), rs...)
	for i := range rs2 {
		if rs2[i].Method == "a" && rs2[i].Trial == 1 {
			rs2[i].Bootstrap = nil
		}
	}
	md2, _ := renderMD(t, sp, rs2)
	if got := row(t, md2, "Bootstrap 95% interval of accuracy", "a"); !strings.Contains(got, "60.50 – 79.50") || !strings.Contains(got, "n=1") {
		t.Errorf("one trial with resamples: row %q; want 60.50 – 79.50 and n=1", got)
	}

	// No resamples at all: no table.
	spec3, rs3 := twoSeries(map[string][]float64{"a": {80, 90}, "b": {70, 75}})
	if md3, _ := renderMD(t, spec3, rs3); strings.Contains(md3, "Bootstrap") {
		t.Errorf("bootstrap table without resamples:\n%s", md3)
	}
}

// A relation between two series with resamples gets the paired bootstrap
// interval of its difference: a's resample r is 80 + r/10, b's 79 + r/5
// (r = 0 … 19), so a − b = 1 − r/10: 1.0, 0.9, …, −0.9, of which 10 of 20
// are positive; sorted (−0.9 … 1.0 in steps of 0.1), their 2.5% and 97.5%
// quantiles (h = 0.475 and 18.525) are −0.9 + 0.0475 = −0.8525 and
// −0.9 + 1.8525 = 0.9525.
func TestCheckBootstrapDifference(t *testing.T) {
	sp, rs := twoSeries(map[string][]float64{"a": {80}, "b": {79}},
		spec.Expectation{Dataset: "d", Metric: "accuracy", Better: "a", Than: "b"})
	sp.Curve.Trials = 1
	for i := range rs {
		v := make([]float64, 20)
		for r := range v {
			if rs[i].Method == "a" {
				v[r] = 80 + float64(r)/10
			} else {
				v[r] = 79 + float64(r)/5
			}
		}
		rs[i].Bootstrap = results.Samples{"accuracy": v}
	}
	got := Check(sp, rs)
	if len(got.Rows) != 1 {
		t.Fatalf("%d rows; want 1", len(got.Rows))
	}
	want := "bootstrap 95% [-0.85, +0.95], 50% of 20 resamples favour it"
	if !strings.Contains(got.Rows[0].Measured, want) {
		t.Errorf("measured %q; want it to contain %q", got.Rows[0].Measured, want)
	}
}
