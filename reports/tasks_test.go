package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// ovrFixture is a one-vs-rest experiment over three classes with the given
// training sizes: per-task binary errors of two series, trial noise
// deterministic.
func ovrFixture(t *testing.T, dir string, tasks string, sizes []int) (*spec.Spec, []results.Result) {
	sp := &spec.Spec{
		Name: "ovr", Seed: 1,
		Datasets: []spec.DatasetSpec{{Name: "iris", ID: "iris", Tasks: tasks, Split: spec.Split{Kind: "holdout", Params: param.Values{"test": 60.0, "stratify": false}}}},
		Methods: []spec.MethodSpec{
			{Name: "logreg-l2", Label: "LR", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
			{Name: "med", Label: "MED", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
		},
		Curve:   spec.Curve{Trials: 2, Sampling: "random"},
		Metrics: []string{"accuracy", "binary_errors"},
	}
	for _, s := range sizes {
		sp.Curve.Sizes = append(sp.Curve.Sizes, float64(s))
	}
	// Classes in datasets.json order the tasks (not alphabetical).
	info := map[string]results.DatasetInfo{"iris": {Plugin: "iris", Rows: 150, Cols: 4, Classes: []string{"setosa", "versicolor", "virginica"}}}
	b, _ := json.Marshal(info)
	if err := os.WriteFile(filepath.Join(dir, results.DatasetsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var recs []results.Result
	for mi, m := range []string{"LR", "MED"} {
		for _, size := range sizes {
			for tr := 0; tr < 2; tr++ {
				// Errors fall with size; MED makes fewer; trial 1 one more.
				base := 60 / float64(size) * float64(2-mi)
				per := map[string]float64{"setosa": 0, "versicolor": base + float64(tr), "virginica": base/2 + float64(tr)}
				r := results.Result{Key: keyOf(len(recs)), Dataset: "iris", Method: m, Plugin: "x", Size: size, Trial: tr,
					Metrics: map[string]float64{"accuracy": 90}}
				sum := 0.0
				for k, v := range per {
					r.Metrics["binary_errors/"+k] = v
					sum += v
				}
				r.Metrics["binary_errors"] = sum
				recs = append(recs, r)
			}
		}
	}
	return sp, recs
}

// section returns the "### binary_errors per task" section of a report.
func section(md string) string {
	i := strings.Index(md, "### binary_errors per task")
	if i < 0 {
		return ""
	}
	rest := md[i:]
	if j := strings.Index(rest[1:], "\n### "); j >= 0 {
		rest = rest[:j+2]
	}
	return rest
}

func TestTasksTable(t *testing.T) {
	tests := []struct {
		name   string
		tasks  string
		sizes  []int
		golden string // "" = no section
	}{
		{"few sizes", "one-vs-rest", []int{10, 20}, "tasks.md"},
		{"many sizes", "one-vs-rest", []int{10, 20, 30, 40, 60}, "tasks-largest.md"},
		{"not one-vs-rest", "", []int{10, 20}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			sp, recs := ovrFixture(t, dir, tt.tasks, tt.sizes)
			files, err := Render(dir, sp, recs)
			if err != nil {
				t.Fatal(err)
			}
			got := section(string(files[ReportFile]))
			if tt.golden == "" {
				if got != "" {
					t.Errorf("per-task section for a dataset without tasks:\n%s", got)
				}
				return
			}
			if got == "" {
				t.Fatalf("no per-task section in\n%s", files[ReportFile])
			}
			golden(t, tt.golden, []byte(got))
		})
	}
}

// writeSwitches writes result i's "switches" table: one column per task
// (or the single column "shared"), one row per kernel.
func writeSwitches(t *testing.T, dir string, i int, cols, rows []string, values [][]any) string {
	t.Helper()
	rel := "artifacts/" + keyOf(i) + "/switches.json"
	a := map[string]any{"Name": "switches", "Title": "MED kernel switches",
		"Table": map[string]any{"Columns": cols, "Rows": rows, "Values": values}}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "artifacts", keyOf(i)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestAcrossTasksTable: the per-task switch tables of the one-vs-rest MED
// series are summarized across tasks at the largest size (mean ŝ over tasks
// and trials · tasks above ½ out of the columns); a table with one
// "shared" column is summarized alike; a series with other kernels (rows)
// gets a table of its own; tables whose columns are not the tasks (LR's
// coefficients) are not summarized.
func TestAcrossTasksTable(t *testing.T) {
	dir := t.TempDir()
	sp, recs := ovrFixture(t, dir, "one-vs-rest", []int{10, 20})
	// A third series, with other kernels.
	sp.Methods = append(sp.Methods, spec.MethodSpec{Name: "med", Label: "MED2", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}})
	for _, r := range recs {
		if r.Method == "MED" {
			r.Method, r.Key = "MED2", keyOf(len(recs))
			recs = append(recs, r)
		}
	}
	tasks := []string{"setosa", "versicolor", "virginica"}
	kernels := []string{"poly:1", "rbf:1"}
	for i := range recs {
		r := &recs[i]
		tr := float64(r.Trial)
		switch r.Method {
		case "MED":
			// poly:1 on for one task in trial 0 and two in trial 1; rbf:1
			// off everywhere, one entry null.
			r.Artifacts = []string{writeSwitches(t, dir, i, tasks, kernels, [][]any{{0.9, 0.2 + 0.6*tr, 0.1}, {0.01, nil, 0.3}})}
		case "MED2":
			r.Artifacts = []string{writeSwitches(t, dir, i, tasks, []string{"rbf:2"}, [][]any{{0.6, 0.7, 0.1 * tr}})}
		case "LR":
			r.Artifacts = append(writeArtifacts(t, dir, i, r.Trial), writeSwitches(t, dir, i, []string{"shared"}, kernels, [][]any{{0.75}, {0.25 * tr}}))
		}
	}
	files, err := Render(dir, sp, recs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[ReportFile])
	i := strings.Index(md, "### switches across tasks")
	if i < 0 {
		t.Fatalf("no across-tasks section in\n%s", md)
	}
	got := md[i:]
	if j := strings.Index(got, "\n### Fit time"); j >= 0 {
		got = got[:j+1]
	}
	if strings.Contains(md, "coefficients across tasks") {
		t.Errorf("the coefficients table (columns weight, se) is summarized across tasks")
	}
	golden(t, "across-tasks.md", []byte(got))
}
