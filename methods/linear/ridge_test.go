package linear

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// synthReg returns y = Xβ + 3 + noise with a fraction zero of X's entries
// set to zero and column j scaled by 1+j.
func synthReg(seed uint64, n, d int, zero float64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 9))
	beta := make([]float64, d)
	for j := range beta {
		beta[j] = rng.NormFloat64()
	}
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRow(i)
		for j := range row {
			if rng.Float64() >= zero {
				row[j] = (1 + float64(j)) * (rng.NormFloat64() + 0.5)
			}
		}
		y[i] = 3 + 0.1*rng.NormFloat64()
		for j, v := range row {
			y[i] += v * beta[j] / (1 + float64(j))
		}
	}
	return &datasets.Dataset{Name: "reg", X: X, Y: y}
}

// ridgeClosedForm solves the ridge problem with the intercept as an extra
// unpenalized unknown: [XᵀX+λS², Xᵀ1; 1ᵀX, n][w; b] = [Xᵀy; 1ᵀy], where
// S holds the column scales (ones without standardization).
func ridgeClosedForm(t *testing.T, data *datasets.Dataset, lambda float64, intercept, standardize bool) ([]float64, float64) {
	X := matrix.ToDense(data.X)
	n, d := X.Dims()
	s := make([]float64, d)
	for j := range s {
		s[j] = 1
		if standardize {
			m, q := 0.0, 0.0
			for i := 0; i < n; i++ {
				m += X.At(i, j)
				q += X.At(i, j) * X.At(i, j)
			}
			m, q = m/float64(n), q/float64(n)
			if intercept {
				s[j] = math.Sqrt(q - m*m)
			} else {
				s[j] = math.Sqrt(q)
			}
		}
	}
	p := d
	if intercept {
		p++
	}
	A := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			A.Set(i, j, X.At(i, j))
		}
		if intercept {
			A.Set(i, d, 1)
		}
	}
	var M mat.Dense
	M.Mul(A.T(), A)
	for j := 0; j < d; j++ {
		M.Set(j, j, M.At(j, j)+lambda*s[j]*s[j])
	}
	var rhs, sol mat.VecDense
	rhs.MulVec(A.T(), mat.NewVecDense(n, data.Y))
	if err := sol.SolveVec(&M, &rhs); err != nil {
		t.Fatal(err)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = sol.AtVec(j)
	}
	b := 0.0
	if intercept {
		b = sol.AtVec(d)
	}
	return w, b
}

func TestRidgeClosedForm(t *testing.T) {
	tall := synthReg(21, 60, 8, 0.4)
	wide := synthReg(22, 15, 25, 0.4)
	for _, data := range []*datasets.Dataset{tall, wide} {
		n, d := data.X.Dims()
		for _, lambda := range []float64{0.1, 10} {
			for _, intercept := range []bool{true, false} {
				for _, standardize := range []bool{false, true} {
					wantW, wantB := ridgeClosedForm(t, data, lambda, intercept, standardize)
					scale := math.Max(1, maxAbs(wantW))
					for _, solver := range []string{"auto", "primal", "kernel", "cg"} {
						for _, set := range []*datasets.Dataset{data, sparseCopy(data)} {
							name := fmt.Sprintf("%d×%d %T lambda=%v intercept=%v standardize=%v solver=%s", n, d, set.X, lambda, intercept, standardize, solver)
							m := fit(t, "ridge", map[string]any{"lambda": lambda, "intercept": intercept, "standardize": standardize, "solver": solver}, set).(*regressor)
							if diff := maxAbsDiff(m.w, wantW); diff > 1e-7*scale || math.Abs(m.b-wantB) > 1e-7*math.Max(1, math.Abs(wantB)) {
								t.Errorf("%s: w off by %g, b = %v want %v", name, diff, m.b, wantB)
							}
							if !m.info.Converged {
								t.Errorf("%s: not converged %+v", name, m.info)
							}
							p := m.Predict(set.X)
							if p.Rows() != n {
								t.Errorf("%s: %d predictions for %d rows", name, p.Rows(), n)
							}
						}
					}
				}
			}
		}
	}
}

// TestRidgeMemo checks that fits sharing a Memo (a λ grid on one training
// set) give the same models as independent fits.
func TestRidgeMemo(t *testing.T) {
	data := synthReg(23, 40, 6, 0)
	memo := &methods.Memo{}
	for _, lambda := range []float64{0.01, 1, 100} {
		for _, solver := range []string{"primal", "kernel"} {
			m := newMethod(t, "ridge", map[string]any{"lambda": lambda, "solver": solver})
			shared, err := m.Fit(t.Context(), data, &methods.Env{Memo: memo})
			if err != nil {
				t.Fatal(err)
			}
			alone, err := m.Fit(t.Context(), data, &methods.Env{})
			if err != nil {
				t.Fatal(err)
			}
			a, b := shared.(*regressor), alone.(*regressor)
			if maxAbsDiff(a.w, b.w) != 0 || a.b != b.b {
				t.Errorf("lambda=%v solver=%s: memoized fit differs", lambda, solver)
			}
		}
	}
	// Another target on the same features must not reuse the cache.
	other := *data
	other.Y = make([]float64, len(data.Y))
	for i, v := range data.Y {
		other.Y[i] = -v
	}
	m, err := newMethod(t, "ridge", map[string]any{"lambda": 1.0, "solver": "primal"}).Fit(t.Context(), &other, &methods.Env{Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ridgeClosedForm(t, &other, 1, true, false)
	if diff := maxAbsDiff(m.(*regressor).w, want); diff > 1e-8 {
		t.Errorf("different y with a shared memo: w off by %g", diff)
	}
}

func TestRidgeSingular(t *testing.T) {
	// Two identical columns and λ = 0: the primal system is singular.
	X := matrix.NewDense(4, 2, []float64{1, 1, 2, 2, 3, 3, 4, 4})
	data := &datasets.Dataset{X: X, Y: []float64{1, 2, 3, 5}}
	if _, err := newMethod(t, "ridge", map[string]any{"lambda": 0.0, "solver": "primal"}).Fit(t.Context(), data, &methods.Env{}); err == nil {
		t.Error("λ=0 with collinear columns: no error")
	}
	// λ = 0 with independent columns is least squares: an exact fit of a line.
	line := &datasets.Dataset{X: matrix.NewDense(3, 1, []float64{0, 1, 2}), Y: []float64{1, 3, 5}}
	m := fit(t, "ridge", map[string]any{"lambda": 0.0}, line).(*regressor)
	if math.Abs(m.w[0]-2) > 1e-12 || math.Abs(m.b-1) > 1e-12 {
		t.Errorf("least squares line: w=%v b=%v, want 2, 1", m.w[0], m.b)
	}
	if m.info.Objective > 1e-20 {
		t.Errorf("least squares line: objective %v, want 0", m.info.Objective)
	}
}

func Example_ridge() {
	// Ridge regression through the plugin registry: y = 2x + 1 exactly,
	// with λ = 0 (least squares).
	m, err := methods.New("ridge", map[string]any{
		"lambda": 0.0, "intercept": true, "standardize": false, "solver": "auto", "max_iter": 1000, "tol": 1e-10,
	})
	if err != nil {
		panic(err)
	}
	train := &datasets.Dataset{X: matrix.NewDense(3, 1, []float64{0, 1, 2}), Y: []float64{1, 3, 5}}
	model, err := m.Fit(context.Background(), train, &methods.Env{})
	if err != nil {
		panic(err)
	}
	p := model.Predict(matrix.NewDense(1, 1, []float64{10}))
	fmt.Printf("%.6f\n", p.Values[0])
	// Output: 21.000000
}
