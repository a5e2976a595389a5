// Package svm registers "svm", a plain soft-margin support vector machine
// (C-SVC), the baseline of Jebara (2004).
//
// With bias (the default) the kernel solver solves libsvm's dual
//
//	min ½ αᵀQα − Σα  s.t. 0 ≤ α ≤ C, yᵀα = 0,  Q_ij = y_i y_j k(x_i, x_j),
//
// by libsvm's SMO: second-order working-set selection (Fan, Chen & Lin
// 2005) and shrinking, stopping when the maximal KKT violation
// m(α) − M(α) < tol (libsvm's -e). Without bias the equality constraint
// disappears and the dual is solved by coordinate descent with exact
// clipped steps (Hsieh et al. 2008), stopping when every projected
// gradient is ≤ tol in absolute value.
//
// Memory is bounded like libsvm's: the training Gram matrix (with the
// inner products it is computed from) is precomputed, and shared through
// methods.Remember by every grid point on one training set, only when both
// fit in cache_mb (libsvm's -m; 200 MB by default, as libsvm's 100 MB of
// float32 columns); otherwise kernel columns are computed on demand
// (kernel.Columns) and kept in a least-recently-used cache of cache_mb
// (kernel.Cache), over the active set only under shrinking.
//
// The unnormalized linear kernel uses, by default (solver auto), the
// linear solver: dual coordinate descent on the primal weights, one pass
// over a row per step (liblinear's -s 3, Hsieh et al. 2008), with shrinking
// and a seeded random order. On problems with few columns (useIPM: at most
// 255, and n·p² ≤ 2·10⁸) it starts from the solution of a primal-dual
// interior-point method on the same dual (Ferris & Munson 2002), whose
// iterations, unlike coordinate descent's, do not slow down on badly
// scaled columns; coordinate descent then polishes it and its stopping
// rule certifies it (Info.Iterations counts its epochs). Its bias is the weight of a constant feature
// 1, regularized like the others (liblinear's -B 1), where libsvm's is
// not: the two solutions differ slightly (docs in bench/README.md). Its tol
// bounds the spread of the projected gradients over an epoch (liblinear's
// -e, default 0.1 there). solver: kernel gives libsvm's problem exactly.
// A fit that stops at max_iter reports Converged false (not_converged in
// the results).
//
// On K > 2 classes (multiclass) the kernel solver fits libsvm's
// one-vs-one SVMs, one per pair of classes, and predicts by their vote
// with libsvm's tie rule (multiModel); the linear solver fits liblinear's
// one-vs-rest SVMs, one per class against the rest. Both agree with the
// peers' predictions on a four-class set (multiclass_test.go). A dataset
// with tasks: one-vs-rest still fits the binary SVM per task.
//
// Kernels are those of package kernel; the RBF convention is
// k = exp(−‖x−x'‖²/(2σ²)), so libsvm's gamma = 1/(2σ²).
package svm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
)

func init() {
	methods.RegisterTyped("svm", methods.Typed[Params]{
		Doc:    "soft-margin SVM (SMO with bias, or dual coordinate descent without), linear/poly/RBF kernels",
		Kinds:  methods.Classification,
		New:    newFromParams,
		Memory: memory,
	})
}

// Params are the parameters of the "svm" plugin. The default of cache_mb
// is DefaultCacheMB.
type Params struct {
	C         float64 `param:"C" range:"(0, +inf)" default:"1" doc:"box constraint (soft-margin penalty)"`
	Kernel    string  `param:"kernel" enum:"linear|poly|rbf" default:"linear" doc:"linear x·x', poly (1+x·x')^degree, rbf exp(−‖x−x'‖²/(2σ²))"`
	Degree    int     `param:"degree" range:"[1, +inf)" default:"2" doc:"order of the polynomial kernel"`
	Sigma     float64 `param:"sigma" range:"(0, +inf)" default:"1" doc:"RBF width σ in exp(−‖x−x'‖²/(2σ²)) (libsvm gamma = 1/(2σ²))"`
	Normalize bool    `param:"normalize" default:"false" doc:"normalize the kernel to k(x,x) = 1"`
	Bias      bool    `param:"bias" default:"true" doc:"fit an unregularized bias (equality constraint yᵀα = 0, as libsvm)"`
	Tol       float64 `param:"tol" range:"(0, +inf)" default:"0.001" doc:"stopping tolerance on the KKT violation (libsvm -e)"`
	MaxIter   int     `param:"max_iter" range:"[1, +inf)" default:"10000000" doc:"maximal number of SMO / coordinate steps"`
	Solver    string  `param:"solver" enum:"auto|kernel|linear" default:"auto" doc:"auto: linear for the unnormalized linear kernel, else kernel; kernel: SMO on kernel columns (libsvm); linear: dual coordinate descent on the weights (liblinear -s 3, the bias a regularized constant feature)"`
	CacheMB   float64 `param:"cache_mb" range:"(0, +inf)" default:"200" doc:"kernel-column cache in MB (libsvm's -m); the Gram matrix is precomputed only when it fits"`
	Shrinking bool    `param:"shrinking" default:"true" doc:"shrink the active set of the kernel solver (libsvm's -h)"`
	Multi     string  `param:"multiclass,omitdefault" enum:"auto|ovo|ovr" default:"auto" doc:"K > 2 classes: ovo, one SVM per pair of classes and a vote (libsvm); ovr, one per class against the rest, the largest decision value wins (liblinear); auto: ovr for the linear solver, else ovo"`
}

// DefaultCacheMB is the default kernel-column cache, in MB
// (kernel.DefaultCacheMB, shared with med).
const DefaultCacheMB = kernel.DefaultCacheMB

// SVM is one configured soft-margin SVM.
type SVM struct {
	C         float64
	Kernel    kernel.Kernel
	Normalize bool
	Bias      bool
	Tol       float64
	MaxIter   int
	// Solver is "auto" (or empty), "kernel" or "linear" (the solver
	// parameter).
	Solver string
	// CacheMB is the kernel-column cache in MB; 0 means DefaultCacheMB.
	CacheMB float64
	// NoShrink turns the kernel solver's shrinking off.
	NoShrink bool
	// Seed orders the linear solver's coordinates (Fit uses env.Seed).
	Seed uint64
	// Multi is the reduction of K > 2 classes to binary problems: "ovo"
	// (libsvm), "ovr" (liblinear), or "auto"/"" (the multiclass
	// parameter).
	Multi string
}

func newFromParams(p Params) (methods.Method, error) {
	s := &SVM{C: p.C, Normalize: p.Normalize, Bias: p.Bias, Tol: p.Tol, MaxIter: p.MaxIter,
		Solver: p.Solver, CacheMB: p.CacheMB, NoShrink: !p.Shrinking, Multi: p.Multi}
	switch p.Kernel {
	case "linear":
		s.Kernel = kernel.Kernel{Kind: kernel.Linear}
	case "poly":
		s.Kernel = kernel.Kernel{Kind: kernel.Poly, Degree: p.Degree}
	case "rbf":
		s.Kernel = kernel.Kernel{Kind: kernel.RBF, Sigma: p.Sigma}
	default:
		return nil, fmt.Errorf("unknown kernel %q", p.Kernel)
	}
	return s, nil
}

// Fit trains an SVM; on two classes class 1 is the positive class (y =
// +1), on more the classes are reduced to binary problems as Multi says
// (fitMulti). The linear solver on a sparse training set keeps weights for
// its present columns alone when the others are many
// (methods.CompactColumns).
func (s *SVM) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if len(train.Classes) < 2 {
		return nil, fmt.Errorf("svm: dataset %q has %d classes; want at least 2", train.Name, len(train.Classes))
	}
	fit := func(X matrix.Matrix) (methods.Model, error) {
		if len(train.Classes) > 2 {
			return s.fitMulti(ctx, X, train, env)
		}
		y := make([]float64, train.Rows())
		for i := range y {
			y[i] = -1
			if train.Label(i) == 1 {
				y[i] = 1
			}
		}
		return s.FitBinary(ctx, X, y, env)
	}
	if s.linear() {
		full := train.Cols()
		if c, cols := methods.CompactColumns(train); cols != nil {
			m, err := fit(c.X)
			if err != nil {
				return nil, err
			}
			return methods.OnColumns(m, full, cols), nil
		}
	}
	return fit(train.X)
}

// FitBinary trains on X with labels y ∈ {−1, +1}.
func (s *SVM) FitBinary(ctx context.Context, X matrix.Matrix, y []float64, env *methods.Env) (*Model, error) {
	n, _ := X.Dims()
	if n != len(y) {
		panic(fmt.Sprintf("svm: %d rows and %d labels", n, len(y)))
	}
	if n == 0 {
		return nil, errors.New("svm: empty training set")
	}
	if s.linear() {
		return s.fitLinear(ctx, X, y, env)
	}
	q, err := s.kernelMatrix(X, env)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	m, err := s.fitKernel(ctx, X, y, q)
	if _, ok := q.(cached); ok {
		// The column cache, up to cache_mb, is the fit's largest
		// allocation and garbage once the fit returns; collected only
		// when the heap next doubles, it would stay resident under the
		// prediction's blocks and the next fit's cache. Collect it now:
		// RBF on ISOLET's vowels (cache_mb 400), whole-process peak RSS
		// 176 → 144 MB, CPU within the run-to-run noise. This path
		// only serves training sets whose Gram matrix exceeds the cache
		// (thousands of rows), whose fits take far longer than a
		// collection.
		q = nil
		runtime.GC()
	}
	return m, err
}

// fitKernel solves the kernel dual on X with labels y and the kernel
// matrix q of X's rows.
func (s *SVM) fitKernel(ctx context.Context, X matrix.Matrix, y []float64, q kmatrix) (*Model, error) {
	n, d := X.Dims()
	var res *solution
	var err error
	if s.Bias {
		res, err = smo(ctx, q, n, y, s.C, s.Tol, s.MaxIter, !s.NoShrink)
	} else {
		res, err = dcd(ctx, q, n, y, s.C, s.Tol, s.MaxIter)
	}
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	m := s.model(X, y, res)
	if s.Kernel.Kind == kernel.Linear && !s.Normalize {
		m.W = make([]float64, d)
		for k, i := range m.sv {
			X.AddRow(m.W, i, m.Coef[k])
		}
	}
	return m, nil
}

// linear reports whether the fit uses the linear solver.
func (s *SVM) linear() bool {
	switch s.Solver {
	case "linear":
		return true
	case "kernel":
		return false
	}
	return s.Kernel.Kind == kernel.Linear && !s.Normalize
}

// fitLinear fits by dual coordinate descent on the primal weights; with
// Bias the bias is the weight of a constant feature 1, regularized as
// liblinear's -B 1 does (libsvm's bias is not).
func (s *SVM) fitLinear(ctx context.Context, X matrix.Matrix, y []float64, env *methods.Env) (*Model, error) {
	if s.Kernel.Kind != kernel.Linear || s.Normalize {
		return nil, fmt.Errorf("svm: solver linear needs the unnormalized linear kernel, not %s (normalize %v)", s.Kernel, s.Normalize)
	}
	seed := s.Seed
	if env != nil {
		seed = env.Seed
	}
	bias := 0.0
	if s.Bias {
		bias = 1
	}
	Xs := sparseIfSparse(X)
	var alpha0 []float64
	if n, d := X.Dims(); useIPM(n, d) {
		var err error
		if alpha0, err = ipmStart(ctx, Xs, y, s.C, bias, 100); err != nil {
			return nil, fmt.Errorf("svm: %w", err)
		}
		for _, a := range alpha0 {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				alpha0 = nil // a failed start: coordinate descent from zero
				break
			}
		}
	}
	res, w, wb, err := linearDCD(ctx, Xs, y, s.C, bias, s.Tol, s.MaxIter, rand.New(rand.NewPCG(seed, 0x5f3)), alpha0)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	res.b = wb * bias
	m := s.model(X, y, res)
	m.W = w
	return m, nil
}

// sparseIfSparse returns a dense X with at most half its entries non-zero
// as a CSR copy, on whose rows the linear solver's steps pass over the
// non-zeros only, and any other X as it is.
func sparseIfSparse(X matrix.Matrix) matrix.Matrix {
	D, ok := X.(*matrix.Dense)
	if !ok {
		return X
	}
	nz := 0
	for _, v := range D.RawData() {
		if v != 0 {
			nz++
		}
	}
	if 2*nz > len(D.RawData()) {
		return X
	}
	return matrix.ToCSR(D)
}

// model returns the model of a dual solution: its support vectors are the
// rows with α > 0.
func (s *SVM) model(X matrix.Matrix, y []float64, res *solution) *Model {
	m := &Model{Kernel: s.Kernel, Normalize: s.Normalize, B: res.b, Alpha: res.alpha, info: methods.Info{Iterations: res.iter, Converged: res.converged, Objective: res.obj}}
	for i, a := range res.alpha {
		if a > 0 {
			m.sv = append(m.sv, i)
			m.Coef = append(m.Coef, a*y[i])
		}
	}
	m.SV = X.RowsOf(m.sv)
	return m
}

// cacheBytes returns the kernel cache's budget in bytes.
func (s *SVM) cacheBytes() int64 {
	mb := s.CacheMB
	if mb <= 0 {
		mb = DefaultCacheMB
	}
	return int64(mb * (1 << 20))
}

// gramFits reports whether the training Gram matrix of n rows, with the
// inner products it is computed from (both memoized), fits in a cache of
// the given bytes.
func gramFits(n int, bytes int64) bool {
	return methods.Floats(2, n, n) <= bytes
}

// kernelMatrix returns the training kernel matrix: the Gram matrix, shared
// through env's memo by every grid point on the training set, when it fits
// in the cache; else columns computed on demand through a cache of
// CacheMB.
func (s *SVM) kernelMatrix(X matrix.Matrix, env *methods.Env) (kmatrix, error) {
	n, _ := X.Dims()
	if gramFits(n, s.cacheBytes()) {
		g, err := s.gram(X, env)
		if err != nil {
			return nil, err
		}
		return &gram{n: n, k: g}, nil
	}
	return s.columns(X), nil
}

// gram returns the Gram matrix of the training rows X, shared through
// env's memo.
func (s *SVM) gram(X matrix.Matrix, env *methods.Env) ([]float64, error) {
	return kernel.CachedGram(env, X, s.Kernel, s.Normalize)
}

// columns returns the kernel columns of X's rows, computed on demand
// through a cache of CacheMB.
func (s *SVM) columns(X matrix.Matrix) kmatrix {
	return cached{kernel.NewCache(kernel.NewColumns(X, s.Kernel, s.Normalize), s.cacheBytes())}
}

// Model is a fitted SVM: f(x) = Σ_i Coef_i k(SV_i, x) + B.
type Model struct {
	Kernel    kernel.Kernel
	Normalize bool
	SV        matrix.Matrix // support vectors (rows with α > 0)
	Coef      []float64     // y_i α_i of each support vector
	B         float64
	Alpha     []float64 // the dual solution over all training rows
	W         []float64 // primal weights, for the unnormalized linear kernel
	info      methods.Info
	sv        []int // the training rows of SV
}

// Decision returns f(x) for every row of X.
func (m *Model) Decision(X matrix.Matrix) []float64 {
	n, _ := X.Dims()
	out := make([]float64, n)
	if m.W != nil {
		for i := range out {
			out[i] = X.RowDot(i, m.W) + m.B
		}
		return out
	}
	ns, _ := m.SV.Dims()
	if ns == 0 {
		for i := range out {
			out[i] = m.B
		}
		return out
	}
	m.decisionBlocks(X, out, predictRows(ns))
	return out
}

// decisionBlocks sets out to f(x) for the rows of X, scored against the
// support vectors per block of at most per rows.
func (m *Model) decisionBlocks(X matrix.Matrix, out []float64, per int) {
	n, _ := X.Dims()
	ns, _ := m.SV.Dims()
	rows := make([]int, 0, per)
	for lo := 0; lo < n; lo += cap(rows) {
		rows = rows[:0]
		for i := lo; i < min(n, lo+cap(rows)); i++ {
			rows = append(rows, i)
		}
		block := X
		if len(rows) < n {
			block = X.RowsOf(rows)
		}
		K := kernel.Cross(m.Kernel, block, m.SV, m.Normalize)
		for r, i := range rows {
			v := m.B
			row := K[r*ns : (r+1)*ns]
			for k, c := range m.Coef {
				v += c * row[k]
			}
			out[i] = v
		}
	}
}

// predictRows returns how many rows Decision scores at once against ns
// support vectors: as many as keep their inner products and kernel
// values (2 floats each) within 32 MB, at least one.
func predictRows(ns int) int {
	return max(1, (32<<20)/16/max(ns, 1))
}

// Predict returns scores [0, f(x)] per row: class 1 when f(x) > 0.
func (m *Model) Predict(X matrix.Matrix) *methods.Prediction {
	f := m.Decision(X)
	sc := make([]float64, 2*len(f))
	for i, v := range f {
		sc[2*i+1] = v
	}
	return &methods.Prediction{Scores: sc, K: 2}
}

// Info reports the solver's steps, convergence and dual objective.
func (m *Model) Info() methods.Info { return m.info }
