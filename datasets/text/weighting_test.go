package text

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/memtest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// TestWeightingTransform: the weighting transform as an experiment runs
// it, each weighting against values computed by hand, the input left as
// it was, and a negative value refused.
func TestWeightingTransform(t *testing.T) {
	tr, err := datasets.LookupTransform("weighting")
	if err != nil {
		t.Fatal(err)
	}
	counts := func() *datasets.Dataset {
		b := matrix.NewBuilder(3)
		b.Add(0, 1)
		b.Add(2, 3)
		b.EndRow()
		b.EndRow()
		b.Add(1, 7)
		b.EndRow()
		return &datasets.Dataset{Name: "c", X: b.Build(), Y: []float64{0, 1, 0}, Classes: []string{"a", "b"}}
	}
	tests := []struct {
		w    string
		want [][]float64
	}{
		{"log", [][]float64{{math.Log(2), 0, math.Log(4)}, {0, 0, 0}, {0, math.Log(8), 0}}},
		{"binary", [][]float64{{1, 0, 1}, {0, 0, 0}, {0, 1, 0}}},
		{"count", [][]float64{{1, 0, 3}, {0, 0, 0}, {0, 7, 0}}},
	}
	for _, tt := range tests {
		in := counts()
		out, err := tr.Apply(context.Background(), datasets.Env{}, in, param.Values{"weighting": tt.w})
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Validate(); err != nil {
			t.Fatal(err)
		}
		for i, row := range tt.want {
			got := make([]float64, 3)
			out.X.Row(i, func(j int, v float64) { got[j] = v })
			for j := range row {
				if math.Abs(got[j]-row[j]) > 1e-15 {
					t.Errorf("%s: row %d = %v; want %v", tt.w, i, got, row)
					break
				}
			}
		}
		if in.X.(*matrix.CSR).Val[1] != 3 || len(out.Notes) != 1 {
			t.Errorf("%s: input modified or no note: %v %v", tt.w, in.X.(*matrix.CSR).Val, out.Notes)
		}
	}
	neg := counts()
	neg.X.(*matrix.CSR).Val[0] = -1
	if _, err := tr.Apply(context.Background(), datasets.Env{}, neg, param.Values{"weighting": "log"}); err == nil {
		t.Error("a negative count: no error")
	}
}

// TestWeightingMemory checks the estimate against what Apply allocates.
func TestWeightingMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 300, 2000
	b := matrix.NewBuilder(d)
	for range n {
		for j := range d {
			if rng.IntN(40) == 0 {
				b.Add(j, float64(1+rng.IntN(5)))
			}
		}
		b.EndRow()
	}
	X := b.Build()
	ds := &datasets.Dataset{Name: "t", X: X, Y: make([]float64, n)}
	tr, _ := datasets.LookupTransform("weighting")
	p := param.Values{"weighting": "binary"}
	got := memtest.Allocated(func() {
		if _, err := tr.Apply(context.Background(), datasets.Env{}, ds, p); err != nil {
			t.Fatal(err)
		}
	})
	memtest.Check(t, "sparse", tr.Memory(n, d, X.NNZ(), p), got)
}
