// Package med registers "med", the maximum entropy discrimination SVM of
// Jebara (2004, "Multi-task feature and kernel selection for SVMs"), with
// feature selection, kernel selection and multi-task switches.
//
// The method maximizes the concave dual
//
//	J(λ) = Σ_mt [λ_mt + ln(1 − λ_mt/c)] − Σ_m σ²/2 (Σ_t y_mt λ_mt)²
//	       − Σ_d ln(1 − ρ + ρ·exp(q_d))
//
// over 0 ≤ λ_mt < c, where q_d = ½ Σ_m (Σ_t λ_mt y_mt X_td)² for feature
// selection (select: features, d indexes inputs) and
// q_d = ½ Σ_m Σ_tt' λ_mt λ_mt' y_mt y_mt' k_d(x_t, x_t') for kernel selection
// (select: kernels, d indexes base kernels normalized to k(x,x) = 1). With
// tasks: shared the M tasks share one switch vector (the sum over m inside
// q_d, Jebara §5–6); with tasks: independent every task has its own switch
// vector and the problem separates. select: none fixes every switch to one
// (ρ = 1): an SVM with the sum of the listed kernels.
//
// Bias: with bias: gaussian (the default) the Gaussian prior N(0, σ²) of the
// paper's §4–6 (sigma2 > 0), giving the −σ²/2 (Σ_t y_t λ_t)² term and
// b̂_m = σ² Σ_t y_mt λ_mt. With bias: flat the non-informative prior of §3:
// no σ² term and the equality constraint Σ_t y_mt λ_mt = 0 per task
// (sigma2 is ignored). It is solved through the bias as the constraint's
// Lagrange multiplier: for fixed b the box-constrained solver below
// maximizes J_0(λ) − Σ_m b_m Σ_t y_mt λ_mt (warm started, to slope 1e-9),
// and b_m is moved to the root of Σ_t y_mt λ_mt(b) = 0 (bracketing and
// Illinois regula falsi); the residual is projected out of the free
// multipliers and b_m is recovered from their KKT conditions
// (∂J_0/∂λ_mt = b_m y_mt, averaged, as SMO does). solver auto uses Newton
// for the inner solves, except for select features at ρ = 1 (below).
//
// The margin prior's barrier λ + ln(1 − λ/c) has slope 1 − 1/c at λ = 0:
// for c ≤ 1 every λ stays at zero and the classifier is the bias alone, so
// MED's c is comparable with an SVM's C only for c well above one.
//
// Solver: solver auto (the default) solves feature selection at ρ = 1
// (every switch one) with the Gaussian bias prior by coordinate ascent on
// the dual for up to 500 sweeps (enough on splice) and, if that has not
// converged, through the primal, a smoothed-hinge linear SVM
// min ½‖w‖² + b²/(2σ²) + Σ_t ℓ(y_t f(x_t)), by Newton's method with
// conjugate gradients and an exact line search from the multipliers
// reached, stopped by the dual's test below: the primal is well
// conditioned on any data, where coordinate ascent stalls at its cap on
// standardized continuous inputs (and the primal alone is slow on
// separable data at large c). With the flat prior, select features at
// ρ = 1 starts with the primal instead, the intercept free and
// unpenalized (Newton handles it as one more coordinate; its optimality
// condition is Σ_t y_t λ_t = 0), for up to 200 Newton iterations to slope
// 1e-6, then the root search above from its multipliers and bias.
// Kernels at ρ = 1 (solved exactly with the summed kernel) and every
// ρ < 1 use projected Newton on the dual. solver: newton is projected Newton
// (Bertsekas 1982)
// on one task's multipliers at a time, Gauss–Seidel over the tasks (the
// tasks separate exactly with independent switches). Rows at or within ε of
// zero whose slope points below zero take a scaled gradient step; the free
// rows take the Newton step of the free block of the Hessian (a T×T
// Cholesky factorization); the step follows the projected arc
// max(0, λ + αd) kept inside λ < c, with Armijo backtracking on J. It stops
// when every projected slope ∂J/∂λ (the slope where λ > 0, its positive
// part where λ = 0) is at most tol; Info reports the passes over the tasks.
// solver: cd is cyclic coordinate ascent, each coordinate maximized exactly
// by a 1-D Newton iteration safeguarded by bisection inside [0, c), with the
// same stopping test measured over a sweep (Info reports sweeps); at ρ = 1
// it needs ~200 sweeps on splice but hits its cap on standardized
// continuous inputs, at small ρ thousands (10–250× slower than Newton).
// A fit that stops at max_iter reports Converged false (the runner marks
// the trial not_converged and the report says so).
//
// Kernel columns (select kernels|none): the base Gram matrices are
// computed whole, and shared through the memo by every grid point on the
// training set, only when they, the inner products they come from and
// their sum fit in cache_mb (svm's parameter, libsvm's -m; default
// kernel.DefaultCacheMB); else the solvers read kernel columns computed on
// demand from one kernel.Cache of cache_mb holding columns of the training
// rows' inner products, which serve every base kernel (kernel.Family),
// and the n×n matrices are never formed. Coordinate ascent needs one
// column per base kernel and coordinate; projected Newton needs the
// columns of its free rows every pass and, in any case, holds the T×T
// Hessian of the free block and its Cholesky factor, which no cache
// removes (the memory estimate counts them; for large T use solver: cd).
//
// ln(1 − ρ + ρe^q) is evaluated as q + ln(ρ + (1−ρ)e^{−q}) for large q.
package med

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
)

func init() {
	methods.RegisterTyped("med", methods.Typed[Params]{
		Doc:      "maximum entropy discrimination SVM with feature/kernel selection and multi-task switches (Jebara 2004)",
		Kinds:    methods.Classification,
		New:      newFromParams,
		Validate: validate,
		Memory:   memory,
	})
}

// Params are the parameters of the "med" plugin. The default of cache_mb
// is kernel.DefaultCacheMB.
type Params struct {
	C         float64  `param:"c" range:"(0, +inf)" default:"10" doc:"margin prior: barrier λ + ln(1 − λ/c), 0 ≤ λ < c (c ≤ 1 gives λ = 0)"`
	Rho       float64  `param:"rho" range:"(0, 1]" default:"1" doc:"Bernoulli prior probability ρ ∈ (0, 1] of each switch (1: no selection)"`
	Sigma2    float64  `param:"sigma2" range:"(0, +inf)" default:"1" doc:"variance σ² of the Gaussian bias prior (> 0; ignored with bias: flat)"`
	Bias      string   `param:"bias" enum:"gaussian|flat" default:"gaussian" doc:"bias prior: gaussian N(0, σ²) (the −σ²/2 (Σ_t y_t λ_t)² term) or flat (the equality constraint Σ_t y_t λ_t = 0, Jebara §3)"`
	Select    string   `param:"select" enum:"none|features|kernels" default:"features" doc:"switches on input features, on base kernels, or none (sum kernel SVM)"`
	Tasks     string   `param:"tasks" enum:"independent|shared" default:"independent" doc:"one switch vector per task, or one shared by all tasks"`
	Kernels   []string `param:"kernels" default:"[linear]" doc:"base kernels for select kernels|none: linear, poly:p ((1+x·x')^p), rbf:σ (exp(−‖x−x'‖²/(2σ²)))"`
	Normalize bool     `param:"normalize" default:"true" doc:"normalize base kernels to k(x,x) = 1 (select kernels|none)"`
	Tol       float64  `param:"tol" range:"(0, +inf)" default:"0.001" doc:"stop when every projected slope ∂J/∂λ over a sweep is ≤ tol"`
	MaxIter   int      `param:"max_iter" range:"[1, +inf)" default:"20000" doc:"maximal number of solver iterations (Newton passes over the tasks, or coordinate sweeps)"`
	CacheMB   float64  `param:"cache_mb" range:"(0, +inf)" default:"200" doc:"kernel-column cache in MB (select kernels|none; as svm's, libsvm's -m): the Gram matrices are precomputed only when they fit, else their columns are computed on demand and cached"`
	Solver    string   `param:"solver" enum:"auto|newton|cd" default:"auto" doc:"auto: for select features at ρ = 1 up to 500 cd sweeps (bias gaussian) then Newton on the primal smoothed-hinge SVM (with bias flat: the primal first, its intercept free), else newton; newton: projected Newton on the dual per task block; cd: coordinate ascent with exact 1-D Newton steps"`
}

// MED is one configured MED SVM.
type MED struct {
	C, Rho, Sigma2 float64
	// Bias is the bias prior: "gaussian" (the default when empty) or
	// "flat" (equality constraint Σ_t y_t λ_t = 0; Sigma2 is ignored).
	Bias      string
	Select    string // none | features | kernels
	Shared    bool
	Kernels   []kernel.Kernel
	Normalize bool
	Tol       float64
	MaxIter   int
	// Solver is "auto" (the default when empty: coordinate ascent then the
	// primal Newton solver for select features at ρ = 1 with the Gaussian
	// prior, else "newton"),
	// "newton" (projected Newton per task block) or "cd" (cyclic
	// coordinate ascent).
	Solver string
	// CacheMB is the kernel-column cache in MB (select kernels|none); 0
	// means kernel.DefaultCacheMB.
	CacheMB float64
}

func newFromParams(p Params) (methods.Method, error) {
	ks, err := kernel.ParseAll("kernels", p.Kernels)
	if err != nil {
		return nil, err
	}
	return &MED{C: p.C, Rho: p.Rho, Sigma2: p.Sigma2, Select: p.Select,
		Shared: p.Tasks == "shared", Kernels: ks, Normalize: p.Normalize, Tol: p.Tol, MaxIter: p.MaxIter, Solver: p.Solver, Bias: p.Bias,
		CacheMB: p.CacheMB}, nil
}

// validate checks what Params cannot express: every kernel specification
// (all bad ones reported, each at its element), with the parser New uses.
// The kernels are parsed whatever select is, as New does.
func validate(p Params) error {
	_, err := kernel.ParseAll("kernels", p.Kernels)
	return err
}

// Fit trains one binary task (class 1 positive) on two classes; on K > 2
// classes it trains their K one-vs-rest tasks with FitTasks (the switches
// shared or not as the tasks param says), as tasks: one-vs-rest on the
// dataset does.
func (e *MED) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if len(train.Classes) < 2 {
		return nil, fmt.Errorf("med: dataset %q has %d classes; want at least 2", train.Name, len(train.Classes))
	}
	if len(train.Classes) > 2 {
		return e.FitTasks(ctx, train.X, methods.OneVsRest(train), train, env)
	}
	y := make([]float64, train.Rows())
	for i := range y {
		y[i] = -1
		if train.Label(i) == 1 {
			y[i] = 1
		}
	}
	m, err := e.fit(ctx, train.X, [][]float64{y}, train, env)
	if err != nil {
		return nil, err
	}
	m.taskNames = []string{train.Classes[1]}
	return m, nil
}

// FitTasks trains the tasks Y (±1 per row) jointly; the model predicts
// K = len(Y) one-vs-rest scores.
func (e *MED) FitTasks(ctx context.Context, X matrix.Matrix, Y [][]float64, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	m, err := e.fit(ctx, X, Y, train, env)
	if err != nil {
		return nil, err
	}
	m.multi = true
	m.taskNames = make([]string, len(Y))
	for t := range Y {
		m.taskNames[t] = "task " + strconv.Itoa(t+1)
		if train != nil && len(train.Classes) == len(Y) {
			m.taskNames[t] = train.Classes[t]
		}
	}
	return m, nil
}

func (e *MED) fit(ctx context.Context, X matrix.Matrix, Y [][]float64, train *datasets.Dataset, env *methods.Env) (*Model, error) {
	n, dim := X.Dims()
	if len(Y) == 0 || n == 0 {
		return nil, errors.New("med: no tasks or no training rows")
	}
	for t, y := range Y {
		if len(y) != n {
			panic(fmt.Sprintf("med: task %d has %d targets for %d rows", t, len(y), n))
		}
		for i, v := range y {
			if v != 1 && v != -1 {
				return nil, fmt.Errorf("med: task %d row %d: target %v is not ±1", t, i, v)
			}
		}
	}
	p := &problem{M: len(Y), T: n, y: Y, c: e.C, rho: e.Rho, sigma2: e.Sigma2, shared: e.Shared}
	model := &Model{med: e, dim: dim, multi: false}
	switch e.Select {
	case "features":
		p.D = dim
		p.rows = make([][]entry, n)
		for i := range p.rows {
			X.Row(i, func(j int, v float64) {
				if v != 0 {
					p.rows[i] = append(p.rows[i], entry{j, v})
				}
			})
		}
	case "kernels", "none":
		// Every switch one (select none or ρ = 1): J depends on the
		// kernels only through their sum, so solve with the summed kernel
		// (exact).
		sum := e.Select == "none" || e.Rho == 1
		if sum {
			p.rho = 1
		}
		if !gramsFit(n, len(e.Kernels), sum, e.cacheBytes()) {
			p.kc = newKernelCols(X, e.Kernels, e.Normalize, sum && len(e.Kernels) > 1, e.cacheBytes())
			p.D = len(e.Kernels)
			if p.kc.sum {
				p.D = 1
			}
			break
		}
		grams := make([][]float64, len(e.Kernels))
		for d, k := range e.Kernels {
			g, err := kernel.CachedGram(env, X, k, e.Normalize)
			if err != nil {
				return nil, fmt.Errorf("med: %w", err)
			}
			grams[d] = g
		}
		if sum {
			if len(grams) > 1 {
				total := make([]float64, n*n)
				for _, g := range grams {
					for i, v := range g {
						total[i] += v
					}
				}
				grams = [][]float64{total}
			}
		}
		p.K, p.D = grams, len(grams)
	default:
		return nil, fmt.Errorf("med: unknown select %q", e.Select)
	}
	var solve func(context.Context, float64, int) (int, bool, error)
	switch e.solver(p) {
	case "cd":
		solve = p.solveCD
	case "primal":
		solve = p.solveRhoOne
	default:
		solve = p.solveNewton
	}
	var iters int
	var conv bool
	var err error
	switch e.Bias {
	case "", "gaussian":
		iters, conv, err = solve(ctx, e.Tol, e.MaxIter)
	case "flat":
		if e.solver(p) == "primal" {
			iters, conv, err = p.solveFlatPrimal(ctx, e.Tol, e.MaxIter)
		} else {
			iters, conv, err = p.solveFlat(ctx, e.Tol, e.MaxIter, solve)
		}
	default:
		return nil, fmt.Errorf("med: unknown bias prior %q", e.Bias)
	}
	if err != nil {
		return nil, fmt.Errorf("med: %w", err)
	}
	model.info = methods.Info{Iterations: iters, Converged: conv, Objective: p.Objective()}
	model.finish(p, X, train)
	return model, nil
}

// solver returns the solver used for p: the configured one, or for auto
// (or empty) "primal" for select features at ρ = 1 (J is then the dual of
// a smoothed-hinge linear SVM whose primal is well conditioned on any
// data): coordinate ascent then the primal Newton solver (solveRhoOne)
// with the Gaussian bias prior, the primal with a free intercept then the
// dual (solveFlatPrimal) with the flat one; projected Newton on the dual
// otherwise: for kernels at ρ = 1 (one summed Gram matrix) and at ρ < 1.
func (e *MED) solver(p *problem) string {
	switch e.Solver {
	case "newton", "cd":
		return e.Solver
	}
	if p.rho == 1 && p.features() {
		return "primal"
	}
	return "newton"
}

// Model is a fitted MED SVM over one or more tasks.
type Model struct {
	med       *MED
	dim       int
	multi     bool
	taskNames []string
	features  []string
	info      methods.Info

	M int
	// B holds the expected biases b̂_m = σ² Σ_t y_mt λ_mt (Gaussian prior)
	// or the KKT biases of the flat prior.
	B []float64
	// Lambda holds the Lagrange multipliers λ_mt.
	Lambda [][]float64
	// W holds, for select features, the weights W_md = ŝ_md u_md.
	W [][]float64
	// S holds the expected switches ŝ (one row per switch vector: one if
	// shared, one per task if independent).
	S [][]float64

	sv    matrix.Matrix // kernels: training rows with some λ_mt > 0
	coef  [][]float64   // kernels: y_mt λ_mt over the sv rows
	kerns []kernel.Kernel
}

func (m *Model) finish(p *problem, X matrix.Matrix, train *datasets.Dataset) {
	m.M = p.M
	m.Lambda = p.lam
	m.B = make([]float64, p.M)
	for t := range m.B {
		m.B[t] = p.sigma2 * p.B[t]
		if p.bias != nil {
			m.B[t] = p.bias[t]
		}
	}
	m.S = make([][]float64, len(p.q))
	for s, q := range p.q {
		m.S[s] = make([]float64, p.D)
		for d, v := range q {
			m.S[s][d] = switchMean(v, p.rho)
		}
	}
	if train != nil && len(train.Features) == m.dim {
		m.features = train.Features
	}
	if p.features() {
		m.W = make([][]float64, p.M)
		for t := range m.W {
			m.W[t] = make([]float64, p.D)
			s := m.S[p.sw(t)]
			for d, u := range p.u[t] {
				m.W[t][d] = s[d] * u
			}
		}
		return
	}
	var rows []int
	for i := 0; i < p.T; i++ {
		for t := 0; t < p.M; t++ {
			if p.lam[t][i] > 0 {
				rows = append(rows, i)
				break
			}
		}
	}
	m.sv = X.RowsOf(rows)
	m.coef = make([][]float64, p.M)
	for t := range m.coef {
		m.coef[t] = make([]float64, len(rows))
		for k, i := range rows {
			m.coef[t][k] = p.y[t][i] * p.lam[t][i]
		}
	}
	m.kerns = m.med.Kernels
	switch {
	case m.med.Select == "none":
		m.S = [][]float64{{1}}
	case p.D != len(m.kerns):
		// ρ = 1 was solved with the summed Gram matrix: every switch of
		// every base kernel is one.
		for s := range m.S {
			m.S[s] = make([]float64, len(m.kerns))
			for d := range m.S[s] {
				m.S[s][d] = 1
			}
		}
	}
}

// Decision returns f_m(x) for every row of X: Decision(X)[i][m].
func (m *Model) Decision(X matrix.Matrix) [][]float64 {
	n, _ := X.Dims()
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, m.M)
		copy(out[i], m.B)
	}
	if m.W != nil {
		for i := range out {
			for t := 0; t < m.M; t++ {
				out[i][t] += X.RowDot(i, m.W[t])
			}
		}
		return out
	}
	ns, _ := m.sv.Dims()
	if ns == 0 {
		return out
	}
	// Blocks of rows whose inner products with the support vectors and
	// one kernel's values of them take at most 32 MB.
	per := predictRows(ns)
	rows := make([]int, 0, per)
	for lo := 0; lo < n; lo += per {
		rows = rows[:0]
		for i := lo; i < min(n, lo+per); i++ {
			rows = append(rows, i)
		}
		block := X
		if len(rows) < n {
			block = X.RowsOf(rows)
		}
		dots := kernel.NewDots(block, m.sv)
		for d, k := range m.kerns {
			K := dots.Matrix(k, m.med.Normalize)
			for t := 0; t < m.M; t++ {
				s := m.switchOf(t, d)
				if s == 0 {
					continue
				}
				for r, i := range rows {
					row := K[r*ns : (r+1)*ns]
					var v float64
					for j, c := range m.coef[t] {
						v += c * row[j]
					}
					out[i][t] += s * v
				}
			}
		}
	}
	return out
}

// predictRows returns how many rows Decision scores at once against ns
// support vectors: as many as keep their inner products and one kernel's
// values (2 floats each) within 32 MB, at least one (as svm's).
func predictRows(ns int) int {
	return max(1, (32<<20)/16/max(ns, 1))
}

// switchOf returns ŝ of task t's switch on kernel d (1 for select none).
func (m *Model) switchOf(t, d int) float64 {
	if m.med.Select == "none" {
		return 1
	}
	if len(m.S) == 1 {
		return m.S[0][d]
	}
	return m.S[t][d]
}

// Predict returns, for one task, scores [0, f(x)] (class 1 when f(x) > 0);
// for several tasks (FitTasks) the K = M one-vs-rest outputs f_m(x).
func (m *Model) Predict(X matrix.Matrix) *methods.Prediction {
	f := m.Decision(X)
	if !m.multi {
		sc := make([]float64, 2*len(f))
		for i, v := range f {
			sc[2*i+1] = v[0]
		}
		return &methods.Prediction{Scores: sc, K: 2}
	}
	sc := make([]float64, 0, len(f)*m.M)
	for _, v := range f {
		sc = append(sc, v...)
	}
	return &methods.Prediction{Scores: sc, K: m.M, OneVsRest: true}
}

// Info reports the coordinate-ascent sweeps, convergence and J(λ).
func (m *Model) Info() methods.Info { return m.info }

// Artifacts returns, for feature selection, the weights W_d per task as a
// table ("weights") and a plot across d ("weights-plot"); for kernel
// selection the switches ŝ_d per kernel and switch vector ("switches").
func (m *Model) Artifacts() []methods.Artifact {
	switch {
	case m.W != nil:
		rows := m.features
		if rows == nil {
			rows = make([]string, m.dim)
			for d := range rows {
				rows[d] = "x" + strconv.Itoa(d+1)
			}
		}
		tab := &methods.Table{Columns: m.taskNames, Rows: rows, Values: make([][]float64, m.dim)}
		for d := range tab.Values {
			tab.Values[d] = make([]float64, m.M)
			for t := 0; t < m.M; t++ {
				tab.Values[d][t] = m.W[t][d]
			}
		}
		plot := &methods.Plot{XLabel: "input dimension d", YLabel: "W_d"}
		for t := 0; t < m.M; t++ {
			s := methods.Series{Label: m.taskNames[t], X: make([]float64, m.dim), Y: append([]float64(nil), m.W[t]...)}
			for d := range s.X {
				s.X[d] = float64(d + 1)
			}
			plot.Series = append(plot.Series, s)
		}
		title := fmt.Sprintf("MED linear weights W_d (ρ = %g, c = %g)", m.med.Rho, m.med.C)
		return []methods.Artifact{
			{Name: "weights", Title: title, Table: tab},
			{Name: "weights-plot", Title: title, Plot: plot},
		}
	case m.med.Select == "kernels":
		cols := []string{"shared"}
		if len(m.S) > 1 {
			cols = m.taskNames
		}
		rows := make([]string, len(m.kerns))
		for d, k := range m.kerns {
			rows[d] = k.String()
		}
		tab := &methods.Table{Columns: cols, Rows: rows, Values: make([][]float64, len(rows))}
		for d := range rows {
			tab.Values[d] = make([]float64, len(m.S))
			for s := range m.S {
				tab.Values[d][s] = m.S[s][d]
			}
		}
		return []methods.Artifact{{Name: "switches", Title: fmt.Sprintf("MED kernel switches ŝ_d (ρ = %g, c = %g)", m.med.Rho, m.med.C), Table: tab}}
	}
	return nil
}

var _ methods.MultiTask = (*MED)(nil)
