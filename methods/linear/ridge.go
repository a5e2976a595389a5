package linear

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

func init() {
	methods.RegisterTyped("ridge", methods.Typed[ridge]{
		Doc:    "ridge least squares ‖y − Xw − b‖² + λ‖w‖², unpenalized intercept (Cholesky on dense features, conjugate gradients on sparse ones)",
		Kinds:  methods.Regression,
		New:    func(p ridge) (methods.Method, error) { return &p, nil },
		Memory: memRidge,
	})
}

// ridge is the ridge method at one grid point: its parameters.
type ridge struct {
	Lambda      float64 `param:"lambda" range:"[0, +inf)" default:"1" doc:"weight λ of the penalty ‖w‖² (of the standardized coefficients with standardize)"`
	Intercept   bool    `param:"intercept" default:"true" doc:"fit an unpenalized intercept b (centres X and y)"`
	Standardize bool    `param:"standardize" default:"false" doc:"scale every column to unit standard deviation before fitting (coefficients are reported on the original scale)"`
	Solver      string  `param:"solver" enum:"auto|primal|kernel|cg" default:"auto" doc:"auto: primal if dense with d ≤ n, kernel if dense with d > n, cg if sparse; primal: Cholesky of XᵀX+λI; kernel: Cholesky of XXᵀ+λI; cg: conjugate gradients on the normal equations (primal and kernel densify sparse data)"`
	MaxIter     int     `param:"max_iter" range:"[1, +inf)" default:"1000" doc:"conjugate-gradient iteration cap"`
	Tol         float64 `param:"tol" range:"(0, +inf)" default:"1e-10" doc:"conjugate gradients stop when ‖Aᵀ(y−Aw)−λw‖ ≤ tol·‖Aᵀy‖"`
}

// regressor is a fitted linear regression model.
type regressor struct {
	w    []float64
	b    float64
	info methods.Info
}

// Predict returns Xw + b.
func (m *regressor) Predict(X matrix.Matrix) *methods.Prediction {
	n, d := X.Dims()
	if d != len(m.w) {
		panic(fmt.Sprintf("linear: Predict: %d columns, model has %d", d, len(m.w)))
	}
	v := make([]float64, n)
	X.MulVec(v, m.w)
	for i := range v {
		v[i] += m.b
	}
	return &methods.Prediction{Values: v}
}

// Info reports the CG iterations (1 for a factorization), whether the
// solve converged, and the objective ‖y − Xw − b‖² + λ‖w‖².
func (m *regressor) Info() methods.Info { return m.info }

// design is the centred and scaled design A = (X − 1μᵀ)S⁻¹ and target
// y − ȳ of a ridge fit, kept implicit.
type design struct {
	X     matrix.Matrix
	n, d  int
	mu    []float64 // column means, zeros without intercept
	scale []float64 // column scales, ones without standardize
	ybar  float64
	yc    []float64
	u     []float64 // mul's scratch, len d
}

func newDesign(train *datasets.Dataset, intercept, standardize bool) *design {
	n, d := train.X.Dims()
	a := &design{X: train.X, n: n, d: d, mu: make([]float64, d), scale: make([]float64, d), yc: make([]float64, n)}
	if intercept && n > 0 {
		a.mu = matrix.ColumnMeans(train.X)
		for _, v := range train.Y {
			a.ybar += v
		}
		a.ybar /= float64(n)
	}
	var sd []float64
	if standardize {
		sd = matrix.ColumnStds(train.X)
		if !intercept {
			// Scale about zero when the columns are not centred.
			sq := matrix.ColumnNorms2(train.X)
			for j := range sd {
				sd[j] = math.Sqrt(sq[j] / float64(max(n, 1)))
			}
		}
	}
	for j := range a.scale {
		a.scale[j] = 1
		if sd != nil && sd[j] > 0 {
			a.scale[j] = sd[j]
		}
	}
	for i, v := range train.Y {
		a.yc[i] = v - a.ybar
	}
	return a
}

// mul sets dst = A·v (len n). It is not safe for concurrent use.
func (a *design) mul(dst, v []float64) {
	if a.u == nil {
		a.u = make([]float64, a.d)
	}
	u := a.u
	off := 0.0
	for j := range u {
		u[j] = v[j] / a.scale[j]
		off += a.mu[j] * u[j]
	}
	a.X.MulVec(dst, u)
	for i := range dst {
		dst[i] -= off
	}
}

// mulT sets dst = Aᵀ·r (len d).
func (a *design) mulT(dst, r []float64) {
	a.X.MulTransVec(dst, r)
	s := 0.0
	for _, v := range r {
		s += v
	}
	for j := range dst {
		dst[j] = (dst[j] - a.mu[j]*s) / a.scale[j]
	}
}

// dense returns A as a gonum matrix.
func (a *design) dense() *mat.Dense {
	A := mat.NewDense(max(a.n, 1), max(a.d, 1), nil)
	for i := 0; i < a.n; i++ {
		row := A.RawRowView(i)
		for j := range a.d {
			row[j] = -a.mu[j] / a.scale[j]
		}
		a.X.Row(i, func(j int, v float64) { row[j] = (v - a.mu[j]) / a.scale[j] })
	}
	return A
}

// Fit solves the ridge normal equations (AᵀA + λI)v = Aᵀ(y − ȳ) and maps v
// back to the original scale: w = S⁻¹v, b = ȳ − μᵀw.
func (m *ridge) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if train.IsClassification() {
		return nil, errors.New("ridge: needs a regression dataset (ridge is regression only)")
	}
	if train.Rows() == 0 {
		return nil, errors.New("ridge: empty training set")
	}
	// The Cholesky solvers do not poll ctx: refuse to start a cancelled fit.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ridge: %w", err)
	}
	a := newDesign(train, m.Intercept, m.Standardize)
	solver := m.Solver
	if solver == "auto" {
		_, sparse := train.X.(*matrix.CSR)
		switch {
		case sparse:
			solver = "cg"
		case a.d <= a.n:
			solver = "primal"
		default:
			solver = "kernel"
		}
	}
	key := methods.Key{Op: "linear.ridge-gram",
		Args: fmt.Sprintf("%s/intercept=%v/standardize=%v/y=%s", solver, m.Intercept, m.Standardize, methods.ContentID(train.Y))}
	var (
		v    []float64
		info = methods.Info{Iterations: 1, Converged: true}
		err  error
	)
	switch solver {
	case "primal":
		v, err = m.solvePrimal(a, env, key)
	case "kernel":
		v, err = m.solveKernel(a, env, key)
	case "cg":
		v, info, err = m.solveCG(ctx, a)
	default:
		err = fmt.Errorf("unknown solver %q", solver)
	}
	if err != nil {
		return nil, fmt.Errorf("ridge: %w", err)
	}
	model := &regressor{w: make([]float64, a.d), b: a.ybar}
	pen := 0.0
	for j, vj := range v {
		model.w[j] = vj / a.scale[j]
		model.b -= a.mu[j] * model.w[j]
		pen += vj * vj
	}
	res := make([]float64, a.n)
	a.mul(res, v)
	obj := m.Lambda * pen
	for i, r := range res {
		e := a.yc[i] - r
		obj += e * e
	}
	info.Objective = obj
	model.info = info
	return model, nil
}

// gram is a cached Gram matrix and right-hand side.
type gram struct {
	G   *mat.SymDense
	rhs []float64
}

func (m *ridge) cholSolve(g *gram) ([]float64, error) {
	n := g.G.SymmetricDim()
	S := mat.NewSymDense(n, nil)
	S.CopySym(g.G)
	for i := 0; i < n; i++ {
		S.SetSym(i, i, S.At(i, i)+m.Lambda)
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(S); !ok {
		return nil, fmt.Errorf("the %d×%d system with lambda=%g is not positive definite (collinear columns or too few rows for lambda=0?)", n, n, m.Lambda)
	}
	x := mat.NewVecDense(n, nil)
	if err := ch.SolveVecTo(x, mat.NewVecDense(n, g.rhs)); err != nil {
		return nil, fmt.Errorf("cholesky solve: %w", err)
	}
	return x.RawVector().Data, nil
}

// solvePrimal solves (AᵀA + λI)v = Aᵀyc by Cholesky; AᵀA is shared
// across λ through env.
func (m *ridge) solvePrimal(a *design, env *methods.Env, key methods.Key) ([]float64, error) {
	if a.d == 0 {
		return nil, nil
	}
	g, err := methods.Remember(env, key, func() (*gram, error) {
		A := a.dense()
		G := mat.NewSymDense(a.d, nil)
		G.SymOuterK(1, A.T())
		rhs := make([]float64, a.d)
		a.mulT(rhs, a.yc)
		return &gram{G: G, rhs: rhs}, nil
	})
	if err != nil {
		return nil, err
	}
	return m.cholSolve(g)
}

// solveKernel solves (AAᵀ + λI)α = yc by Cholesky and returns v = Aᵀα.
func (m *ridge) solveKernel(a *design, env *methods.Env, key methods.Key) ([]float64, error) {
	g, err := methods.Remember(env, key, func() (*gram, error) {
		A := a.dense()
		K := mat.NewSymDense(a.n, nil)
		K.SymOuterK(1, A)
		return &gram{G: K, rhs: a.yc}, nil
	})
	if err != nil {
		return nil, err
	}
	alpha, err := m.cholSolve(g)
	if err != nil {
		return nil, err
	}
	v := make([]float64, a.d)
	a.mulT(v, alpha)
	return v, nil
}

// solveCG solves (AᵀA + λI)v = Aᵀyc by conjugate gradients, using only
// products with X and Xᵀ.
func (m *ridge) solveCG(ctx context.Context, a *design) ([]float64, methods.Info, error) {
	d := a.d
	v := make([]float64, d)
	r := make([]float64, d)
	a.mulT(r, a.yc)
	bnorm := norm(r)
	info := methods.Info{}
	if bnorm == 0 {
		info.Converged = true
		return v, info, nil
	}
	p := append([]float64(nil), r...)
	q := make([]float64, d)
	u := make([]float64, a.n)
	rr := dot(r, r)
	for it := 1; it <= m.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, info, err
		}
		a.mul(u, p)
		a.mulT(q, u)
		for j := range q {
			q[j] += m.Lambda * p[j]
		}
		pq := dot(p, q)
		if pq <= 0 {
			return nil, info, fmt.Errorf("conjugate gradients: curvature %g ≤ 0 at iteration %d (lambda=0 with a singular XᵀX?)", pq, it)
		}
		alpha := rr / pq
		for j := range v {
			v[j] += alpha * p[j]
			r[j] -= alpha * q[j]
		}
		rrNew := dot(r, r)
		info.Iterations = it
		if math.Sqrt(rrNew) <= m.Tol*bnorm {
			info.Converged = true
			break
		}
		beta := rrNew / rr
		rr = rrNew
		for j := range p {
			p[j] = r[j] + beta*p[j]
		}
	}
	return v, info, nil
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func norm(x []float64) float64 { return math.Sqrt(dot(x, x)) }
