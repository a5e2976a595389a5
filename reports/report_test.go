package reports

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func fp(v float64) *float64 { return &v }

// fixture returns a spec and results covering every report section: a
// single-point baseline, a fixed grid (two series), a cv rule, an oracle
// test rule, a whole-curve method, failed trials and artifacts (written to
// dir with datasets.json).
func fixture(t testing.TB, dir string) (*spec.Spec, []results.Result) {
	sp := &spec.Spec{
		Name:        "toy2024-fig1-demo",
		Description: "A toy experiment for the report golden files | with a pipe.",
		Seed:        7,
		Datasets: []spec.DatasetSpec{{
			Name: "csv", ID: "toy", Params: param.Values{"file": "toy.csv", "label": "y"},
			Transforms: []spec.TransformSpec{{Name: "cooccurrence-graph", Params: param.Values{"k": 5}}},
			Split:      spec.Split{Kind: "holdout", Params: param.Values{"test": 100.0, "stratify": true}},
		}},
		Methods: []spec.MethodSpec{
			{Name: "logreg-l2", Label: "ridge LR", Grid: []param.Values{{"C": 1.0}}, Params: map[string]any{"C": 1.0}, Select: spec.Select{Rule: "fixed"}},
			{Name: "svm", Label: "svm", Grid: []param.Values{{"C": 1.0}, {"C": 10.0}}, Varying: []string{"C"},
				Params: map[string]any{"C": []any{1.0, 10.0}}, Select: spec.Select{Rule: "fixed"}},
			{Name: "fnr", Label: "fnr", Grid: []param.Values{{"rho": 0.1}, {"rho": 1.0}}, Varying: []string{"rho"},
				Params: map[string]any{"rho": []any{0.1, 1.0}}, Select: spec.Select{Rule: "cv", Folds: 5, Metric: "accuracy"}},
			{Name: "knn", Label: "knn", Grid: []param.Values{{"k": 1}, {"k": 5}}, Varying: []string{"k"},
				Params: map[string]any{"k": []any{1, 5}}, Select: spec.Select{Rule: "test", Metric: "accuracy"}},
			{Name: "active", Label: "active", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
		},
		Curve:    spec.Curve{Sizes: []float64{20, 50}, Trials: 3, Sampling: "balanced"},
		Metrics:  []string{"accuracy", "auc"},
		Baseline: "ridge LR",
		Expect: []spec.Expectation{
			{Dataset: "toy", Metric: "accuracy", Method: "fnr", Sizes: []float64{50}, Value: fp(80), Tol: fp(2), Source: "Paper, Fig. 1", Note: "read off the plot"},
			{Metric: "accuracy", Method: "ridge LR", Value: fp(60), RTol: fp(0.01), Source: "Paper, Table 2"},
			{Metric: "auc", Method: "svm (C=1)", Min: fp(0.5), Max: fp(1)},
			{Metric: "accuracy", Better: "fnr", Than: "ridge LR", By: 4, Sizes: []float64{20, 50}, Source: "Paper, Sec. 5"},
			{Metric: "accuracy", Method: "svm", Sizes: []float64{20}, Value: fp(70), Tol: fp(1)},
			{Metric: "accuracy", Method: "lasso", Value: fp(70), Tol: fp(1)},
			{Metric: "accuracy", Method: "svm (C=10)", Sizes: []float64{50}, Value: fp(70), Tol: fp(50)},
		},
	}
	// base accuracy per series; trial noise is deterministic.
	base := map[string]float64{"ridge LR": 60, "svm": 65, "fnr": 72, "knn": 68}
	noise := []float64{0.5, -1.25, 2}
	var recs []results.Result
	add := func(r results.Result) { r.Key = keyOf(len(recs)); recs = append(recs, r) }
	for _, m := range sp.Methods {
		if m.Label == "active" {
			continue
		}
		points := []int{0}
		if m.Select.Rule == "fixed" && len(m.Varying) > 0 {
			points = []int{0, 1}
		}
		for _, g := range points {
			for _, size := range []int{20, 50} {
				for tr := 0; tr < 3; tr++ {
					r := results.Result{Dataset: "toy", Method: m.Label, Plugin: m.Name, Size: size, Trial: tr,
						TrainRows: size, TestRows: 100, FitSeconds: 0.125 * float64(tr+1) * float64(g+1)}
					if m.Select.Rule == "fixed" && len(m.Varying) > 0 {
						r.Variant = map[string]any{"C": m.Grid[g]["C"]}
					}
					acc := base[m.Label] + float64(size)/5 + noise[tr]*float64(size)/20 + 3*float64(g)
					r.Metrics = map[string]float64{"accuracy": acc, "auc": acc / 100}
					switch m.Select.Rule {
					case "cv":
						r.SelectSeconds = 1.5
						r.Chosen = map[string]any{"rho": []float64{0.1, 1, 0.1}[tr]}
						if size == 50 {
							r.Chosen = map[string]any{"rho": 1.0}
						}
						score := acc - 1 - float64(tr)
						r.SelectScore = &score
					case "test":
						r.Oracle = true
						r.SelectSeconds = 0.5
						r.Chosen = map[string]any{"k": 5.0}
					}
					if m.Label == "svm" && g == 1 && size == 50 && tr == 2 {
						r.Metrics = nil
						r.Error = "svm: solver did not converge\nafter 1000 iterations"
					}
					if m.Label == "ridge LR" {
						r.Artifacts = writeArtifacts(t, dir, len(recs), tr)
					}
					add(r)
				}
			}
		}
	}
	// An unsized failure: the split failed before the size was known.
	add(results.Result{Dataset: "toy", Method: "knn", Plugin: "knn", Trial: 2, Error: "split: empty"})
	// A whole-curve trial: one result per trial with an observation per size.
	for tr := 0; tr < 3; tr++ {
		r := results.Result{Dataset: "toy", Method: "active", Plugin: "active", Trial: tr, Size: 50, FitSeconds: 2}
		if tr == 1 {
			r.Error = "panic: index out of range"
			add(r)
			continue
		}
		for _, size := range []int{20, 50} {
			acc := 70 + float64(size)/4 + float64(tr)
			r.Observations = append(r.Observations, results.Observation{X: float64(size), Metrics: results.Metrics{"accuracy": acc, "auc": acc / 100}})
		}
		r.Metrics = r.Observations[1].Metrics
		add(r)
	}
	info := map[string]results.DatasetInfo{"toy": {Plugin: "csv", Rows: 300, Cols: 12, Classes: []string{"neg", "pos"},
		Stats: map[string]float64{"graph_edges": 1234, "density": 0.125}, Notes: []string{"12 rows with missing values dropped"}}}
	writeJSON(t, filepath.Join(dir, results.DatasetsFile), info)
	return sp, recs
}

// writeJSON writes v as JSON to path.
func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func keyOf(i int) string { return "k" + strings.Repeat("0", 3-len(itoa(i))) + itoa(i) }

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

// writeArtifacts writes a coefficient table (with a null cell) and a path
// plot for result i.
func writeArtifacts(t testing.TB, dir string, i, trial int) []string {
	key := keyOf(i)
	if err := os.MkdirAll(filepath.Join(dir, "artifacts", key), 0o755); err != nil {
		t.Fatal(err)
	}
	tr := float64(trial)
	table := map[string]any{"Name": "coefficients", "Title": "Coefficients",
		"Table": map[string]any{"Columns": []string{"weight", "se"}, "Rows": []string{"x1", "x|2"},
			"Values": [][]any{{1 + tr, 0.1}, {-2 * tr, nil}}}}
	plot := map[string]any{"Name": "path", "Title": "Regularization path",
		"Plot": map[string]any{"XLabel": "C", "YLabel": "weight", "LogX": true,
			"Series": []map[string]any{{"Label": "x1", "X": []float64{0.1, 1, 10}, "Y": []float64{0.1, 0.5, 1 + tr}},
				{"Label": "x2", "X": []float64{0.1, 1, 10}, "Y": []float64{0, -1, -2}, "Points": true}}}}
	return saveArtifacts(t, dir, key, table, plot)
}

// saveArtifacts writes each artifact (the JSON form, named by its
// "Name") to dir/artifacts/key/ and returns their paths relative to dir,
// as Result.Artifacts lists them.
func saveArtifacts(t testing.TB, dir, key string, arts ...map[string]any) []string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "artifacts", key), 0o755); err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, a := range arts {
		rel := "artifacts/" + key + "/" + a["Name"].(string) + ".json"
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	return rels
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run go test -update after checking the change):\n%s", name, path, got)
	}
}

func TestWriteGolden(t *testing.T) {
	dir := t.TempDir()
	sp, recs := fixture(t, dir)
	if err := Write(dir, sp, recs); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ReportFile, SummaryFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name, b)
	}
	var out bytes.Buffer
	failed := WriteCheck(&out, Check(sp, recs))
	golden(t, "check.txt", out.Bytes())
	if failed != 5 {
		t.Errorf("WriteCheck returned %d failed, want 5", failed)
	}

	// Every PNG decodes with the plot size and renders identically again.
	again, err := Render(dir, sp, recs)
	if err != nil {
		t.Fatal(err)
	}
	wantPNG := []string{"artifact-toy-ridge_LR-path.png", "toy-accuracy.png", "toy-auc.png"}
	var gotPNG []string
	for name := range again {
		if strings.HasSuffix(name, ".png") {
			gotPNG = append(gotPNG, name)
		}
	}
	if len(gotPNG) != len(wantPNG) {
		t.Errorf("PNG files %v, want %v", gotPNG, wantPNG)
	}
	for _, name := range wantPNG {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// 672×432 for the plot, wider by a legend column when the
		// legend has more than five entries (the toy has six series).
		if sz := img.Bounds().Size(); sz.X < 672 || sz.Y != 432 {
			t.Errorf("%s: %v pixels, want 432 high and at least 672 wide", name, sz)
		}
		if !bytes.Equal(b, again[name]) {
			t.Errorf("%s differs between two renders", name)
		}
	}
}

// TestWriteRemovesStalePlots checks that a PNG left by an earlier render
// (a series or metric since renamed, linked from the earlier report.md)
// does not survive the next one, while other files in the directory do —
// including PNGs the earlier report did not link (the user's own).
func TestWriteRemovesStalePlots(t *testing.T) {
	dir := t.TempDir()
	sp, recs := fixture(t, dir)
	stale := filepath.Join(dir, "toy-old_metric.png")
	keep := filepath.Join(dir, "notes.txt")
	mine := filepath.Join(dir, "holiday.png")
	for _, p := range []string{stale, keep, mine} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldReport := "# old\n\n![old_metric on toy](toy-old_metric.png)\n\n![acc](toy-accuracy.png)\n"
	if err := os.WriteFile(filepath.Join(dir, ReportFile), []byte(oldReport), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, sp, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale plot survived: %v", err)
	}
	for _, p := range []string{keep, mine} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a file repro did not write was removed: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "toy-accuracy.png")); err != nil {
		t.Errorf("current plot missing: %v", err)
	}
}

func TestNiceTicksNoNegativeZero(t *testing.T) {
	for _, tk := range (niceTicks{}).Ticks(-1.2, 14) {
		if tk.Label == "-0" {
			t.Fatalf("tick labelled -0 in %+v", tk)
		}
	}
}

// TestFileName: names are made safe for files, and a long one is cut to
// maxFilePart bytes ending in a hash of the whole, so that two long names
// with one start still name two files.
func TestFileName(t *testing.T) {
	long := strings.Repeat("a", 300)
	for _, tc := range []struct{ in, want string }{
		{"iris", "iris"},
		{"LR (C=1)", "LR__C_1_"},
		{strings.Repeat("x", maxFilePart), strings.Repeat("x", maxFilePart)},
	} {
		if got := fileName(tc.in); got != tc.want {
			t.Errorf("fileName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	a, b := fileName(long+"1"), fileName(long+"2")
	if len(a) != maxFilePart || len(b) != maxFilePart || a == b || !strings.HasPrefix(a, "aaaa") {
		t.Errorf("long names: %q, %q; want %d bytes each, different, keeping their start", a, b, maxFilePart)
	}
	if fileName(long+"1") != a {
		t.Error("fileName is not deterministic")
	}
}
