package spec_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/spec"
)

// report.digits keeps its old meaning (an int is every metric's
// decimals); report.metric_digits sets single metrics; report.artifacts
// chooses what report.md shows. All three survive spec.yaml.
func TestReportSpecDigitsAndArtifacts(t *testing.T) {
	base := "name: t\ndatasets: [{name: fake-blobs}]\nmethods: [{name: fake-centroid}]\ncurve: {sizes: [10]}\nmetrics: [accuracy, auc]\n"
	tests := []struct {
		report    string
		want      spec.ReportSpec
		digits    map[string]int // DigitsFor; -1: none set
		plots, tb bool
	}{
		{"", spec.ReportSpec{X: "size"}, map[string]int{"auc": -1, "accuracy": -1}, true, true},
		{"report: {digits: 3}", spec.ReportSpec{X: "size", Digits: ptr(3)}, map[string]int{"auc": 3, "accuracy": 3}, true, true},
		{"report: {digits: 0, metric_digits: {auc: 4}, artifacts: none}",
			spec.ReportSpec{X: "size", Digits: ptr(0), MetricDigits: map[string]string{"auc": "4"}, Artifacts: "none"},
			map[string]int{"auc": 4, "accuracy": 0, "auc/part": 4}, false, false},
		{"report: {metric_digits: {accuracy: 1}, artifacts: plots}",
			spec.ReportSpec{X: "size", MetricDigits: map[string]string{"accuracy": "1"}, Artifacts: "plots"},
			map[string]int{"auc": -1, "accuracy": 1}, true, false},
	}
	for _, tt := range tests {
		s := mustParse(t, base+tt.report+"\n")
		if !reflect.DeepEqual(s.Report, tt.want) {
			t.Errorf("%s: report %+v, want %+v", tt.report, s.Report, tt.want)
		}
		for name, want := range tt.digits {
			got, ok := s.Report.DigitsFor(name)
			if !ok {
				got = -1
			}
			if got != want {
				t.Errorf("%s: DigitsFor(%s) = %d, want %d", tt.report, name, got, want)
			}
		}
		if s.Report.ShowsArtifacts("plots") != tt.plots || s.Report.ShowsArtifacts("tables") != tt.tb {
			t.Errorf("%s: shows plots %v tables %v", tt.report, s.Report.ShowsArtifacts("plots"), s.Report.ShowsArtifacts("tables"))
		}
		b, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := spec.Parse("spec.yaml", b, nil)
		if err != nil {
			t.Fatalf("%s: reloading: %v\n%s", tt.report, err, b)
		}
		if !reflect.DeepEqual(s2.Report, s.Report) {
			t.Errorf("%s: report became %+v after spec.yaml:\n%s", tt.report, s2.Report, b)
		}
		if tt.report == "" && !strings.HasSuffix(string(b), "report: {x: size}\n") {
			t.Errorf("a spec without report options stores more than x:\n%s", b)
		}
	}

	for _, tt := range []struct{ report, want string }{
		{"report: {metric_digits: {auc: x}}", `t.yaml:6:25: report.metric_digits: a mapping gives auc "x"; want a whole number of decimals in [0, 12] per metric`},
		{"report: {metric_digits: {auc: 13}}", `t.yaml:6:25: report.metric_digits: a mapping gives auc "13"; want`},
		{"report: {metric_digits: {acc: 1}}", `t.yaml:6:26: report.metric_digits.acc: unknown metric "acc" (did you mean "auc"?); want one of metrics or report.y: accuracy, auc`},
		{"report: {digits: -1}", `t.yaml:6:18: report.digits: -1 is out of range; want int in [0, 12]`},
		{"report: {digits: {auc: 3}}", `t.yaml:6:18: report.digits: got a mapping; want int`},
		{"report: {artifacts: some}", `t.yaml:6:21: report.artifacts: unknown value "some" (did you mean "none"?); want one of all, plots, tables, none`},
	} {
		errs := parseErrs(t, base+tt.report+"\n")
		if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) {
			t.Errorf("%s: errors\n%s\nwant one, with the prefix\n%s", tt.report, strings.Join(errs, "\n"), tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
