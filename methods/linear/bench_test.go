package linear

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/matrix"
)

var (
	benchOnce             sync.Once
	benchDense, benchCSR  *datasets.Dataset
	benchRegD, benchRegSp *datasets.Dataset
)

// benchData builds a 3000×240 dense binary problem (the size of the DNA
// splice data) and a 10000×20000 sparse one with 50 non-zeros per row (a
// bag-of-words problem), with labels from a noisy sparse linear rule, plus
// regression versions of both.
func benchData() {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(42, 1))
		benchDense = synthClass(42, 3000, 240, 2, 0.15, 0.5)
		benchRegD = synthReg(42, 3000, 240, 0.5)
		const n, d, nnz = 10000, 20000, 50
		beta := make([]float64, d)
		for j := range beta {
			if rng.Float64() < 0.05 {
				beta[j] = rng.NormFloat64()
			}
		}
		b := matrix.NewBuilder(d)
		y := make([]float64, n)
		t := make([]float64, n)
		for i := 0; i < n; i++ {
			s := 0.0
			for k := 0; k < nnz; k++ {
				j := rng.IntN(d)
				v := 1 + rng.Float64()
				b.Add(j, v)
				s += v * beta[j]
			}
			b.EndRow()
			t[i] = s + 0.3*rng.NormFloat64()
			if t[i] > 0 {
				y[i] = 1
			}
		}
		X := b.Build()
		benchCSR = &datasets.Dataset{Name: "sparse", X: X, Y: y, Classes: []string{"neg", "pos"}}
		benchRegSp = &datasets.Dataset{Name: "sparse-reg", X: X, Y: t}
	})
}

func benchFit(b *testing.B, name string, params map[string]any, data func() *datasets.Dataset) {
	benchData()
	d := data()
	m := newMethod(b, name, params)
	b.ResetTimer()
	for range b.N {
		if _, err := m.Fit(b.Context(), d, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogRegL2Dense(b *testing.B) {
	benchFit(b, "logreg-l2", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchDense })
}

func BenchmarkLogRegL2Sparse(b *testing.B) {
	benchFit(b, "logreg-l2", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchCSR })
}

func BenchmarkLogRegL1Dense(b *testing.B) {
	benchFit(b, "logreg-l1", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchDense })
}

func BenchmarkLogRegL1Sparse(b *testing.B) {
	benchFit(b, "logreg-l1", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchCSR })
}

func BenchmarkRidgeDense(b *testing.B) {
	benchFit(b, "ridge", map[string]any{"lambda": 1.0}, func() *datasets.Dataset { return benchRegD })
}

func BenchmarkRidgeSparse(b *testing.B) {
	benchFit(b, "ridge", map[string]any{"lambda": 1.0}, func() *datasets.Dataset { return benchRegSp })
}

// dnaTrain returns the first 2000 rows of the embedded DNA splice data
// (3 classes, 180 indicator bits, about 25% non-zero), the size of the
// bench/liblinear training set.
func dnaTrain(b testing.TB) *datasets.Dataset {
	d, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		b.Fatal(err)
	}
	return d.Subset(d.Indices()[:2000])
}

func BenchmarkLogRegL1DNA(b *testing.B) {
	d := dnaTrain(b)
	for _, C := range []float64{1, 10} {
		b.Run(fmt.Sprintf("C=%g", C), func(b *testing.B) {
			benchFit(b, "logreg-l1", map[string]any{"C": C}, func() *datasets.Dataset { return d })
		})
	}
}

func BenchmarkLogRegL2DNA(b *testing.B) {
	d := dnaTrain(b)
	for _, C := range []float64{1, 10} {
		b.Run(fmt.Sprintf("C=%g", C), func(b *testing.B) {
			benchFit(b, "logreg-l2", map[string]any{"C": C}, func() *datasets.Dataset { return d })
		})
	}
}

func BenchmarkLogRegL2Solvers(b *testing.B) {
	benchData()
	dna := dnaTrain(b)
	for _, data := range []*datasets.Dataset{dna, benchDense, benchCSR} {
		for _, C := range []float64{1, 10} {
			for _, solver := range []string{"tron", "lbfgs"} {
				b.Run(fmt.Sprintf("%s/C=%g/%s", data.Name, C, solver), func(b *testing.B) {
					benchFit(b, "logreg-l2", map[string]any{"C": C, "solver": solver}, func() *datasets.Dataset { return data })
				})
			}
		}
	}
}
