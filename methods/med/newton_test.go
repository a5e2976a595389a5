package med

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/methods/svm"
)

// TestFullHessianFiniteDifferences checks every entry of the Hessian of J
// (all task blocks, including the cross-task blocks of shared switches)
// against central differences of the analytic gradient. The Newton solver
// uses the diagonal blocks H_mm of hessBlock.
func TestFullHessianFiniteDifferences(t *testing.T) {
	for _, sel := range []string{"features", "kernels"} {
		for _, shared := range []bool{false, true} {
			for _, rho := range []float64{1, 0.1, 1e-4} {
				for _, M := range []int{1, 3} {
					name := fmt.Sprintf("%s/shared=%v/rho=%g/M=%d", sel, shared, rho, M)
					p := newProblem(t, sel, shared, rho, M)
					H := make([][][][]float64, M)
					for m := 0; m < M; m++ {
						H[m] = make([][][]float64, M)
						for n := 0; n < M; n++ {
							H[m][n] = p.hessBlock(m, n, nil, nil)
						}
					}
					const h = 1e-6
					for n := 0; n < M; n++ {
						for r := 0; r < p.T; r++ {
							gp, gm := perturbed(p, n, r, h, p.Gradient)
							for m := 0; m < M; m++ {
								for i := 0; i < p.T; i++ {
									fd := (gp[m][i] - gm[m][i]) / (2 * h)
									if got := H[m][n][i][r]; math.Abs(fd-got) > 1e-5*(1+math.Abs(fd)) {
										t.Fatalf("%s: ∂²J/∂λ[%d][%d]∂λ[%d][%d] = %g, finite difference %g", name, m, i, n, r, got, fd)
									}
								}
							}
						}
					}
					// A restricted block is the sub-matrix of the full one.
					rows := []int{1, 4, 7}
					sub := p.hessBlock(0, 0, rows, rows)
					for i, a := range rows {
						for j, b := range rows {
							if sub[i][j] != H[0][0][a][b] {
								t.Fatalf("%s: restricted block [%d][%d] = %g, full %g", name, i, j, sub[i][j], H[0][0][a][b])
							}
						}
					}
				}
			}
		}
	}
}

// TestNewtonMatchesCoordinateAscent: both solvers reach the same maximum.
func TestNewtonMatchesCoordinateAscent(t *testing.T) {
	for _, sel := range []string{"features", "kernels"} {
		for _, shared := range []bool{false, true} {
			for _, rho := range []float64{1, 1e-3} {
				name := fmt.Sprintf("%s/shared=%v/rho=%g", sel, shared, rho)
				a := newProblem(t, sel, shared, rho, 2)
				b := newProblem(t, sel, shared, rho, 2)
				_, ca, err := a.solveNewton(context.Background(), 1e-9, 1000)
				if err != nil || !ca {
					t.Fatalf("%s: newton converged %v, %v", name, ca, err)
				}
				_, cb, err := b.solveCD(context.Background(), 1e-9, 1000000)
				if err != nil || !cb {
					t.Fatalf("%s: cd converged %v, %v", name, cb, err)
				}
				if ja, jb := a.Objective(), b.Objective(); math.Abs(ja-jb) > 1e-9*(1+math.Abs(ja)) {
					t.Errorf("%s: J newton %.12g, cd %.12g", name, ja, jb)
				}
				for m := range a.lam {
					for i := range a.lam[m] {
						if d := math.Abs(a.lam[m][i] - b.lam[m][i]); d > 1e-5 {
							t.Errorf("%s: λ[%d][%d] newton %g, cd %g", name, m, i, a.lam[m][i], b.lam[m][i])
						}
					}
				}
			}
		}
	}
}

// TestGramsSharedAcrossGrid: a grid of MED kernel-selection fits (c × ρ,
// independent and shared switches) and SVMs with one of the same kernels,
// all through one memo, computes each base kernel's Gram matrix once.
func TestGramsSharedAcrossGrid(t *testing.T) {
	X, Y := synth(40, 6, 2, 3, 12)
	ks := mustKernels("poly:1", "poly:2", "poly:3", "poly:4", "rbf:10", "rbf:1", "rbf:0.1", "rbf:0.01")
	env := &methods.Env{Memo: &methods.Memo{}}
	before := kernel.GramsComputed()
	for _, shared := range []bool{false, true} {
		for _, c := range []float64{2, 11} {
			for _, rho := range []float64{1, 1e-2} {
				e := &MED{C: c, Rho: rho, Sigma2: 1, Select: "kernels", Shared: shared, Kernels: ks, Normalize: true, Tol: 1e-3, MaxIter: 1000}
				if _, err := e.FitTasks(context.Background(), X, Y, nil, env); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, C := range []float64{1, 10} {
		s := &svm.SVM{C: C, Kernel: ks[4], Normalize: true, Bias: true, Tol: 1e-3, MaxIter: 1e6}
		if _, err := s.FitBinary(context.Background(), X, Y[0], env); err != nil {
			t.Fatal(err)
		}
	}
	if got := kernel.GramsComputed() - before; got != int64(len(ks)) {
		t.Errorf("%d Gram matrices computed for 8 fits × %d kernels and 2 SVMs; want %d", got, len(ks), len(ks))
	}
	// A fresh memo (another training set) computes them again.
	e := &MED{C: 2, Rho: 1e-2, Sigma2: 1, Select: "kernels", Kernels: ks, Normalize: true, Tol: 1e-3, MaxIter: 1000}
	if _, err := e.FitTasks(context.Background(), X, Y, nil, &methods.Env{Memo: &methods.Memo{}}); err != nil {
		t.Fatal(err)
	}
	if got := kernel.GramsComputed() - before; got != 2*int64(len(ks)) {
		t.Errorf("after a second memo: %d Gram matrices, want %d", got, 2*len(ks))
	}
}

// TestRhoOneKernelsSummed: at ρ = 1 select kernels is solved with the
// summed Gram matrix by projected Newton (solver auto); its decisions and
// J equal projected Newton on the 8 separate Gram matrices, and every
// reported switch is one.
func TestRhoOneKernelsSummed(t *testing.T) {
	X, Y := synth(40, 6, 2, 3, 21)
	ks := mustKernels("poly:1", "poly:2", "rbf:1", "rbf:0.3")
	for _, shared := range []bool{false, true} {
		e := &MED{C: 5, Rho: 1, Sigma2: 1, Select: "kernels", Shared: shared, Kernels: ks, Normalize: true, Tol: 1e-8, MaxIter: 1000000}
		mm, err := e.FitTasks(context.Background(), X, Y, nil, &methods.Env{Memo: &methods.Memo{}})
		if err != nil {
			t.Fatal(err)
		}
		m := mm.(*Model)
		// Reference: Newton over the separate kernels (ρ = 1, D = 4).
		p := &problem{M: len(Y), T: 40, y: Y, c: 5, rho: 1, sigma2: 1, shared: shared, D: len(ks)}
		for _, k := range ks {
			p.K = append(p.K, kernel.Gram(k, X, true))
		}
		if _, ok, err := p.solveNewton(context.Background(), 1e-8, 1000); err != nil || !ok {
			t.Fatalf("shared=%v: reference newton converged %v, %v", shared, ok, err)
		}
		if got := e.solver(p); got != "newton" {
			t.Errorf("auto solver at ρ = 1: %q, want newton", got)
		}
		if d := math.Abs(m.Info().Objective - p.Objective()); d > 1e-8*(1+math.Abs(p.Objective())) {
			t.Errorf("shared=%v: J summed %.12g, separate %.12g", shared, m.Info().Objective, p.Objective())
		}
		for mt := range p.lam {
			for i, l := range p.lam[mt] {
				if math.Abs(m.Lambda[mt][i]-l) > 1e-5 {
					t.Fatalf("shared=%v: λ[%d][%d] summed %g, separate %g", shared, mt, i, m.Lambda[mt][i], l)
				}
			}
		}
		for _, row := range m.S {
			if len(row) != len(ks) {
				t.Fatalf("shared=%v: %d switches, want %d", shared, len(row), len(ks))
			}
			for _, s := range row {
				if s != 1 {
					t.Errorf("shared=%v: switch %g at ρ = 1, want 1", shared, s)
				}
			}
		}
		dec := m.Decision(X)
		if len(dec) != 40 || len(dec[0]) != len(Y) {
			t.Fatalf("decision shape %d×%d", len(dec), len(dec[0]))
		}
	}
	e := &MED{Rho: 1e-3}
	if got := e.solver(&problem{rho: 1e-3}); got != "newton" {
		t.Errorf("auto solver at ρ = 1e-3: %q, want newton", got)
	}
}
