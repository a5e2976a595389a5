package optim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// rosenbrock in n dimensions, minimum 0 at (1, …, 1).
func rosenbrock(x, g []float64) float64 {
	f := 0.0
	for i := range g {
		g[i] = 0
	}
	for i := 0; i+1 < len(x); i++ {
		a, b := 1-x[i], x[i+1]-x[i]*x[i]
		f += a*a + 100*b*b
		if g != nil {
			g[i] += -2*a - 400*x[i]*b
			g[i+1] += 200 * b
		}
	}
	return f
}

func TestMinimizeRosenbrock(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		for _, n := range []int{2, 10, 50} {
			x0 := make([]float64, n)
			for i := range x0 {
				x0[i] = -1.2
			}
			r, err := Minimize(context.Background(), rosenbrock, x0, Settings{MaxIter: 2000, GradTol: 1e-10})
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			for i, v := range r.X {
				if math.Abs(v-1) > 1e-5 {
					t.Fatalf("n=%d: x[%d] = %v, want 1", n, i, v)
				}
			}
			if !r.Converged {
				t.Errorf("n=%d: not converged after %d iterations (|g|=%g)", n, r.Iterations, r.GradNorm)
			}
		}
	})
}

// quadratic returns f(x) = ½ xᵀAx − bᵀx for A = diag(a), minimum at b/a.
func quadratic(a, b []float64) Func {
	return func(x, g []float64) float64 {
		v := 0.0
		for i := range x {
			v += 0.5*a[i]*x[i]*x[i] - b[i]*x[i]
			if g != nil {
				g[i] = a[i]*x[i] - b[i]
			}
		}
		return v
	}
}

func TestMinimizeQuadraticClosedForm(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		// f(x) = ½ xᵀAx − bᵀx with A diagonal: x* = b/A.
		a := []float64{1, 10, 100, 0.5}
		b := []float64{1, -2, 3, 4}
		r, err := Minimize(context.Background(), quadratic(a, b), make([]float64, 4), Settings{GradTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if want := b[i] / a[i]; math.Abs(r.X[i]-want) > 1e-8 {
				t.Errorf("x[%d] = %v, want %v", i, r.X[i], want)
			}
		}
	})
}

func TestMinimizeIterationCap(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		x0 := []float64{-1.2, 1, -1.2, 1}
		r, err := Minimize(context.Background(), rosenbrock, x0, Settings{MaxIter: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.Converged || r.Iterations > 3 {
			t.Errorf("iterations = %d converged = %v, want ≤ 3 and not converged", r.Iterations, r.Converged)
		}
	})
}

func TestMinimizeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Minimize(ctx, rosenbrock, []float64{-1.2, 1}, Settings{}); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestGradScale minimizes Σⱼ aⱼ(xⱼ − 1)² with a spanning 10⁸, in the
// preconditioned variables u = x/s (s = a^(−1/4)): the stopping test and
// GradNorm must use the gradient in x, ∇ₓ = ∇ᵤ/s, which is larger than
// ∇ᵤ; a test on ∇ᵤ would stop early.
func TestGradScale(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		a := []float64{1, 1e4, 1e8}
		s := make([]float64, len(a))
		for j, v := range a {
			s[j] = 1 / math.Pow(v, 0.25) // a partial preconditioner: curvatures 2√aⱼ in u
		}
		f := func(u, g []float64) float64 {
			v := 0.0
			for j, uj := range u {
				x := s[j] * uj
				v += a[j] * (x - 1) * (x - 1)
				if g != nil {
					g[j] = s[j] * 2 * a[j] * (x - 1)
				}
			}
			return v
		}
		const tol = 1e-9
		res, err := Minimize(context.Background(), f, make([]float64, len(a)), Settings{GradTol: tol, MaxIter: 100, GradScale: s})
		if err != nil {
			t.Fatal(err)
		}
		gx := 0.0
		for j, uj := range res.X {
			gx = math.Max(gx, math.Abs(2*a[j]*(s[j]*uj-1)))
		}
		if !res.Converged || gx > tol || math.Abs(res.GradNorm-gx) > 1e-6*math.Max(gx, 1e-300) {
			t.Errorf("converged %v, ‖∇ₓf‖∞ = %g (reported %g), want ≤ %g", res.Converged, gx, res.GradNorm, tol)
		}
	})
}

// TestMatchesGonum runs gonum's L-BFGS (More–Thuente line search, the
// method Minimize implements) and Minimize side by side on a
// logistic-regression-like objective for a fixed number of iterations: the
// iterates must agree to rounding.
func TestMatchesGonum(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		const n, d = 80, 30
		A := make([]float64, n*d)
		for i := range A {
			A[i] = r.NormFloat64()
		}
		f := func(x, g []float64) float64 {
			if g != nil {
				clear(g)
			}
			v := 0.0
			for i := 0; i < n; i++ {
				z := floats.Dot(A[i*d:(i+1)*d], x)
				y := float64(i%2)*2 - 1
				m := y * z
				v += math.Log1p(math.Exp(-m))
				if g != nil {
					floats.AddScaled(g, -y/(1+math.Exp(m)), A[i*d:(i+1)*d])
				}
			}
			for j, w := range x {
				v += 0.005 * float64(j+1) * w * w
				if g != nil {
					g[j] += 0.01 * float64(j+1) * w
				}
			}
			return v
		}
		for _, iters := range []int{1, 2, 5, 12, 25} {
			x0 := make([]float64, d)
			ours, err := Minimize(context.Background(), f, x0, Settings{MaxIter: iters, GradTol: 1e-14, Memory: 4})
			if err != nil {
				t.Fatal(err)
			}
			p := optimize.Problem{
				Func: func(x []float64) float64 { return f(x, nil) },
				Grad: func(g, x []float64) { f(x, g) },
			}
			set := &optimize.Settings{MajorIterations: iters, GradientThreshold: 1e-300, Converger: optimize.NeverTerminate{}}
			theirs, err := optimize.Minimize(p, x0, set, &optimize.LBFGS{Linesearcher: &optimize.MoreThuente{}, Store: 4})
			if err != nil {
				t.Fatal(err)
			}
			if ours.Iterations != theirs.Stats.MajorIterations {
				t.Errorf("%d iterations: ours ran %d, gonum %d", iters, ours.Iterations, theirs.Stats.MajorIterations)
			}
			for j := range x0 {
				if math.Abs(ours.X[j]-theirs.X[j]) > 1e-9*math.Max(1, math.Abs(theirs.X[j])) {
					t.Errorf("%d iterations: x[%d] = %.15g, gonum %.15g", iters, j, ours.X[j], theirs.X[j])
					break
				}
			}
			if math.Abs(ours.F-theirs.F) > 1e-12*math.Abs(theirs.F) {
				t.Errorf("%d iterations: f = %.15g, gonum %.15g", iters, ours.F, theirs.F)
			}
		}
	})
}

// TestFTolStopsSettledObjective: on an ill-conditioned quadratic whose
// gradient test cannot be met within the cap, FTol stops L-BFGS once the
// objective has settled, reports convergence, and the objective it stops at
// is within a few FTol of the optimum, relative to max(1, |f|).
func TestFTolStopsSettledObjective(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		const n = 2000
		r := rand.New(rand.NewPCG(3, 4))
		a, b := make([]float64, n), make([]float64, n)
		fOpt := 0.0
		for i := range a {
			a[i] = math.Pow(10, -4*r.Float64()) // curvatures 1e-4 … 1
			b[i] = r.NormFloat64()
			fOpt -= 0.5 * b[i] * b[i] / a[i]
		}
		f := quadratic(a, b)
		x0 := make([]float64, n)
		capped, err := Minimize(context.Background(), f, x0, Settings{MaxIter: 400, GradTol: 1e-14})
		if err != nil {
			t.Fatal(err)
		}
		if capped.Converged || capped.Iterations != 400 {
			t.Fatalf("without FTol: %d iterations, converged %v; want the cap of 400", capped.Iterations, capped.Converged)
		}
		const ftol = 1e-7
		got, err := Minimize(context.Background(), f, x0, Settings{MaxIter: 400, GradTol: 1e-14, FTol: ftol})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Converged || got.Iterations >= capped.Iterations {
			t.Errorf("with FTol: %d iterations, converged %v; want converged before %d", got.Iterations, got.Converged, capped.Iterations)
		}
		if gap := (got.F - fOpt) / math.Max(1, math.Abs(fOpt)); gap < 0 || gap > 100*ftol {
			t.Errorf("with FTol: relative gap to the optimum %.3g, want within [0, %g]", gap, 100*ftol)
		}
		t.Logf("FTol %g: %d iterations (cap %d), relative gap %.3g", ftol, got.Iterations, capped.Iterations, (got.F-fOpt)/math.Abs(fOpt))
	})
}
