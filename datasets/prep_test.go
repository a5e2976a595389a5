package datasets

import (
	"slices"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// TestRefit checks the refit of a loader's preprocessing on the training
// rows: a missing numeric value gets the training rows' mean, a missing
// categorical value each dummy's training mean, and a category seen only
// in the test rows leaves every dummy of its row zero.
func TestRefit(t *testing.T) {
	// Columns: x, c=a, c=b, c=z (z only in row 4, a test row). Rows 0–2
	// train, 3–4 test; row 1 misses x, row 2 misses c, row 3 misses x.
	// The loader's values (means over every row) are placeholders 99.
	X := matrix.NewDense(5, 4, []float64{
		1, 1, 0, 0,
		99, 0, 1, 0,
		3, 99, 99, 99,
		99, 1, 0, 0,
		100, 0, 0, 1,
	})
	d := &Dataset{Name: "t", X: X, Y: make([]float64, 5), Prep: &Prep{
		Missing: [][]int{nil, {0}, {1, 2, 3}, {0}, nil},
		Dummies: [][]int{{1, 2, 3}},
		Imputed: true,
	}}
	train, test := d.Subset([]int{0, 1, 2}), d.Subset([]int{3, 4})
	tr, te, err := Refit(train, test)
	if err != nil {
		t.Fatal(err)
	}
	wantTrain := []float64{
		1, 1, 0, 0,
		2, 0, 1, 0,
		3, 0.5, 0.5, 0,
	}
	wantTest := []float64{
		2, 1, 0, 0,
		100, 0, 0, 0, // c=z never seen in training: no category
	}
	if got := tr.X.(*matrix.Dense).RawData(); !slices.Equal(got, wantTrain) {
		t.Errorf("train: %v; want %v", got, wantTrain)
	}
	if got := te.X.(*matrix.Dense).RawData(); !slices.Equal(got, wantTest) {
		t.Errorf("test: %v; want %v", got, wantTest)
	}
	if X.At(1, 0) != 99 {
		t.Error("Refit changed the dataset's matrix")
	}
	// Without a record, the sets come back as they are.
	plain := &Dataset{X: X, Y: make([]float64, 5)}
	if a, b, err := Refit(plain.Subset([]int{0}), plain.Subset([]int{1})); err != nil || a.Prep != nil || b.X.At(0, 0) != 99 {
		t.Errorf("no record: %v %v", a.X, err)
	}
}
