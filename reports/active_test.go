package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// activeFixture is a small active-learning experiment: two datasets, a
// baseline (DDR) that leads PCA-L1 at every batch by a margin that
// varies between trials, and INCR, equal to DDR but at the last batch,
// where it trails by a constant. Trials record the full-pool AUC at their
// last batch.
func activeFixture() (*spec.Spec, []results.Result) {
	sp := &spec.Spec{
		Name: "toy2012-fig6-active",
		Seed: 1,
		Datasets: []spec.DatasetSpec{
			{Name: "citeseer", ID: "citeseer", Split: spec.Split{Kind: "kfold", Params: param.Values{"folds": 2, "repeats": 2}}},
			{Name: "cora", ID: "cora", Split: spec.Split{Kind: "kfold", Params: param.Values{"folds": 2, "repeats": 2}}},
		},
		Methods: []spec.MethodSpec{
			{Name: "ddr", Label: "DDR", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
			{Name: "logreg-l1", Label: "PCA-L1", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
			{Name: "incr", Label: "INCR", Grid: []param.Values{{}}, Select: spec.Select{Rule: "fixed"}},
		},
		Protocol: spec.ProtocolSpec{Name: "active", Params: param.Values{"initial": 10, "batch": 10, "budget": 40, "strategy": "random", "full": true}},
		Curve:    spec.Curve{Trials: 4, Sampling: "random"},
		Metrics:  []string{"auc"},
		Baseline: "DDR",
	}
	xs := []float64{10, 20, 30, 40}
	// DDR's curve per trial; the other series are offsets from it.
	ddr := [][]float64{
		{0.60, 0.70, 0.80, 0.84},
		{0.62, 0.72, 0.78, 0.86},
		{0.58, 0.71, 0.79, 0.85},
		{0.61, 0.69, 0.81, 0.83},
	}
	l1gap := []float64{0.05, 0.03, 0.04, 0.06}
	var recs []results.Result
	for di, ds := range []string{"citeseer", "cora"} {
		for _, m := range []string{"DDR", "PCA-L1", "INCR"} {
			for tr := 0; tr < 4; tr++ {
				r := results.Result{Key: keyOf(len(recs)), Dataset: ds, Method: m, Plugin: m, Trial: tr, Size: 40, TrainRows: 40, TestRows: 100}
				for i, x := range xs {
					v := ddr[tr][i] + 0.01*float64(di)
					switch {
					case m == "PCA-L1":
						v -= l1gap[tr]
					case m == "INCR" && i == len(xs)-1:
						v -= 0.02
					}
					o := results.Observation{X: x, Metrics: results.Metrics{"auc": v}}
					if i == len(xs)-1 {
						// DDR's full-pool score is the best: the target.
						full := map[string]float64{"DDR": 0.86, "PCA-L1": 0.85, "INCR": 0.855}[m]
						o.Extras = results.Metrics{results.FullPrefix + "auc": full + 0.01*float64(di)}
					}
					r.Observations = append(r.Observations, o)
				}
				r.Metrics = r.Observations[len(xs)-1].Metrics
				recs = append(recs, r)
			}
		}
	}
	return sp, recs
}

func TestActiveSummaryGolden(t *testing.T) {
	sp, recs := activeFixture()
	files, err := Render(t.TempDir(), sp, recs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[ReportFile])
	i := strings.Index(md, "## Active learning summary")
	if i < 0 {
		t.Fatalf("report.md has no active-learning summary:\n%s", md)
	}
	section := md[i:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+2]
	}
	golden(t, "active.md", []byte(section))

	// The numbers, independently of the golden file.
	for _, want := range []string{
		// DDR vs PCA-L1 by the default test, design-t over the 4
		// trials (2 folds × 2 repeats, refolded: no split repeated):
		// the gaps {0.05, 0.03, 0.04, 0.06} give t = 6.97 (p = 0.006)
		// at every batch, four wins. Vs INCR: ties at the first three
		// batches (no difference), and a constant lead at the last,
		// which leaves no spread: the sign test's p = 2^(1−4) = 0.125,
		// a tie too.
		"| citeseer |        4 |        0 |        0 |", "| citeseer |        0 |        4 |        0 |",
		"two-sided paired t-test (design-t) over the trials",
		// DDR on citeseer: per trial (0.65 + 0.75 + 0.82)/3 = 0.74,
		// 0.7467, 0.7383, 0.74; mean 0.74125.
		"| DDR    | 0.741 ± 0.004 |",
		// 98% of the best full-pool 0.86 (DDR's) is 0.8428: DDR's mean
		// at 40 labels (0.845) reaches it, INCR's (0.825) does not.
		"| DDR                     |                             40 |",
		"| INCR                    | not reached (best 0.825 at 40) |",
		"| full pool (best series) |                          0.860 |",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("summary lacks %q:\n%s", want, section)
		}
	}
}

// With report.test corrected-t, DDR vs PCA-L1 (mean gap 0.045, sd
// 0.0129) gets t = 0.045/(0.0129·√(1/4 + 100/x)): 1.09 at x = 10, 2.10
// at x = 40 (p = 0.13, df 3): four ties, and the note names the test.
func TestActiveWTLCorrectedT(t *testing.T) {
	sp, recs := activeFixture()
	sp.Report.Test = TestCorrectedT
	var w bytes.Buffer
	build(sp, recs).writeActive(&w)
	for _, want := range []string{"| citeseer |        0 |        4 |        0 |", "two-sided corrected resampled t-test (Nadeau & Bengio 2003: variance × (1/J + n_test/n_train)) over the trials"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, w.String())
		}
	}
}

// Another protocol writes no active-learning summary.
func TestActiveSummaryOnlyForActive(t *testing.T) {
	sp, recs := activeFixture()
	sp.Protocol = spec.ProtocolSpec{}
	var w bytes.Buffer
	build(sp, recs).writeActive(&w)
	if w.Len() != 0 {
		t.Errorf("curve protocol: wrote %q", w.String())
	}
}

func TestAULC(t *testing.T) {
	for _, tc := range []struct {
		xs, ys []float64
		want   float64
	}{
		{[]float64{10, 20, 30}, []float64{0.6, 0.8, 0.8}, (0.7*10 + 0.8*10) / 20},
		{[]float64{10, 30}, []float64{0.5, 0.9}, 0.7},
		{[]float64{10, 20, 40}, []float64{1, 1, 1}, 1},
		{[]float64{10}, []float64{0.4}, 0.4},
		{nil, nil, math.NaN()},
		{[]float64{10, 20}, []float64{0.5, math.NaN()}, math.NaN()},
	} {
		got := aulc(tc.xs, tc.ys)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("aulc(%v, %v) = %v, want %v", tc.xs, tc.ys, got, tc.want)
		}
	}
}

// With one trial per series no iteration has two pairs: W/T/L is "—",
// not 0/0/0.
func TestActiveWTLUntested(t *testing.T) {
	sp, recs := activeFixture()
	var one []results.Result
	for _, r := range recs {
		if r.Trial == 0 {
			one = append(one, r)
		}
	}
	var w bytes.Buffer
	build(sp, one).writeActive(&w)
	if !strings.Contains(w.String(), "| citeseer |        — |        — |        — |") {
		t.Errorf("one trial: want — rows:\n%s", w.String())
	}
}

// Series that set their own query strategy and run on some datasets
// only: the W/T/L column group names both strategies, a series absent
// from a dataset has no series there and a — row, the setup lists what
// each method sets, and a baseline absent from a dataset leaves its W/T/L
// there uncomputed with the reason.
func TestActiveSeriesOwnStrategyAndDatasets(t *testing.T) {
	sp, recs := activeFixture()
	sp.Report.Test = TestT // the counts below are the plain t-test's
	sp.Methods[2].Protocol = param.Values{"strategy": "uncertainty"}
	sp.Methods[2].Datasets = []string{"citeseer"}
	var kept []results.Result
	for _, r := range recs {
		if r.Method != "INCR" || r.Dataset == "citeseer" {
			kept = append(kept, r)
		}
	}
	files, err := Render(t.TempDir(), sp, kept)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[ReportFile])
	for _, want := range []string{
		"- INCR: protocol {strategy=uncertainty}; runs only on citeseer\n",
		"Query strategy: random; set by the method: INCR: uncertainty.",
		"| dataset  | random vs uncertainty W | random vs uncertainty T | random vs uncertainty L |",
		"| citeseer |                       0 |                       4 |                       0 |", // a constant lead: p = 0.125
		"| cora     |                       — |                       — |                       — |",
		"| dataset  | random W | random T | random L |", // DDR vs PCA-L1: one strategy
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	m := build(sp, kept)
	for _, d := range m.datasets {
		_, err := d.find("INCR")
		if (err == nil) != (d.id == "citeseer") {
			t.Errorf("dataset %s: INCR series found: %v; want it on citeseer only", d.id, err == nil)
		}
	}

	// The baseline itself on citeseer only.
	sp.Methods[2].Datasets = nil
	sp.Methods[0].Datasets = []string{"citeseer"}
	kept = kept[:0]
	for _, r := range recs {
		if r.Method != "DDR" || r.Dataset == "citeseer" {
			kept = append(kept, r)
		}
	}
	files, err = Render(t.TempDir(), sp, kept)
	if err != nil {
		t.Fatal(err)
	}
	md = string(files[ReportFile])
	for _, want := range []string{
		"Not computed: DDR does not run on dataset cora (its datasets:).",
		"| cora     |        — |        — |        — |",
		"| citeseer |        4 |        0 |        0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
