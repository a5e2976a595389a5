package reports

import (
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// edgeSpec has three cv methods over three trials at two sizes: med's c
// axis (0.1, 1, 10) chosen at its smallest value in 5 of 6 trials; svm's
// kernel (names: no order) and ridge's beta (two values: every choice an
// end) never flagged; med-rho varies rho apart (select.over: c) and
// chooses c = 10, the largest, in every trial of rho=0.5. Two of ridge's
// fits stopped at their iteration cap.
func edgeSpec() (*spec.Spec, []results.Result) {
	cv := spec.Select{Rule: "cv", Folds: 3, Metric: "accuracy"}
	grid := func(name string, vals ...any) []param.Values {
		var g []param.Values
		for _, v := range vals {
			g = append(g, param.Values{name: v})
		}
		return g
	}
	var rhoGrid []param.Values
	for _, rho := range []float64{0.5, 1} {
		for _, c := range []float64{0.1, 1, 10} {
			rhoGrid = append(rhoGrid, param.Values{"rho": rho, "c": c})
		}
	}
	over := cv
	over.Over = []string{"c"}
	sp := &spec.Spec{
		Name:     "edges",
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d"}},
		Methods: []spec.MethodSpec{
			{Name: "med", Label: "med", Grid: grid("c", 0.1, 1.0, 10.0), Varying: []string{"c"}, Select: cv},
			{Name: "svm", Label: "svm", Grid: grid("kernel", "rbf", "poly", "linear"), Varying: []string{"kernel"}, Select: cv},
			{Name: "ridge", Label: "ridge", Grid: grid("beta", 1, 2), Varying: []string{"beta"}, Select: cv},
			{Name: "med", Label: "med-rho", Grid: rhoGrid, Varying: []string{"rho", "c"}, Select: over},
		},
		Curve:   spec.Curve{Sizes: []float64{10, 20}, Trials: 3},
		Metrics: []string{"accuracy"},
	}
	var rs []results.Result
	add := func(method string, variant map[string]any, size, trial int, chosen map[string]any, capped bool) {
		rs = append(rs, results.Result{Key: method + param.Values(variant).Label() + itoa(size) + itoa(trial), Dataset: "d", Method: method,
			Variant: variant, Size: size, Trial: trial, Chosen: chosen, NotConverged: capped, Metrics: results.Metrics{"accuracy": 80}})
	}
	for _, size := range []int{10, 20} {
		for tr := 0; tr < 3; tr++ {
			c := 0.1
			if size == 20 && tr == 2 {
				c = 1 // JSON numbers come back as float64
			}
			add("med", nil, size, tr, map[string]any{"c": c}, false)
			add("svm", nil, size, tr, map[string]any{"kernel": "rbf"}, false)
			add("ridge", nil, size, tr, map[string]any{"beta": 1.0}, size == 20 && tr > 0)
			add("med-rho", map[string]any{"rho": 0.5}, size, tr, map[string]any{"c": 10.0}, false)
			add("med-rho", map[string]any{"rho": 1.0}, size, tr, map[string]any{"c": 1.0}, false)
		}
	}
	return sp, rs
}

// A cv choice at an end of its numeric grid axis is flagged in the chosen
// hyperparameters table and warned of, in report.md and by Warnings; a
// fit stopped at its iteration cap is counted under Fit time and warned
// of.
func TestEdgeAndNotConverged(t *testing.T) {
	sp, rs := edgeSpec()
	md, _ := renderMD(t, sp, rs)
	for _, tt := range []struct{ series, want string }{
		{"med", "| med              | c=0.1 (3/3) ⚠ smallest c | c=0.1 (2/3) ⚠ smallest c |"},
		{"svm", "| svm              | kernel=rbf (3/3)         | kernel=rbf (3/3)         |"},
		{"ridge", "| ridge            | beta=1 (3/3)             | beta=1 (3/3)             |"},
		{"med-rho (rho=0.5)", "| med-rho (rho=0.5) | c=10 (3/3) ⚠ largest c  | c=10 (3/3) ⚠ largest c  |"},
		{"med-rho (rho=1)", "| med-rho (rho=1)  | c=1 (3/3)                | c=1 (3/3)                |"},
	} {
		if r := row(t, md, "### Chosen hyperparameters", tt.series); norm(r) != norm(tt.want) {
			t.Errorf("chosen row\n%s\nwant\n%s", r, tt.want)
		}
	}
	for _, want := range []string{
		"- ⚠ **Edge of the grid:** cross-validation chose the smallest c of the grid (0.1; grid 0.1 … 10) in 5 of 6 trials of med: the best value may lie beyond the grid; widen it.",
		"- ⚠ **Edge of the grid:** cross-validation chose the largest c of the grid (10; grid 0.1 … 10) in 6 of 6 trials of med-rho (rho=0.5)",
		"⚠ Not converged: trials whose final fit stopped at its iteration cap",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "Edge of the grid") != 2 {
		t.Errorf("%d edge warnings, want 2", strings.Count(md, "Edge of the grid"))
	}
	if r := norm(row(t, md, "### Fit time", "ridge")); !strings.HasSuffix(r, "| ⚠ 2 |") {
		t.Errorf("fit time row %q; want 2 not converged", r)
	}
	if r := norm(row(t, md, "### Fit time", "med")); !strings.HasSuffix(r, "| 0 | |") {
		t.Errorf("fit time row %q; want none not converged", r)
	}

	var got []string
	for _, w := range Warnings(sp, rs) {
		got = append(got, w.Error())
	}
	want := []string{
		"d / med: cross-validation chose the smallest c of the grid (0.1; grid 0.1 … 10) in 5 of 6 trials; widen the grid past it (see Chosen hyperparameters in report.md)",
		"d / med-rho (rho=0.5): cross-validation chose the largest c of the grid (10; grid 0.1 … 10) in 6 of 6 trials; widen the grid past it (see Chosen hyperparameters in report.md)",
		"2 of 30 trials ended with a fit stopped at its iteration cap before converging (d / ridge: 2); their results may be off: raise the method's iteration cap (max_iter or the like); report.md flags them under Fit time",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Without capped fits or edge choices the report is as before: no
	// column, no note, no warning.
	for i := range rs {
		rs[i].NotConverged = false
		rs[i].Chosen = map[string]any{"kernel": "rbf"}
	}
	sp.Methods = sp.Methods[1:2]
	md, _ = renderMD(t, sp, rs)
	if strings.Contains(md, "⚠") || strings.Contains(md, "not converged") || len(Warnings(sp, rs)) > 0 {
		t.Errorf("flags without cause:\n%s", md)
	}
}

// norm collapses the padding of a table row.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }
