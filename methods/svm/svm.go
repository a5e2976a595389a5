// Package svm registers "svm", a plain soft-margin support vector machine
// (C-SVC), the baseline of Jebara (2004).
//
// With bias (the default) it solves libsvm's dual
//
//	min ½ αᵀQα − Σα  s.t. 0 ≤ α ≤ C, yᵀα = 0,  Q_ij = y_i y_j k(x_i, x_j),
//
// by SMO with libsvm's second-order working-set selection (Fan, Chen & Lin
// 2005), stopping when the maximal KKT violation m(α) − M(α) ≤ tol (libsvm's
// -e). Without bias the equality constraint disappears and the dual is
// solved by coordinate descent with exact clipped steps (Hsieh et al. 2008),
// stopping when every projected gradient is ≤ tol in absolute value.
//
// Kernels are those of package kernel; the RBF convention is
// k = exp(−‖x−x'‖²/(2σ²)), so libsvm's gamma = 1/(2σ²). The Gram matrix of
// the training set is cached through methods.Remember and shared by every grid
// point on one training set when n ≤ 8000; larger problems compute kernel
// columns on demand.
package svm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/param"
)

func init() {
	methods.Register("svm", &methods.Plugin{
		Doc:    "soft-margin SVM (SMO with bias, or dual coordinate descent without), linear/poly/RBF kernels",
		Kinds:  methods.Classification,
		Params: Params,
		New:    newFromParams,
		Memory: memory,
	})
}

// Params are the parameters of the "svm" plugin.
var Params = []param.Decl{
	{Name: "C", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Doc: "box constraint (soft-margin penalty)"},
	{Name: "kernel", Type: param.Enum, Default: "linear", Choices: []string{"linear", "poly", "rbf"}, Doc: "linear x·x', poly (1+x·x')^degree, rbf exp(−‖x−x'‖²/(2σ²))"},
	{Name: "degree", Type: param.Int, Default: 2, Min: param.Bound(1), Doc: "order of the polynomial kernel"},
	{Name: "sigma", Type: param.Float, Default: 1.0, Min: param.Bound(0), MinExclusive: true, Doc: "RBF width σ in exp(−‖x−x'‖²/(2σ²)) (libsvm gamma = 1/(2σ²))"},
	{Name: "normalize", Type: param.Bool, Default: false, Doc: "normalize the kernel to k(x,x) = 1"},
	{Name: "bias", Type: param.Bool, Default: true, Doc: "fit an unregularized bias (equality constraint yᵀα = 0, as libsvm)"},
	{Name: "tol", Type: param.Float, Default: 1e-3, Min: param.Bound(0), MinExclusive: true, Doc: "stopping tolerance on the KKT violation (libsvm -e)"},
	{Name: "max_iter", Type: param.Int, Default: 10000000, Min: param.Bound(1), Doc: "maximal number of SMO / coordinate steps"},
}

// SVM is one configured soft-margin SVM.
type SVM struct {
	C         float64
	Kernel    kernel.Kernel
	Normalize bool
	Bias      bool
	Tol       float64
	MaxIter   int
}

func newFromParams(p param.Values) (methods.Method, error) {
	s := &SVM{C: p.Float("C"), Normalize: p.Bool("normalize"), Bias: p.Bool("bias"), Tol: p.Float("tol"), MaxIter: p.Int("max_iter")}
	switch p.String("kernel") {
	case "linear":
		s.Kernel = kernel.Kernel{Kind: kernel.Linear}
	case "poly":
		s.Kernel = kernel.Kernel{Kind: kernel.Poly, Degree: p.Int("degree")}
	case "rbf":
		s.Kernel = kernel.Kernel{Kind: kernel.RBF, Sigma: p.Float("sigma")}
	default:
		return nil, fmt.Errorf("unknown kernel %q", p.String("kernel"))
	}
	return s, nil
}

// gramLimit is the largest training set whose Gram matrix is precomputed.
const gramLimit = 8000

// Fit trains a binary SVM; class 1 is the positive class (y = +1).
func (s *SVM) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if len(train.Classes) != 2 {
		return nil, fmt.Errorf("svm: dataset %q has %d classes; svm is binary (use tasks: one-vs-rest)", train.Name, len(train.Classes))
	}
	y := make([]float64, train.Rows())
	for i := range y {
		y[i] = -1
		if train.Label(i) == 1 {
			y[i] = 1
		}
	}
	return s.FitBinary(ctx, train.X, y, env)
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
	q, err := s.columns(X, env)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	var res *solution
	if s.Bias {
		res, err = smo(ctx, q, y, s.C, s.Tol, s.MaxIter)
	} else {
		res, err = dcd(ctx, q, y, s.C, s.Tol, s.MaxIter)
	}
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	m := &Model{Kernel: s.Kernel, Normalize: s.Normalize, B: res.b, Alpha: res.alpha, info: methods.Info{Iterations: res.iter, Converged: res.converged, Objective: res.obj}}
	var sv []int
	for i, a := range res.alpha {
		if a > 0 {
			sv = append(sv, i)
			m.Coef = append(m.Coef, a*y[i])
		}
	}
	m.SV = X.RowsOf(sv)
	if s.Kernel.Kind == kernel.Linear && !s.Normalize {
		_, d := X.Dims()
		m.W = make([]float64, d)
		for k, i := range sv {
			X.AddRow(m.W, i, m.Coef[k])
		}
	}
	return m, nil
}

// kcols gives the kernel matrix's diagonal and columns.
type kcols struct {
	n    int
	diag []float64
	gram []float64 // n×n, or nil: columns on demand
	col  func(i int, dst []float64)
}

func (k *kcols) column(i int, buf []float64) []float64 {
	if k.gram != nil {
		return k.gram[i*k.n : (i+1)*k.n]
	}
	k.col(i, buf)
	return buf
}

func (s *SVM) columns(X matrix.Matrix, env *methods.Env) (*kcols, error) {
	n, _ := X.Dims()
	kc := &kcols{n: n, diag: make([]float64, n)}
	if n <= gramLimit {
		g, err := kernel.CachedGram(env, X, s.Kernel, s.Normalize)
		if err != nil {
			return nil, err
		}
		kc.gram = g
		for i := range kc.diag {
			kc.diag[i] = g[i*n+i]
		}
		return kc, nil
	}
	norms := kernel.RowNorms2(X)
	selfs := make([]float64, n)
	for i, a := range norms {
		selfs[i] = s.Kernel.Self(a)
		kc.diag[i] = selfs[i]
		if s.Normalize {
			kc.diag[i] = 1
			if !(selfs[i] > 0) {
				kc.diag[i] = 0
			}
		}
	}
	_, d := X.Dims()
	work := make([]float64, d)
	kc.col = func(i int, dst []float64) {
		X.Row(i, func(j int, v float64) { work[j] = v })
		for t := 0; t < n; t++ {
			v := s.Kernel.FromDot(X.RowDot(t, work), norms[t], norms[i])
			if s.Normalize {
				if selfs[t] > 0 && selfs[i] > 0 {
					v /= math.Sqrt(selfs[t] * selfs[i])
				} else {
					v = 0
				}
			}
			dst[t] = v
		}
		X.Row(i, func(j int, v float64) { work[j] = 0 })
	}
	return kc, nil
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
	K := kernel.Cross(m.Kernel, X, m.SV, m.Normalize)
	for i := range out {
		v := m.B
		row := K[i*ns : (i+1)*ns]
		for k, c := range m.Coef {
			v += c * row[k]
		}
		out[i] = v
	}
	return out
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
