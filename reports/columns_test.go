package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// kfoldRuns returns a 5-fold × 2 spec with curve.sizes [1] (every trial
// trains on its four folds) and methods a and b, and its results as a run
// of 1,532 rows stores them: folds 0–1 of each repeat train on 1,225 rows,
// the others on 1,226; b beats a by 1 + a little noise in every trial. fail
// makes that trial of a fail before its size was resolved.
func kfoldRuns(t *testing.T, fail int, expect ...spec.Expectation) (*spec.Spec, []results.Result) {
	t.Helper()
	sp := &spec.Spec{
		Name: "kfold",
		Seed: 40,
		Datasets: []spec.DatasetSpec{{Name: "csv", ID: "d",
			Split: spec.Split{Kind: "kfold", Params: param.Values{"folds": 5, "repeats": 2, "stratify": true, "refold": true}}}},
		Methods: []spec.MethodSpec{
			{Name: "p", Label: "a", Grid: []param.Values{{}}},
			{Name: "p", Label: "b", Grid: []param.Values{{}}},
		},
		Curve:   spec.Curve{Sizes: []float64{1}},
		Metrics: []string{"accuracy"},
		Expect:  expect,
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Trials) != 20 {
		t.Fatalf("%d trials planned, want 20", len(plan.Trials))
	}
	var recs []results.Result
	for _, tr := range plan.Trials {
		r := results.Result{Key: tr.Key, Dataset: "d", Method: tr.Method.Label, Trial: tr.Index, Size: 1226, TrainRows: 1226, TestRows: 306}
		if tr.Index%5 < 2 {
			r.Size, r.TrainRows, r.TestRows = 1225, 1225, 307
		}
		acc := 90 + float64(tr.Index%3)/10
		if tr.Method.Label == "b" {
			acc += 1 + float64(tr.Index%2)/100
		}
		r.Metrics = results.Metrics{"accuracy": acc}
		if tr.Method.Label == "a" && tr.Index == fail {
			r.Size, r.TrainRows, r.TestRows, r.Metrics, r.Error = 0, 0, 0, nil, "failed"
		}
		recs = append(recs, r)
	}
	return sp, recs
}

// TestKFoldOneColumn: the trials of one requested size are one column
// whatever rows each fold trained on — one cell, one paired test, one
// Friedman cell — and expectations find it by the size the spec writes
// as well as by either row count (issue 40 §2).
func TestKFoldOneColumn(t *testing.T) {
	sp, recs := kfoldRuns(t, -1)
	m := build(sp, recs)
	d := m.datasets[0]
	if len(d.xs) != 1 || d.xs[0] != 1226 {
		t.Fatalf("x values %v, want the one column [1226]", d.xs)
	}
	if h := d.sizeHeader(); len(h) != 1 || h[0] != "1225–1226" {
		t.Errorf("size header %q, want [1225–1226]", h)
	}
	for _, s := range d.series {
		if n := len(s.cells[1226].obs); n != 10 {
			t.Errorf("%s: %d trials in the column, want 10", s.name, n)
		}
	}
	a, _ := d.find("a")
	b, _ := d.find("b")
	if tt := m.compare(d, b.cells[1226], a.cells[1226], "accuracy"); tt.N != 10 {
		t.Errorf("paired test over %d pairs, want 10", tt.N)
	}

	// sizes: the requested size, or either row count, is the column.
	for _, size := range []float64{1, 1225, 1226} {
		e := spec.Expectation{Metric: "accuracy", Better: "b", Than: "a", Sizes: []float64{size}}
		sp, recs := kfoldRuns(t, -1, e)
		c := Check(sp, recs)
		if len(c.Rows) != 1 {
			t.Fatalf("sizes [%v]: %d rows, want 1: %+v", size, len(c.Rows), c.Rows)
		}
		r := c.Rows[0]
		if !r.Pass || r.X != 1226 || r.Pairs != 10 {
			t.Errorf("sizes [%v]: pass %v at x %v over %d pairs, want a pass at 1226 over 10: %+v", size, r.Pass, r.X, r.Pairs, r)
		}
	}
	wtl := spec.Expectation{Metric: "accuracy", WTL: spec.WTLCount{Series: "b", Than: "a", Wins: ip(1), Ties: ip(0), Losses: ip(0)}}
	if c := Check(kfoldRuns(t, -1, wtl)); len(c.Rows) != 1 || !c.Rows[0].Pass || c.Rows[0].Pairs != 1 {
		t.Errorf("W/T/L over the one column: %+v", c.Rows)
	}

	// The report: one column, no partial n, one W/T/L test.
	files, err := Render(t.TempDir(), sp, recs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[ReportFile])
	if !strings.Contains(md, "| series \\ size |") || !strings.Contains(md, "1225–1226") || strings.Contains(md, "(n=") {
		t.Errorf("report.md does not show one column of 10 trials:\n%s", md)
	}

	// A trial that failed before its rows were drawn counts in the
	// column, not beside it.
	sp, recs = kfoldRuns(t, 3)
	m = build(sp, recs)
	d = m.datasets[0]
	a, _ = d.find("a")
	if len(d.xs) != 1 || a.failedAt(1226) != 1 || len(a.cells[1226].obs) != 9 {
		t.Errorf("with a failed trial: xs %v, %d failed and %d finished at 1226; want [1226], 1 and 9", d.xs, a.failedAt(1226), len(a.cells[1226].obsOrNil()))
	}
}

// TestKFoldDiffOneRow: diff pairs the trials of one requested size as one
// row, whatever rows each fold trained on.
func TestKFoldDiffOneRow(t *testing.T) {
	sp, recs := kfoldRuns(t, -1)
	d, err := Compare(sp, recs, sp, recs, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 2 {
		var b bytes.Buffer
		for _, r := range d.Rows {
			b.WriteString(r.Series + " " + fmtX(r.X) + "\n")
		}
		t.Fatalf("%d rows, want one per series:\n%s", len(d.Rows), b.String())
	}
	for _, r := range d.Rows {
		if r.X != 1226 || r.Pairs != 10 {
			t.Errorf("%s: x %v, %d pairs; want 1226 and 10", r.Series, r.X, r.Pairs)
		}
	}
}
