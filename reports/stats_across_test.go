package reports

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// acrossFixture has Demšar's (2006) 14 × 4 layout of AUCs (the scores of
// TestFriedmanScipy) as 14 datasets of 4 series, two trials each whose
// mean is the score.
func acrossFixture() (*spec.Spec, []results.Result) {
	scores := [][]float64{{0.763, 0.768, 0.771, 0.798}, {0.599, 0.591, 0.590, 0.569}, {0.954, 0.971, 0.968, 0.967}, {0.628, 0.661, 0.654, 0.657}, {0.882, 0.888, 0.886, 0.898}, {0.936, 0.931, 0.916, 0.931}, {0.661, 0.668, 0.609, 0.685}, {0.583, 0.583, 0.563, 0.625}, {0.775, 0.838, 0.866, 0.875}, {1.000, 1.000, 1.000, 1.000}, {0.940, 0.962, 0.965, 0.962}, {0.619, 0.666, 0.614, 0.669}, {0.972, 0.981, 0.975, 0.975}, {0.957, 0.978, 0.946, 0.970}}
	methods := []string{"C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"}
	sp := &spec.Spec{Name: "across", Curve: spec.Curve{Sizes: []float64{20}, Trials: 2}, Metrics: []string{"auc"}}
	for _, name := range methods {
		sp.Methods = append(sp.Methods, spec.MethodSpec{Name: "p", Label: name, Grid: []param.Values{{}}})
	}
	var rs []results.Result
	for i, row := range scores {
		id := fmt.Sprintf("d%02d", i+1)
		sp.Datasets = append(sp.Datasets, spec.DatasetSpec{Name: "csv", ID: id})
		for j, v := range row {
			for tr, off := range []float64{-0.0005, 0.0005} {
				rs = append(rs, results.Result{Key: keyOf(len(rs)), Dataset: id, Method: methods[j], Size: 20, Trial: tr,
					TrainRows: 20, TestRows: 50, Metrics: results.Metrics{"auc": v + off}})
			}
		}
	}
	return sp, rs
}

func TestAcrossDatasets(t *testing.T) {
	sp, rs := acrossFixture()
	files, err := Render(t.TempDir(), sp, rs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[ReportFile])
	i := strings.Index(md, "## Across datasets")
	if i < 0 {
		t.Fatalf("no across-datasets section:\n%s", md)
	}
	section := md[i:]
	golden(t, "across-datasets.md", []byte(section))
	// scipy.stats.friedmanchisquare on these scores: 10.952, p = 0.0120;
	// Iman–Davenport 13·10.952/(14·3 − 10.952) = 4.59; CD = 2.569·√(20/84).
	for _, want := range []string{
		"| C4.5      |         3.14 |",
		"Friedman χ² = 10.95 (df 3), p=0.012; Iman–Davenport F = 4.59 (df 3, 39), p=0.008.",
		"CD = 1.25 (q = 2.569, 4 series, 14 datasets)",
		// The largest gap, 3.14 − 1.93 = 1.21, is below CD: as Demšar
		// found, the post-hoc test at 0.05 separates no pair.
		"No two series' average ranks differ by CD or more.",
		"![critical-difference diagram of auc](cd-auc.png)",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("section lacks %q:\n%s", want, section)
		}
	}
	img, err := png.Decode(bytes.NewReader(files["cd-auc.png"]))
	if err != nil {
		t.Fatalf("cd-auc.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 672 {
		t.Errorf("cd-auc.png is %v, want 672 pixels wide", b)
	}
	// The diagram itself: gonum/plot renders byte-identically.
	golden(t, "cd-auc.png", files["cd-auc.png"])

	// Fewer than three datasets: no section.
	sp.Datasets = sp.Datasets[:2]
	files, err = Render(t.TempDir(), sp, rs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(files[ReportFile]), "## Across datasets") {
		t.Errorf("an across-datasets section with 2 datasets")
	}
}

// TestCliques checks the groups the diagram joins.
func TestCliques(t *testing.T) {
	ranks := []float64{1.93, 2, 2.93, 3.14}
	for _, tc := range []struct {
		cd   float64
		want string
	}{
		{1.25, "[[0 3]]"},            // all within CD: one group
		{1.0, "[[0 1] [1 2] [2 3]]"}, // 2.93 − 1.93 is not below 1
		{0.05, "[]"},                 // every pair apart
	} {
		if got := fmt.Sprint(cliques(ranks, tc.cd)); got != tc.want {
			t.Errorf("cliques(CD %v) = %v, want %v", tc.cd, got, tc.want)
		}
	}
	if got := cliques([]float64{1, 3, 5}, 1); len(got) != 0 {
		t.Errorf("no group expected, got %v", got)
	}
}
