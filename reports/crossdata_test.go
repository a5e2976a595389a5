package reports

import (
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// Two feature sets of one corpus (datasets c and g), one method: a
// relation across them with than_dataset, paired by trial.
func TestCheckAcrossDatasets(t *testing.T) {
	fp := func(v float64) *float64 { return &v }
	sp := &spec.Spec{
		Name:     "t",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "c"}, {Name: "csv", ID: "g"}},
		Methods:  []spec.MethodSpec{{Name: "p", Label: "en", Grid: []param.Values{{}}}},
		Curve:    spec.Curve{Sizes: []float64{10}, Trials: 3},
		Metrics:  []string{"error"},
		Expect: []spec.Expectation{
			{Dataset: "c", Metric: "error", Better: "en", Than: "en", ThanDataset: "g"},
			{Dataset: "c", Metric: "error", Better: "en", Than: "en", ThanDataset: "g", By: 2},
			{Dataset: "g", Metric: "error", Better: "en", Than: "en", ThanDataset: "c", Within: fp(1.5)},
			{Dataset: "c", Metric: "error", Better: "en", Than: "en", ThanDataset: "x"},
		},
	}
	errs := map[string][]float64{"c": {10, 11, 12}, "g": {11, 12, 14}} // g trails c by 1, 1, 2
	var rs []results.Result
	for d, vs := range errs {
		for tr, v := range vs {
			rs = append(rs, results.Result{Key: d + string(rune('0'+tr)), Dataset: d, Method: "en", Size: 10, Trial: tr,
				Metrics: map[string]float64{"error": v}})
		}
	}
	got := Check(sp, rs)
	if len(got.Rows) != 4 {
		t.Fatalf("%d rows; want 4", len(got.Rows))
	}
	want := []bool{true, false, true, false}
	for i, r := range got.Rows {
		if r.Pass != want[i] {
			t.Errorf("row %d (%s, expected %s): pass %v; want %v (measured %s)", i, r.What, r.Expected, r.Pass, want[i], r.Measured)
		}
	}
	if r := got.Rows[0]; r.What != "en vs en on g error" || !strings.Contains(r.Measured, "11.00 vs 12.33: by +1.33") || !strings.Contains(r.Measured, "3 pairs") {
		t.Errorf("row 0: what %q, measured %q; want en vs en on g, 11.00 vs 12.33 by +1.33 over 3 pairs", r.What, r.Measured)
	}
	if r := got.Rows[3]; !strings.Contains(r.Measured, `no dataset "x"`) {
		t.Errorf("unknown than_dataset: measured %q", r.Measured)
	}
}
