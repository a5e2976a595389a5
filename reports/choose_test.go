package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// chooseSpec returns a spec with datasets a, b and c, a cv method m over
// two grid points choosing by metric, report.choose "best" among a and b,
// and an expectation on best.
func chooseSpec(metric string) *spec.Spec {
	return &spec.Spec{
		Name:     "t",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "a"}, {Name: "csv", ID: "b"}, {Name: "csv", ID: "c"}},
		Methods: []spec.MethodSpec{{Name: "p", Label: "m", Grid: []param.Values{{"c": 1.0}, {"c": 2.0}}, Varying: []string{"c"},
			Select: spec.Select{Rule: "cv", Folds: 3, Metric: metric}}},
		Curve:   spec.Curve{Sizes: []float64{10}, Trials: 6},
		Metrics: []string{metric},
		Report:  spec.ReportSpec{Choose: []spec.DatasetChoice{{ID: "best", Among: []string{"a", "b"}}}},
	}
}

func TestChooseDatasets(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	// Per trial: a's and b's select score and test value; nil score: none
	// recorded; "fail": the trial failed; "missing": not stored.
	type member struct {
		score *float64
		value float64
		state string
	}
	trials := []struct {
		a, b member
		// want: the dataset chosen, "" for no result, or an error fragment.
		want string
	}{
		{member{score(80), 70, ""}, member{score(85), 60, ""}, "b"},
		{member{score(90), 71, ""}, member{score(85), 61, ""}, "a"},
		{member{score(85), 72, ""}, member{score(85), 62, ""}, "a"}, // tie: the first listed
		{member{score(85), 73, ""}, member{score(90), 63, "fail"}, "error: dataset b: solver diverged"},
		{member{score(85), 74, "missing"}, member{score(90), 64, ""}, ""},
		{member{nil, 75, ""}, member{score(90), 65, ""}, "error: dataset a: no select score"},
	}
	for _, metric := range []string{"accuracy", "error"} {
		sp := chooseSpec(metric)
		var rs []results.Result
		for tr, tt := range trials {
			for _, m := range []struct {
				id string
				member
			}{{"a", tt.a}, {"b", tt.b}} {
				if m.state == "missing" {
					continue
				}
				r := results.Result{Key: m.id + string(rune('0'+tr)), Dataset: m.id, Method: "m", Plugin: "p", Size: 10, Trial: tr,
					Chosen: map[string]any{"c": 1.0}, SelectScore: m.score, Metrics: map[string]float64{metric: m.value}}
				if m.state == "fail" {
					r.Metrics, r.Error = nil, "solver diverged"
				}
				rs = append(rs, r)
			}
			// c is not among the choice: its scores must not count.
			rs = append(rs, results.Result{Key: "c" + string(rune('0'+tr)), Dataset: "c", Method: "m", Size: 10, Trial: tr,
				SelectScore: score(99), Metrics: map[string]float64{metric: 99}})
		}
		got := map[int]results.Result{}
		for _, r := range chooseDatasets(sp, rs, nil) {
			if r.Dataset != "best" {
				t.Errorf("%s: chosen result under dataset %q, want best", metric, r.Dataset)
			}
			got[r.Trial] = r
		}
		for tr, tt := range trials {
			want := tt.want
			if metric == "error" && tr < 3 {
				// Lower is better: the other of each pair, ties still to a.
				want = map[int]string{0: "a", 1: "b", 2: "a"}[tr]
			}
			r, ok := got[tr]
			switch {
			case want == "":
				if ok {
					t.Errorf("%s trial %d: chose %v, want no result while a member is missing", metric, tr, r.Chosen["dataset"])
				}
			case strings.HasPrefix(want, "error: "):
				if !ok || !strings.Contains(r.Error, strings.TrimPrefix(want, "error: ")) || r.Metrics != nil {
					t.Errorf("%s trial %d: got error %q metrics %v, want a failure containing %q", metric, tr, r.Error, r.Metrics, strings.TrimPrefix(want, "error: "))
				}
			default:
				if !ok || r.Chosen["dataset"] != want || r.Chosen["c"] != 1.0 || r.Failed() {
					t.Errorf("%s trial %d: chose %v (%q), want %s", metric, tr, r.Chosen, r.Error, want)
					continue
				}
				wantValue := map[string]float64{"a": tt.a.value, "b": tt.b.value}[want]
				if r.Metrics[metric] != wantValue {
					t.Errorf("%s trial %d: %s %v, want %s's %v", metric, tr, metric, r.Metrics[metric], want, wantValue)
				}
			}
		}
		// The members' own results are not changed by the copies.
		for _, r := range rs {
			if _, has := r.Chosen["dataset"]; has {
				t.Fatalf("%s: member result of %s changed: %v", metric, r.Dataset, r.Chosen)
			}
		}
	}
}

// TestCheckChosenDataset checks an expectation on a report.choose id: the
// mean over the trials of the chosen datasets' values.
func TestCheckChosenDataset(t *testing.T) {
	sp := chooseSpec("accuracy")
	sp.Curve.Trials = 2
	score := func(v float64) *float64 { return &v }
	rs := []results.Result{
		{Key: "a0", Dataset: "a", Method: "m", Size: 10, Trial: 0, SelectScore: score(80), Metrics: map[string]float64{"accuracy": 70}},
		{Key: "b0", Dataset: "b", Method: "m", Size: 10, Trial: 0, SelectScore: score(81), Metrics: map[string]float64{"accuracy": 90}},
		{Key: "a1", Dataset: "a", Method: "m", Size: 10, Trial: 1, SelectScore: score(82), Metrics: map[string]float64{"accuracy": 80}},
		{Key: "b1", Dataset: "b", Method: "m", Size: 10, Trial: 1, SelectScore: score(81), Metrics: map[string]float64{"accuracy": 60}},
	}
	for _, tt := range []struct {
		value float64
		pass  bool
	}{{85, true}, {75, false}} { // the chosen: b's 90 and a's 80
		sp.Expect = []spec.Expectation{{Dataset: "best", Metric: "accuracy", Method: "m", Value: fp(tt.value), Tol: fp(0.5)}}
		c := Check(sp, rs)
		if len(c.Rows) != 1 || c.Rows[0].Pass != tt.pass || !strings.HasPrefix(c.Rows[0].Measured, "85.00") {
			t.Errorf("value %v: rows %+v, want one with 85.00 measured, pass %v", tt.value, c.Rows, tt.pass)
		}
	}
}

// TestWriteChosenDataset checks report.md for a report.choose dataset:
// its own section, naming its members, and the choice beside the chosen
// hyperparameters.
func TestWriteChosenDataset(t *testing.T) {
	sp := chooseSpec("accuracy")
	sp.Curve.Trials = 1
	score := func(v float64) *float64 { return &v }
	rs := []results.Result{
		{Key: "a0", Dataset: "a", Method: "m", Size: 10, Trial: 0, Chosen: map[string]any{"c": 2.0}, SelectScore: score(80), Metrics: map[string]float64{"accuracy": 70}},
		{Key: "b0", Dataset: "b", Method: "m", Size: 10, Trial: 0, Chosen: map[string]any{"c": 1.0}, SelectScore: score(81), Metrics: map[string]float64{"accuracy": 90}},
	}
	dir := t.TempDir()
	if err := Write(dir, sp, rs); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, best, ok := strings.Cut(string(md), "## Dataset best\n")
	if !ok {
		t.Fatalf("no section for dataset best:\n%s", md)
	}
	for _, want := range []string{
		"- Chosen in each trial among the datasets a, b:",
		"c=1 dataset=b (1/1), cv accuracy 81.00",
		"90.00",
	} {
		if !strings.Contains(best, want) {
			t.Errorf("section of best lacks %q:\n%s", want, best)
		}
	}
}
