package spectral

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/methods/optim"
)

func init() {
	methods.RegisterTyped("pcr", methods.Typed[PCR]{
		Doc:    "logistic regression on the top m right singular vectors of the training X (Lanczos)",
		Kinds:  methods.Classification,
		Memory: memPCR,
		New:    func(p PCR) (methods.Method, error) { return &p, nil },
	})
	methods.RegisterTyped("lle-lr", methods.Typed[LLE]{
		Doc:    "logistic regression on the m smallest eigenvectors of (I−P)ᵀ(I−P), P the row-normalized feature graph",
		Kinds:  methods.Classification,
		Memory: memLLE,
		Needs:  func(p LLE) methods.Needs { return methods.Needs{Graphs: []string{p.Graph}} },
		New:    func(p LLE) (methods.Method, error) { return &p, nil },
	})
}

// Settings are the parameters PCR and LLE share: the number of
// eigenvectors projected on and the logistic regression's settings.
type Settings struct {
	M       int     `param:"m" range:"[1, +inf)" default:"200" doc:"number of eigenvectors to project on (paper: 200)"`
	C       float64 `param:"C" range:"(0, +inf)" default:"1" doc:"inverse ridge strength of the logistic regression on the projection: ½‖w‖² + C Σ loss"`
	MaxIter int     `param:"max_iter" range:"[1, +inf)" default:"200" doc:"L-BFGS iteration cap (paper: 200)"`
	Tol     float64 `param:"tol" range:"(0, +inf)" default:"1e-06" doc:"L-BFGS relative gradient tolerance"`
}

// Projection maps the d original columns to k new ones: z_c = Σ_j x_j V[j*k+c].
type Projection struct {
	D, K int
	V    []float64 // d×k row-major
}

// Apply returns X projected, as a dense n×k matrix.
func (p *Projection) Apply(X matrix.Matrix) *matrix.Dense {
	n, d := X.Dims()
	if d != p.D {
		panic(fmt.Sprintf("spectral: projection of %d columns applied to %d", p.D, d))
	}
	out := matrix.NewDense(n, p.K, nil)
	for i := 0; i < n; i++ {
		z := out.RawRow(i)
		X.Row(i, func(j int, v float64) {
			row := p.V[j*p.K : (j+1)*p.K]
			for c, w := range row {
				z[c] += v * w
			}
		})
	}
	return out
}

// fromVectors builds a projection on the first d entries of the vectors.
func fromVectors(vecs [][]float64, d int) *Projection {
	k := len(vecs)
	p := &Projection{D: d, K: k, V: make([]float64, d*k)}
	for c, v := range vecs {
		for j := 0; j < d; j++ {
			p.V[j*k+c] = v[j]
		}
	}
	return p
}

// Model is a logistic regression on projected features.
type Model struct {
	Proj *Projection
	LR   *logistic.Model
	// Eigenvalues are those of the vectors projected on (σ² for pcr).
	Eigenvalues []float64
}

// Predict projects X and applies the logistic regression.
func (m *Model) Predict(X matrix.Matrix) *methods.Prediction {
	return m.LR.Predict(m.Proj.Apply(X))
}

// Info reports how the logistic regression's fit went.
func (m *Model) Info() methods.Info { return m.LR.Info() }

func fitOnProjection(ctx context.Context, train *datasets.Dataset, proj *Projection, C float64, maxIter int, tol float64) (*Model, error) {
	if !train.IsClassification() || len(train.Classes) < 2 {
		return nil, fmt.Errorf("dataset %q: need a classification dataset with ≥ 2 classes", train.Name)
	}
	Z := matrix.ToCSR(proj.Apply(train.X))
	p := &logistic.Problem{X: Z, Y: train.Labels(), K: len(train.Classes), D: proj.K, Pen: logistic.Penalty{Ridge: 1 / (2 * C)}}
	lr, err := logistic.Train(ctx, p, optim.Settings{MaxIter: maxIter, GradTol: tol})
	if err != nil {
		return nil, err
	}
	return &Model{Proj: proj, LR: lr}, nil
}

// PCR is logistic regression on the top M right singular vectors of the
// training matrix.
type PCR struct {
	Settings
}

// TopRightSingular returns the top m right singular vectors of X (as
// vectors of length d) and their squared singular values, dropping those
// with σ² ≤ 1e-10·σ²_max. It runs Lanczos on XXᵀ (n ≤ d) or XᵀX.
func TopRightSingular(ctx context.Context, X *matrix.CSR, m int, seed uint64) ([][]float64, []float64, error) {
	n, d := X.Dims()
	k := min(m, n, d)
	var res *EigenResult
	var err error
	if n <= d {
		tmp := make([]float64, d)
		res, err = Lanczos(ctx, func(dst, x []float64) { X.MulTransVec(tmp, x); X.MulVec(dst, tmp) }, n, k, 1e-8, 0, seed)
	} else {
		tmp := make([]float64, n)
		res, err = Lanczos(ctx, func(dst, x []float64) { X.MulVec(tmp, x); X.MulTransVec(dst, tmp) }, d, k, 1e-8, 0, seed)
	}
	if err != nil {
		return nil, nil, err
	}
	var vecs [][]float64
	var vals []float64
	for i, lam := range res.Values {
		if len(res.Values) == 0 || lam <= 1e-10*res.Values[0] {
			break
		}
		v := res.Vectors[i]
		if n <= d {
			u := v
			v = make([]float64, d)
			X.MulTransVec(v, u)
			scale(v, 1/math.Sqrt(lam))
		}
		vecs = append(vecs, v)
		vals = append(vals, lam)
	}
	return vecs, vals, nil
}

// Fit computes the training set's top singular vectors and fits the
// logistic regression on the projection.
func (m *PCR) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	X := matrix.ToCSR(train.X)
	svd, err := methods.Remember(env, methods.Key{Op: "spectral.pcr-svd", Args: "m=" + strconv.Itoa(m.M)}, func() (singular, error) {
		vecs, vals, err := TopRightSingular(ctx, X, m.M, 1)
		return singular{vecs, vals}, err
	})
	if err != nil {
		return nil, fmt.Errorf("pcr: dataset %q: %w", train.Name, err)
	}
	_, d := X.Dims()
	model, err := fitOnProjection(ctx, train, fromVectors(svd.vecs, d), m.C, m.MaxIter, m.Tol)
	if err != nil {
		return nil, fmt.Errorf("pcr: %w", err)
	}
	model.Eigenvalues = svd.vals
	return model, nil
}

// singular holds right singular vectors and their squared singular values.
type singular struct {
	vecs [][]float64
	vals []float64
}

// LLE is logistic regression on the M eigenvectors of (I−P)ᵀ(I−P) with the
// smallest eigenvalues. P is the feature graph row-normalized; a row without
// out-links stays zero, so that feature's row of I−P is e_j (the paper's
// matrix taken literally; fnr instead drops such rows from its penalty).
// The eigenvectors span all D graph nodes; the projection uses their
// first d entries (virtual features never occur in X).
type LLE struct {
	Settings
	Graph string `param:"graph" default:"feature" doc:"name of the feature graph in the dataset's Graphs"`
}

// graphMemo caches the eigenvectors of feature graphs across trials: they
// depend on the graph only, which every training subset of a dataset
// shares. Keys name a graph by its content (graphID), not its address.
var graphMemo = &methods.Env{Memo: new(methods.Memo)}

// graphID returns an identity of g's content.
func graphID(g *matrix.CSR) string {
	return fmt.Sprintf("%dx%d/%s/%s/%s", g.R, g.C, methods.ContentID(g.Ptr), methods.ContentID(g.Ind), methods.ContentID(g.Val))
}

// SmallestLLE returns the m smallest eigenpairs of (I−P)ᵀ(I−P) for the raw
// graph g (row-normalized here).
func SmallestLLE(ctx context.Context, g *matrix.CSR, m int) (*EigenResult, error) {
	if g.R != g.C {
		return nil, fmt.Errorf("graph is %d×%d, want square", g.R, g.C)
	}
	D := g.R
	P := rowNormalize(g)
	y := make([]float64, D)
	py := make([]float64, D)
	op := func(dst, x []float64) {
		P.MulVec(y, x)
		for i := range y {
			y[i] = x[i] - y[i]
		}
		P.MulTransVec(py, y)
		for i := range dst {
			dst[i] = y[i] - py[i]
		}
	}
	k := min(m, D)
	return SmallestOfPSD(ctx, op, D, k, 1e-6, min(D, max(4*k, k+200)), 2008)
}

func rowNormalize(g *matrix.CSR) *matrix.CSR {
	out := &matrix.CSR{R: g.R, C: g.C, Ptr: g.Ptr, Ind: g.Ind, Val: make([]float64, len(g.Val))}
	for i := 0; i < g.R; i++ {
		s := 0.0
		for k := g.Ptr[i]; k < g.Ptr[i+1]; k++ {
			s += g.Val[k]
		}
		if s > 0 {
			for k := g.Ptr[i]; k < g.Ptr[i+1]; k++ {
				out.Val[k] = g.Val[k] / s
			}
		}
	}
	return out
}

// Fit projects the training set on the graph's smallest eigenvectors and
// fits the logistic regression.
func (m *LLE) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	g := train.Graphs[m.Graph]
	if g == nil {
		return nil, fmt.Errorf("lle-lr: dataset %q has no feature graph %q: add a graph transform such as cooccurrence-graph to it", train.Name, m.Graph)
	}
	_, d := train.X.Dims()
	if g.C < d || g.R != g.C {
		return nil, fmt.Errorf("lle-lr: graph %q is %d×%d for %d features", m.Graph, g.R, g.C, d)
	}
	key := methods.Key{Op: "spectral.lle", Args: fmt.Sprintf("graph=%s/m=%d", graphID(g), m.M)}
	res, err := methods.Remember(graphMemo, key, func() (*EigenResult, error) { return SmallestLLE(context.Background(), g, m.M) })
	if err != nil {
		return nil, fmt.Errorf("lle-lr: graph %q: %w", m.Graph, err)
	}
	model, err := fitOnProjection(ctx, train, fromVectors(res.Vectors, d), m.C, m.MaxIter, m.Tol)
	if err != nil {
		return nil, fmt.Errorf("lle-lr: %w", err)
	}
	model.Eigenvalues = res.Values
	return model, nil
}
