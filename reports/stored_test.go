package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// storedFixture writes a results directory as an active-learning run
// leaves it — results.jsonl with several observations per trial carrying
// extras, datasets.json, artifacts — for a spec whose dataset, transform,
// protocol and methods are plugins this binary does not have. It returns
// the spec (as spec.ReadSpec would read it from the directory) and the
// path of results.jsonl.
func storedFixture(t *testing.T, dir string) (*spec.Spec, string) {
	sp := &spec.Spec{
		Name: "gone2031-active-demo",
		Seed: 11,
		Datasets: []spec.DatasetSpec{{
			Name: "gone-corpus", ID: "pool", Params: param.Values{"rows": 120},
			Transforms: []spec.TransformSpec{{Name: "gone-pca", Params: param.Values{"components": 8}, Fit: "pool"}},
			Split:      spec.Split{Kind: "kfold", Params: param.Values{"folds": 3, "repeats": 1}},
		}},
		Methods: []spec.MethodSpec{
			{Name: "gone-uncertainty", Label: "uncertainty", Grid: []param.Values{{"dims": 5}, {"dims": 10}}, Varying: []string{"dims"},
				Params: map[string]any{"dims": []any{5, 10}}, Select: spec.Select{Rule: "fixed"}},
			{Name: "gone-random", Label: "random", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
		},
		Protocol: spec.ProtocolSpec{Name: "gone-active", Params: param.Values{"initial": 10, "batch": 10, "budget": 40}},
		Curve:    spec.Curve{Trials: 3},
		Metrics:  []string{"accuracy"},
		Baseline: "random",
		// accuracy is a metric (tabled once) and components is named
		// twice (tabled once).
		Report: spec.ReportSpec{Y: []string{"components", "accuracy", "dictionary", "components"}},
		Expect: []spec.Expectation{
			{Metric: "accuracy", Better: "uncertainty (dims=10)", Than: "random", Sizes: []float64{40}, Source: "Paper, Fig. 3"},
		},
	}
	noise := []float64{0.5, -1, 1.5}
	var lines [][]byte
	add := func(r results.Result) {
		r.Key = keyOf(len(lines))
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	for _, v := range []param.Values{{"dims": 5}, {"dims": 10}, nil} {
		label, plugin := "uncertainty", "gone-uncertainty"
		if v == nil {
			label, plugin = "random", "gone-random"
		}
		dims := 0.0
		if d, ok := v["dims"].(int); ok {
			dims = float64(d)
		}
		for tr := 0; tr < 3; tr++ {
			r := results.Result{Dataset: "pool", Method: label, Plugin: plugin, Variant: v, Trial: tr,
				TrainRows: 40, TestRows: 40, FitSeconds: 0.25 * float64(tr+1)}
			if v == nil && tr == 2 {
				r.Error = "gone-active: pool exhausted"
				add(r)
				continue
			}
			for i, x := range []float64{10, 20, 30, 40} {
				o := results.Observation{X: x, Metrics: results.Metrics{"accuracy": 50 + x/2 + dims + noise[tr]}}
				if v != nil {
					o.Extras = results.Metrics{"components": min(dims, 2+float64(i+tr))}
					if dims == 10 {
						o.Extras["dictionary"] = 100 + 2*x + float64(tr)
					}
					if dims == 5 && tr == 2 && x == 40 {
						delete(o.Extras, "components") // recorded no value here
					}
				}
				r.Observations = append(r.Observations, o)
			}
			last := r.Observations[len(r.Observations)-1]
			r.Size, r.Metrics = 40, last.Metrics
			if dims == 5 && tr < 2 {
				r.Artifacts = writeArtifacts(t, dir, len(lines), tr)
			}
			add(r)
		}
	}
	path := filepath.Join(dir, results.ResultsFile)
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	info := map[string]results.DatasetInfo{"pool": {Plugin: "gone-corpus", Rows: 120, Cols: 8, Classes: []string{"a", "b", "c"}}}
	writeJSON(t, filepath.Join(dir, results.DatasetsFile), info)
	return sp, path
}

// TestRenderStoredWithoutPlugins renders a results directory whose
// plugins are not compiled in: the report reads only the stored spec and
// observations, tables and plots every x of a multi-observation trial,
// and the extras report.y names.
func TestRenderStoredWithoutPlugins(t *testing.T) {
	dir := t.TempDir()
	sp, path := storedFixture(t, dir)
	for _, ds := range sp.Datasets {
		if _, err := datasets.Lookup(ds.Name); err == nil {
			t.Fatalf("dataset plugin %q is registered; the test needs one that is not", ds.Name)
		}
	}
	for _, ms := range sp.Methods {
		if _, err := methods.Lookup(ms.Name); err == nil {
			t.Fatalf("method plugin %q is registered; the test needs one that is not", ms.Name)
		}
	}
	recs, warns, err := results.ReadResults(path)
	if err != nil || len(warns) > 0 {
		t.Fatalf("reading %s: %v %v", path, err, warns)
	}
	if err := Write(dir, sp, recs); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "stored-report.md", b)
	files, err := Render(dir, sp, recs)
	if err != nil {
		t.Fatal(err)
	}
	var pngs []string
	for name := range files {
		if strings.HasSuffix(name, ".png") {
			pngs = append(pngs, name)
		}
	}
	slices.Sort(pngs)
	want := []string{"artifact-pool-uncertainty__dims_5_-path.png", "pool-accuracy.png", "pool-components.png", "pool-dictionary.png"}
	if !slices.Equal(pngs, want) {
		t.Errorf("PNG files %v, want %v", pngs, want)
	}
	sum := string(files[SummaryFile])
	for _, line := range []string{
		"pool,uncertainty (dims=10),uncertainty,40,dictionary,3,0,181,1,180,182",
		"pool,uncertainty (dims=5),uncertainty,40,components,2,0,5,0,5,5",
	} {
		if !strings.Contains(sum, line+"\n") {
			t.Errorf("summary.csv lacks %q:\n%s", line, sum)
		}
	}
	if strings.Contains(sum, "random,random,10,components") {
		t.Errorf("summary.csv has an extra for a series that recorded none:\n%s", sum)
	}
}
