package conformance_test

import (
	"context"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
)

// TestCompactColumns: on a sparse training set whose rows use few of
// its columns (a LIBSVM file with one large index), the linear models
// fit on the present columns alone and score a row's other columns 0:
// their predictions are, bit for bit, those of the same model fitted on
// the present columns, on test rows that also hold entries in columns
// the training rows never used.
func TestCompactColumns(t *testing.T) {
	train, test := memoryProblem(60, 1<<20+500, 8, false, false)
	cols := methods.PresentColumns(train.X)
	if cols == nil || len(cols) > 60*8 {
		t.Fatalf("PresentColumns kept %d of %d columns", len(cols), train.Cols())
	}
	narrow := *train
	narrow.X, narrow.Graphs = methods.SelectColumns(train.X, cols), nil
	if methods.PresentColumns(narrow.X) != nil {
		t.Fatal("the narrow training set is compacted again")
	}
	// Test rows with entries outside the training columns.
	absent := 0
	test.X.Row(0, func(j int, _ float64) {
		if _, ok := slices.BinarySearch(cols, j); !ok {
			absent++
		}
	})
	if absent == 0 {
		t.Fatal("no test entry outside the training columns")
	}
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{method: "logreg-l2"},
		{method: "logreg-l2", params: map[string]any{"solver": "tron"}},
		{method: "logreg-l1"},
		{method: "logreg-en"},
		{method: "svm"},
	} {
		pl, err := methods.Lookup(c.method)
		if err != nil {
			t.Fatal(err)
		}
		p := resolve(t, "method "+c.method, pl.Params, c.params)
		fit := func(d *datasets.Dataset) methods.Model {
			m, err := pl.New(p)
			if err != nil {
				t.Fatal(err)
			}
			model, err := m.Fit(context.Background(), d, &methods.Env{Seed: seed, Memo: new(methods.Memo)})
			if err != nil {
				t.Fatalf("%s: %v", c.method, err)
			}
			return model
		}
		wide := fit(train).Predict(test.X)
		want := fit(&narrow).Predict(methods.SelectColumns(test.X, cols))
		if !slices.Equal(wide.Scores, want.Scores) || wide.K != want.K {
			t.Errorf("%s%v: scores on the wide rows differ from the fit on the present columns", c.method, c.params)
		}
		if s := methods.ShapeOf(train, test.Rows()); s.FitCols() != len(cols) {
			t.Errorf("ShapeOf: FitCols() = %d, want %d", s.FitCols(), len(cols))
		}
	}
}
