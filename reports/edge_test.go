package reports

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// renderMD renders spec's results in a scratch directory and returns
// report.md.
func renderMD(t *testing.T, sp *spec.Spec, rs []results.Result) (string, map[string][]byte) {
	t.Helper()
	files, err := Render(t.TempDir(), sp, rs)
	if err != nil {
		t.Fatal(err)
	}
	return string(files[ReportFile]), files
}

// row returns the table row of report.md that starts with "| cell " in the
// section after heading.
func row(t *testing.T, md, heading, cell string) string {
	t.Helper()
	i := strings.Index(md, heading)
	if i < 0 {
		t.Fatalf("no %q in report:\n%s", heading, md)
	}
	for _, line := range strings.Split(md[i:], "\n") {
		if strings.HasPrefix(line, "| "+cell+" ") {
			return line
		}
	}
	t.Fatalf("no row %q after %q in report:\n%s", cell, heading, md[i:])
	return ""
}

// Win/Tie/Loss against a hand computation: a − b = {2, 2, 5, 5} has mean
// 3.5, sd √3 ≈ 1.7321, t = 3.5/(√3/2) = 4.0415 with 3 df, and the closed
// form of Student's t with 3 df, P(|T| > t) = 1 − (2/π)(x/(1+x²) + atan x)
// with x = t/√3, gives p = 0.0273. Accuracy is higher-better: a wins;
// mse is lower-better: the same numbers are a loss. Differences {1, −1,
// 2, 0}: t = 0.7746, p = 0.4950, a tie.
func TestWinTieLossHandComputed(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []float64
		acc    string // accuracy row cell
		mse    string // mse row cell
		totals string
	}{
		{"significant", []float64{82, 84, 87, 92}, []float64{80, 82, 82, 87}, "win (p=0.027)", "loss (p=0.027)", "1/0/0"},
		{"not significant", []float64{81, 79, 84, 87}, []float64{80, 80, 82, 87}, "tie (p=0.495)", "tie (p=0.495)", "0/1/0"},
		{"identical", []float64{80, 82, 84, 86}, []float64{80, 82, 84, 86}, "tie (p=1.000)", "tie (p=1.000)", "0/1/0"},
		// Constant differences leave no spread: the sign test's p = 2^(1−4).
		{"one point ahead every trial", []float64{81, 83, 85, 87}, []float64{80, 82, 84, 86}, "tie (p=0.125)", "tie (p=0.125)", "0/1/0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, rs := twoSeries(map[string][]float64{"a": tc.a, "b": tc.b})
			sp.Curve.Trials = 4
			sp.Baseline = "b"
			md, _ := renderMD(t, sp, rs)
			for _, c := range []struct{ metric, want string }{{"accuracy", tc.acc}, {"mse", tc.mse}} {
				r := row(t, md, "#### Win/Tie/Loss against b ("+c.metric+")", "a")
				if !strings.Contains(r, c.want) {
					t.Errorf("%s row %q, want %q", c.metric, r, c.want)
				}
			}
			if r := row(t, md, "#### Win/Tie/Loss against b (accuracy)", "a"); !strings.Contains(r, "| "+tc.totals+" |") {
				t.Errorf("accuracy totals %q, want %s", r, tc.totals)
			}
		})
	}
}

// A metric that is NaN in some successful trials (the AUC of a test set
// with one class) is reported as undefined, not as a missing or failed
// trial; one NaN in every trial leaves "undefined (n)".
func TestReportUndefinedMetric(t *testing.T) {
	sp, rs := twoSeries(map[string][]float64{"a": {80, 90, 70}, "b": {60, 70, 80}})
	sp.Curve.Trials = 3
	for i := range rs {
		if rs[i].Method == "a" && rs[i].Trial > 0 {
			rs[i].Metrics["mse"] = math.NaN()
		}
		if rs[i].Method == "b" {
			rs[i].Metrics["mse"] = math.NaN()
		}
	}
	md, files := renderMD(t, sp, rs)
	if r := row(t, md, "### mse", "a"); !strings.Contains(r, "80.00 (n=1, 2 undefined)") {
		t.Errorf("a's mse row %q, want 80.00 (n=1, 2 undefined)", r)
	}
	if r := row(t, md, "### mse", "b"); !strings.Contains(r, "undefined (3)") {
		t.Errorf("b's mse row %q, want undefined (3)", r)
	}
	if !strings.Contains(md, "undefined: the trial succeeded but the metric has no value") {
		t.Error("no note explaining undefined values")
	}
	if r := row(t, md, "### accuracy", "a"); strings.Contains(r, "undefined") || strings.Contains(r, "n=") {
		t.Errorf("accuracy row %q mentions missing values", r)
	}
	if !strings.Contains(string(files[SummaryFile]), "d,b,b,10,mse,0,0,,,,") {
		t.Errorf("summary.csv:\n%s", files[SummaryFile])
	}
}

// A method whose every trial failed, a single trial (no sd, no test) and
// a label with Markdown characters and a very long name.
func TestReportAllFailedSingleTrialOddLabels(t *testing.T) {
	long := strings.Repeat("very long label ", 12) + "end"
	odd := "a*b* | c_d_ <e>"
	sp := &spec.Spec{
		Name:     "t",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d"}},
		Methods: []spec.MethodSpec{
			{Name: "p", Label: odd, Grid: []param.Values{{}}},
			{Name: "p", Label: "broken", Grid: []param.Values{{}}},
			{Name: "p", Label: long, Grid: []param.Values{{}}},
		},
		Curve:    spec.Curve{Sizes: []float64{10}, Trials: 1},
		Metrics:  []string{"accuracy"},
		Baseline: odd,
	}
	rs := []results.Result{
		{Key: "1", Dataset: "d", Method: odd, Size: 10, Metrics: map[string]float64{"accuracy": 90}},
		{Key: "2", Dataset: "d", Method: "broken", Size: 10, Error: "boom\nstack"},
		{Key: "3", Dataset: "d", Method: long, Size: 10, Metrics: map[string]float64{"accuracy": 80}},
	}
	md, files := renderMD(t, sp, rs)
	esc := `a\*b\* \| c\_d\_ \<e>`
	if r := row(t, md, "### accuracy", esc); !strings.Contains(r, "**90.00**") || strings.Contains(r, "±") {
		t.Errorf("single-trial row %q, want **90.00** without an sd", r)
	}
	if r := row(t, md, "### accuracy", "broken"); !strings.Contains(r, "failed (1)") {
		t.Errorf("all-failed row %q, want failed (1)", r)
	}
	if r := row(t, md, "#### Win/Tie/Loss", "broken"); !strings.Contains(r, "—") || !strings.Contains(r, "0/0/0") {
		t.Errorf("W/T/L of a failed series %q, want — and 0/0/0", r)
	}
	if !strings.Contains(md, "#### Win/Tie/Loss against "+`a\*b\* | c\_d\_ \<e>`) {
		t.Errorf("baseline heading not escaped:\n%s", md)
	}
	if !strings.Contains(md, "- d / broken / size 10 / trial 0: boom …") {
		t.Errorf("failed trial not listed:\n%s", md)
	}
	img, err := png.Decode(bytes.NewReader(files["d-accuracy.png"]))
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != 672 || sz.Y != 432 {
		t.Errorf("plot with a long legend label is %v pixels, want 672×432", sz)
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"L2 LR":        "L2 LR",
		"a*b":          `a\*b`,
		"x_1 `c` ~s~":  "x\\_1 \\`c\\` \\~s\\~",
		`back\slash`:   `back\\slash`,
		"<b>bold</b>":  `\<b>bold\</b>`,
		"knn [oracle]": "knn [oracle]",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

// Two series whose labels differ only in characters file names cannot
// hold ("L/R" and "L_R") get one artifact plot each, not one between them.
func TestArtifactPlotNamesDistinct(t *testing.T) {
	dir := t.TempDir()
	sp := &spec.Spec{
		Name:     "t",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d"}},
		Methods: []spec.MethodSpec{
			{Name: "p", Label: "L/R", Grid: []param.Values{{}}},
			{Name: "p", Label: "L_R", Grid: []param.Values{{}}},
		},
		Curve:   spec.Curve{Sizes: []float64{10}, Trials: 1},
		Metrics: []string{"accuracy"},
	}
	var rs []results.Result
	for i, label := range []string{"L/R", "L_R"} {
		rs = append(rs, results.Result{Key: keyOf(i), Dataset: "d", Method: label, Size: 10,
			Metrics: map[string]float64{"accuracy": 90}, Artifacts: writeArtifacts(t, dir, i, i)})
	}
	files, err := Render(dir, sp, rs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[ReportFile])
	for _, name := range []string{"artifact-d-L_R-path.png", "artifact-d-L_R-path-2.png"} {
		if files[name] == nil || !strings.Contains(md, "]("+name+")") {
			t.Errorf("%s: written %v, linked %v", name, files[name] != nil, strings.Contains(md, "]("+name+")"))
		}
	}
	if bytes.Equal(files["artifact-d-L_R-path.png"], files["artifact-d-L_R-path-2.png"]) {
		t.Error("the two series' plots are the same image")
	}
}

// An expectation on a metric that is NaN in every trial says so rather
// than "no results".
func TestCheckUndefinedMetric(t *testing.T) {
	sp, rs := twoSeries(map[string][]float64{"a": {80, 90}, "b": {60, 70}},
		spec.Expectation{Metric: "mse", Method: "a", Max: fp(1)})
	for i := range rs {
		rs[i].Metrics["mse"] = math.NaN()
	}
	c := Check(sp, rs)
	if len(c.Rows) != 1 || c.Rows[0].Pass || c.Rows[0].Measured != "mse undefined (NaN) in all 2 trials of a at size 10" {
		t.Errorf("rows %+v", c.Rows)
	}
}

// Two spec sizes that come to the same number of rows (90 and 0.5 of a
// pool of 180) give one observation per trial at that size, not two.
func TestSameResolvedSizeCountedOnce(t *testing.T) {
	sp, _ := twoSeries(nil)
	sp.Curve = spec.Curve{Sizes: []float64{90, 0.5}, Trials: 2}
	var rs []results.Result
	for i, v := range []float64{70, 80, 71, 81} { // sizes 90 then 0.5, trials 0 and 1
		rs = append(rs, results.Result{Key: keyOf(i), Dataset: "d", Method: "a", Size: 90, Trial: i % 2,
			Metrics: map[string]float64{"accuracy": v, "mse": 1}})
	}
	m := build(sp, rs)
	vals, trials := m.datasets[0].series[0].cells[90].values("accuracy")
	if fmt.Sprint(vals) != "[70 80]" || fmt.Sprint(trials) != "[0 1]" {
		t.Errorf("cell at 90: values %v trials %v; want [70 80] from trials [0 1]", vals, trials)
	}
}

// An extra of one-observation trials (Result.Extras), named in report.y
// of a sweep over a method parameter, is tabled per series and size and
// plotted against the parameter like a metric.
func TestReportExtraInSweep(t *testing.T) {
	sp := &spec.Spec{
		Name:     "t",
		Datasets: []spec.DatasetSpec{{Name: "gone", ID: "d"}},
		Methods: []spec.MethodSpec{{Name: "gone-lasso", Label: "lasso", Grid: []param.Values{{"c": 0.1}, {"c": 1.0}},
			Varying: []string{"c"}, Select: spec.Select{Rule: "fixed"}}},
		Curve:   spec.Curve{Sizes: []float64{10}, Trials: 2},
		Metrics: []string{"mse"},
		Report:  spec.ReportSpec{X: "c", Y: []string{"support"}},
	}
	var rs []results.Result
	for g, c := range []float64{0.1, 1} {
		for tr := 0; tr < 2; tr++ {
			rs = append(rs, results.Result{Key: itoa(len(rs)), Dataset: "d", Method: "lasso", Variant: map[string]any{"c": c},
				Size: 10, Trial: tr, Metrics: results.Metrics{"mse": 1 - c/2}, Extras: results.Metrics{"support": float64(3 + 4*g + tr)}})
		}
	}
	md, files := renderMD(t, sp, rs)
	if r := row(t, md, "### support (recorded by the trials)", "lasso (c=1)"); !strings.Contains(r, "7.50 ± 0.71") {
		t.Errorf("support row %q, want 7.50 ± 0.71", r)
	}
	if _, ok := files["d-support.png"]; !ok {
		t.Errorf("no d-support.png among %d files", len(files))
	}
	m := build(sp, rs)
	f := m.sweepFigure(m.datasets[0], "support")
	if len(f.curves) != 1 || fmt.Sprint(f.curves[0].x, f.curves[0].y) != "[0.1 1] [3.5 7.5]" {
		t.Errorf("sweep of support: %+v, want one curve x [0.1 1], y [3.5 7.5]", f.curves)
	}
}

// A select rule registered as an oracle under any name (here "peek") is
// flagged as the test rule is — in the methods table, on its series with
// no result yet, and by the note — from Selector.Oracle, not its name;
// a choosing rule that is no oracle is not.
func TestOracleFromSelector(t *testing.T) {
	spec.Selectors.Register("peek", &spec.Selector{Doc: "chooses on the test rows (test fixture)", Chooses: true, Oracle: true})
	spec.Selectors.Register("fair", &spec.Selector{Doc: "chooses on the training rows (test fixture)", Chooses: true})
	sp, rs := twoSeries(map[string][]float64{"a": {80, 90}})
	sp.Methods[0].Select.Rule = "fair"
	sp.Methods[1].Select.Rule = "peek"
	md, _ := renderMD(t, sp, rs)
	if r := row(t, md, "| method ", "b [oracle]"); !strings.Contains(r, "peek") {
		t.Errorf("methods row of b: %q", r)
	}
	if !strings.Contains(md, "[oracle] marks a method whose hyperparameters were chosen on the test set") {
		t.Error("no oracle note")
	}
	if strings.Contains(md, "a [oracle]") {
		t.Error("a choosing rule that is no oracle is flagged")
	}
	if r := row(t, md, "### accuracy", "b [oracle]"); r == "" {
		t.Error("no results row of b flagged")
	}
}
