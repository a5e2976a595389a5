package med

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/kernel"
)

// blobs returns n rows of two 2-D Gaussian blobs (unit variance, centres
// ±(sep/2, 0)), labels ±1 alternating, and flips the label of a fraction
// noise of the rows.
func blobs(n int, sep, noise float64, seed uint64) (*matrix.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	X := matrix.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(1 - 2*(i%2))
		X.Set(i, 0, y[i]*sep/2+rng.NormFloat64())
		X.Set(i, 1, rng.NormFloat64())
		if rng.Float64() < noise {
			y[i] = -y[i]
		}
	}
	return X, y
}

// testErrors counts the rows of X whose task-0 decision has the wrong sign.
func testErrors(m *Model, X matrix.Matrix, y []float64) int {
	n := 0
	for i, f := range m.Decision(X) {
		if f[0]*y[i] <= 0 {
			n++
		}
	}
	return n
}

// TestKernelSelectionInformativeAndIdentity fits kernel selection with one
// informative base kernel (RBF σ = 1 on two 2-D blobs) and one identity
// (RBF σ = 0.001: exp(−‖x−x'‖²/2e-6) vanishes between any two rows).
//
// What MED should choose follows from J: the posterior of switch d is
// ŝ_d = ρ/(ρ + (1−ρ)e^{−q_d}) with q_d = ½‖Σ_t λ_t y_t φ_d(x_t)‖², so it
// turns on the kernel whose weight vector has the larger norm at the
// optimum; the identity's is ½Σ_t λ_t², large when many rows need their
// own slack. Hence:
//   - labels without noise: the informative kernel carries the fit, its
//     switch is the larger one at every ρ < 1;
//   - 20 % flipped labels: the identity absorbs the flipped rows as slack
//     (its switch → 1 at ρ ≤ 0.1) and the informative switch falls with ρ;
//     the identity adds nothing off the training rows, so the classifier
//     is the shrunken informative kernel and the test error is no worse
//     than with the informative kernel alone.
//
// Every fit also satisfies the identity that ties prediction to J: on
// each training row ∂J/∂λ_t = 1 − 1/(c − λ_t) − y_t f(x_t), with f the
// model's Decision (the posterior mean b̂ + Σ_d ŝ_d Σ_s λ_s y_s k_d(x_s, x)),
// and ŝ_d recomputed from λ and the Gram matrices matches the model's.
func TestKernelSelectionInformativeAndIdentity(t *testing.T) {
	const c = 11
	informative, identity := "rbf:1", "rbf:0.001"
	Xt, yt := blobs(400, 4, 0, 2)
	for _, noise := range []float64{0, 0.2} {
		X, y := blobs(60, 4, noise, 1)
		n, _ := X.Dims()
		K := [2][]float64{kernel.Gram(mustKernels(informative)[0], X, true), kernel.Gram(mustKernels(identity)[0], X, true)}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if want := float64(b2i(i == j)); math.Abs(K[1][i*n+j]-want) > 1e-12 {
					t.Fatalf("%s is not the identity on the training rows: K[%d,%d] = %g", identity, i, j, K[1][i*n+j])
				}
			}
		}
		alone := fitTasks(t, &MED{C: c, Rho: 1, Sigma2: 1, Select: "none", Kernels: mustKernels(informative), Normalize: true, Tol: 1e-6, MaxIter: 100000}, X, [][]float64{y})
		errAlone := testErrors(alone, Xt, yt)
		prevInf := 2.0
		for _, rho := range []float64{0.1, 1e-2, 1e-3, 1e-4} {
			e := &MED{C: c, Rho: rho, Sigma2: 1, Select: "kernels", Kernels: mustKernels(informative, identity), Normalize: true, Tol: 1e-6, MaxIter: 100000}
			m := fitTasks(t, e, X, [][]float64{y})
			if !m.info.Converged {
				t.Fatalf("noise %g ρ %g: not converged in %d iterations", noise, rho, m.info.Iterations)
			}
			sInf, sID := m.S[0][0], m.S[0][1]
			// ŝ_d from λ alone.
			lam := m.Lambda[0]
			for d, Kd := range K {
				var q float64
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						q += lam[i] * y[i] * Kd[i*n+j] * lam[j] * y[j]
					}
				}
				if s := switchMean(q/2, rho); math.Abs(s-m.S[0][d]) > 1e-9 {
					t.Errorf("noise %g ρ %g: switch %d is %g, ρ/(ρ+(1−ρ)e^{−q}) from λ gives %g", noise, rho, d, m.S[0][d], s)
				}
			}
			// ∂J/∂λ_t = 1 − 1/(c − λ_t) − y_t f(x_t) with f from Decision.
			p := &problem{M: 1, T: n, D: 2, y: [][]float64{y}, c: c, rho: rho, sigma2: 1, K: K[:]}
			p.init()
			copy(p.lam[0], lam)
			p.refresh()
			g := p.Gradient()[0]
			f := m.Decision(X)
			for i := range g {
				if want := 1 - 1/(c-lam[i]) - y[i]*f[i][0]; math.Abs(g[i]-want) > 1e-8*(1+math.Abs(want)) {
					t.Fatalf("noise %g ρ %g row %d: ∂J/∂λ = %g, 1 − 1/(c−λ) − y f(x) = %g", noise, rho, i, g[i], want)
				}
			}
			errs := testErrors(m, Xt, yt)
			t.Logf("noise %g ρ %g: ŝ %s %.4f, %s %.4f; test errors %d/400 (%s alone at ρ = 1: %d)", noise, rho, informative, sInf, identity, sID, errs, informative, errAlone)
			switch noise {
			case 0:
				if !(sInf > sID) {
					t.Errorf("noise 0 ρ %g: ŝ informative %g ≤ ŝ identity %g", rho, sInf, sID)
				}
			default:
				if sID < 0.99 || !(sInf < prevInf) {
					t.Errorf("noise %g ρ %g: ŝ identity %g (want > 0.99), ŝ informative %g (want below %g at the larger ρ)", noise, rho, sID, sInf, prevInf)
				}
			}
			if errs > errAlone {
				t.Errorf("noise %g ρ %g: %d test errors with the identity added, %d with %s alone", noise, rho, errs, errAlone, informative)
			}
			prevInf = sInf
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
