package reports

import (
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// aucSpec is twoSeries with auc and accuracy: a's AUC 0.9712 and b's
// 0.9684 are "0.97 vs 0.97" at two decimals.
func aucSpec(report spec.ReportSpec) (*spec.Spec, []results.Result) {
	sp, _ := twoSeries(nil, spec.Expectation{Metric: "auc", Better: "a", Than: "b"})
	sp.Curve.Trials = 1
	sp.Metrics = []string{"accuracy", "auc"}
	sp.Report = report
	rs := []results.Result{
		{Key: "a", Dataset: "d", Method: "a", Size: 10, Metrics: results.Metrics{"accuracy": 67.48, "auc": 0.9712}},
		{Key: "b", Dataset: "d", Method: "b", Size: 10, Metrics: results.Metrics{"accuracy": 66.5, "auc": 0.9684}},
	}
	return sp, rs
}

// Each metric has its own decimals (accuracy 2, auc 3); report.digits
// sets every metric's, report.metric_digits single ones over it.
func TestDigitsPerMetric(t *testing.T) {
	three := 3
	tests := []struct {
		name          string
		report        spec.ReportSpec
		acc, auc, chk string
	}{
		{"defaults", spec.ReportSpec{}, "| **67.48** |", "| **0.971** |", "0.971 vs 0.968: by +0.003"},
		{"digits for all", spec.ReportSpec{Digits: &three}, "| **67.480** |", "| **0.971** |", "0.971 vs 0.968: by +0.003"},
		{"per metric over all", spec.ReportSpec{Digits: &three, MetricDigits: map[string]string{"accuracy": "1", "auc": "4"}},
			"| **67.5** |", "| **0.9712** |", "0.9712 vs 0.9684: by +0.0028"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, rs := aucSpec(tt.report)
			md, _ := renderMD(t, sp, rs)
			if r := row(t, md, "### accuracy", "a"); !strings.Contains(r, tt.acc) {
				t.Errorf("accuracy row %q, want %q", r, tt.acc)
			}
			if r := row(t, md, "### auc", "a"); !strings.Contains(r, tt.auc) {
				t.Errorf("auc row %q, want %q", r, tt.auc)
			}
			if r := row(t, md, "## Expectations", "d"); !strings.Contains(r, tt.chk) {
				t.Errorf("check row %q, want %q", r, tt.chk)
			}
		})
	}
}

// A difference the metric's digits round to zero gets up to three more.
func TestSignedDifference(t *testing.T) {
	sp, rs := aucSpec(spec.ReportSpec{})
	m := build(sp, rs)
	for _, tt := range []struct {
		v    float64
		want string
	}{{0.0028, "+0.003"}, {0.0004, "+0.0004"}, {-0.00004, "-0.00004"}, {0.0000004, "+0.000000"}, {0, "+0.000"}} {
		if got := signed(m, "auc", tt.v); got != tt.want {
			t.Errorf("signed(auc, %g) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
