package logistic_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

var (
	_ methods.Model    = (*logistic.Model)(nil)
	_ methods.Informer = (*logistic.Model)(nil)
)

func randCSR(r *rand.Rand, n, d int, density float64) *matrix.CSR {
	b := matrix.NewBuilder(d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if r.Float64() < density {
				b.Add(j, r.NormFloat64())
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// TestGradientFiniteDifferences checks Eval's gradient against central
// differences for binary and multinomial problems, with and without
// virtual features and penalty terms.
func TestGradientFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, d = 12, 5
	X := randCSR(r, n, d, 0.6)
	tests := []struct {
		name string
		D    int
		pen  logistic.Penalty
	}{
		{"unpenalized", d, logistic.Penalty{}},
		{"ridge", d, logistic.Penalty{Ridge: 0.3}},
		{"term", d, logistic.Penalty{Ridge: 0.1, Terms: []logistic.Term{{B: randCSR(r, 4, d, 0.5), Coef: 2}}}},
		{"virtual features", d + 2, logistic.Penalty{Ridge: 0.1, Terms: []logistic.Term{{B: randCSR(r, 6, d+2, 0.5), Coef: 0.7}, {B: randCSR(r, 3, d+2, 0.5), Coef: 0}}}},
	}
	for _, tt := range tests {
		for _, K := range []int{2, 3} {
			y := make([]int, n)
			for i := range y {
				y[i] = i % K
			}
			p := &logistic.Problem{X: X, Y: y, K: K, D: tt.D, Pen: tt.pen}
			x := make([]float64, p.NumParams())
			for i := range x {
				x[i] = r.NormFloat64()
			}
			g := make([]float64, len(x))
			f := p.Eval(x, g)
			if f2 := p.Eval(x, nil); f2 != f {
				t.Errorf("%s K=%d: Eval without gradient %v, with %v", tt.name, K, f2, f)
			}
			const h = 1e-6
			for i := range x {
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				fd := (p.Eval(xp, nil) - p.Eval(xm, nil)) / (2 * h)
				if math.Abs(fd-g[i]) > 1e-5*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s K=%d: d/dx[%d]: analytic %.8g, finite difference %.8g", tt.name, K, i, g[i], fd)
				}
			}
		}
	}
}

func ExampleTrain() {
	// Two separable points per class on one feature; a ridge penalty keeps
	// the weights finite.
	X := matrix.ToCSR(matrix.NewDense(4, 1, []float64{-2, -1, 1, 2}))
	p := &logistic.Problem{X: X, Y: []int{0, 0, 1, 1}, K: 2, D: 1, Pen: logistic.Penalty{Ridge: 0.1}}
	m, err := logistic.Train(context.Background(), p, optim.Settings{MaxIter: 100, GradTol: 1e-8})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := m.Predict(matrix.NewDense(2, 1, []float64{-3, 3}))
	fmt.Println(pred.Label(0), pred.Label(1), m.Weight(0, 0) > 0, m.Info().Converged)
	// Output: 0 1 true true
}

// TestGramTermMatchesB checks that a term given by its Gram matrix Q = BᵀB
// has the value and gradient of the same term given by B.
func TestGramTermMatchesB(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, d, D = 10, 6, 8
	X := randCSR(r, n, d, 0.5)
	B := randCSR(r, 11, D, 0.4)
	for _, K := range []int{2, 4} {
		y := make([]int, n)
		for i := range y {
			y[i] = i % K
		}
		withB := &logistic.Problem{X: X, Y: y, K: K, D: D, Pen: logistic.Penalty{Ridge: 0.2, Terms: []logistic.Term{{B: B, Coef: 1.7}}}}
		withQ := &logistic.Problem{X: X, Y: y, K: K, D: D, Pen: logistic.Penalty{Ridge: 0.2, Terms: []logistic.Term{{Q: logistic.Gram(B), Coef: 1.7}}}}
		x := make([]float64, withB.NumParams())
		for i := range x {
			x[i] = r.NormFloat64()
		}
		gB, gQ := make([]float64, len(x)), make([]float64, len(x))
		fB, fQ := withB.Eval(x, gB), withQ.Eval(x, gQ)
		if math.Abs(fB-fQ) > 1e-12*math.Abs(fB) {
			t.Errorf("K=%d: value with B %v, with BᵀB %v", K, fB, fQ)
		}
		for i := range gB {
			if math.Abs(gB[i]-gQ[i]) > 1e-12*math.Max(1, math.Abs(gB[i])) {
				t.Errorf("K=%d: gradient[%d] with B %v, with BᵀB %v", K, i, gB[i], gQ[i])
			}
		}
	}
}

// TestPreconditionSameOptimum trains a problem whose penalty diagonal spans
// four orders of magnitude (a star graph's Laplacian: one hub linked to
// every feature, heavily weighted) with and without Precondition: both
// must reach the same optimum, the preconditioned run in fewer iterations.
func TestPreconditionSameOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n, d = 60, 40
	X := randCSR(r, n, d, 0.3)
	y := make([]int, n)
	for i := range y {
		y[i] = i % 3
	}
	b := matrix.NewBuilder(d)
	for j := 1; j < d; j++ {
		w := math.Sqrt(100 * float64(j))
		b.Add(0, w)
		b.Add(j, -w)
		b.EndRow()
	}
	pen := logistic.Penalty{Ridge: 0.01, Terms: []logistic.Term{{B: b.Build(), Coef: 1}}}
	s := optim.Settings{MaxIter: 5000, GradTol: 1e-10}
	var iters [2]int
	var W [2][]float64
	for k, pre := range []bool{false, true} {
		p := &logistic.Problem{X: X, Y: y, K: 3, D: d, Pen: pen, Precondition: pre}
		m, err := logistic.Train(context.Background(), p, s)
		if err != nil {
			t.Fatalf("precondition %v: %v", pre, err)
		}
		if !m.Info().Converged {
			t.Fatalf("precondition %v: not converged in %d iterations", pre, m.Info().Iterations)
		}
		iters[k], W[k] = m.Info().Iterations, m.W
	}
	for i := range W[0] {
		if math.Abs(W[0][i]-W[1][i]) > 1e-6*math.Max(1, math.Abs(W[0][i])) {
			t.Errorf("weight %d: %v plain, %v preconditioned", i, W[0][i], W[1][i])
		}
	}
	if iters[1] >= iters[0] {
		t.Errorf("preconditioned L-BFGS took %d iterations, plain %d: want fewer", iters[1], iters[0])
	}
	t.Logf("iterations: plain %d, preconditioned %d", iters[0], iters[1])
}
