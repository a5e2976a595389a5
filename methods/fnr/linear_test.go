package fnr_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	_ "github.com/repro-ml/repro/methods/fnr"
	_ "github.com/repro-ml/repro/methods/linear"
	"github.com/repro-ml/repro/param"
)

func fit(t *testing.T, name string, over param.Values, train *datasets.Dataset) *methods.Prediction {
	t.Helper()
	pl, err := methods.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p := param.Defaults(pl.Params)
	for k, v := range over {
		p[k] = v
	}
	m, err := pl.New(p)
	if err != nil {
		t.Fatal(err)
	}
	model, err := m.Fit(context.Background(), train, &methods.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return model.Predict(train.X)
}

// TestAlphaZeroIsLogRegL2: fnr(α = 0, β) minimizes Σ loss + β‖w‖², which is
// logreg-l2's ½‖w‖² + C Σ loss at C = 1/(2β) (times C), with the same
// multi-class scheme: one binary model for two classes, softmax for more.
func TestAlphaZeroIsLogRegL2(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, K := range []int{2, 4} {
		n, d := 80, 10
		b := matrix.NewBuilder(d)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			y[i] = float64(i % K)
			for j := 0; j < d; j++ {
				if r.Float64() < 0.4 {
					b.Add(j, r.Float64()+0.2*float64((j+i%K)%3))
				}
			}
			b.EndRow()
		}
		X := b.Build()
		g := matrix.NewCSR(d, d, make([]int, d+1), nil, nil)
		train := &datasets.Dataset{Name: "toy", X: X, Y: y, Classes: make([]string, K), Graphs: map[string]*matrix.CSR{"feature": g}}
		beta := 0.2
		got := fit(t, "fnr", param.Values{"alpha": 0.0, "beta": beta, "max_iter": 2000, "tol": 1e-10}, train)
		scheme := "softmax"
		if K == 2 {
			scheme = "ovr" // liblinear's single binary model
		}
		want := fit(t, "logreg-l2", param.Values{"C": 1 / (2 * beta), "multiclass": scheme, "max_iter": 2000, "tol": 1e-10}, train)
		for i := 0; i < n; i++ {
			for c := 1; c < K; c++ {
				dg := got.Score(i, c) - got.Score(i, 0)
				dw := want.Score(i, c) - want.Score(i, 0)
				if K == 2 {
					dw = want.Score(i, 1) // logreg-l2 scores a binary row (−f, f)
				}
				if math.Abs(dg-dw) > 1e-4*math.Max(1, math.Abs(dw)) {
					t.Fatalf("K=%d row %d class %d: fnr(α=0) %.8g, logreg-l2 %.8g", K, i, c, dg, dw)
				}
			}
		}
	}
}
