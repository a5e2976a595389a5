// Package reduce provides dimensionality-reducing transforms fitted per
// trial: `pca`, principal component analysis of the rows it is fitted on
// (the pool of an active-learning trial with fit: pool), applied to every
// row.
package reduce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/matrix/eigen"
)

func init() {
	datasets.RegisterTypedTransform("pca", datasets.TypedTransform[pcaParams]{
		Doc: "principal component analysis fitted on the rows of its fit: part (fit: pool: the pool, labels hidden; fit: all: every row, test rows included), " +
			"projecting every row onto the components sorted by decreasing variance (dense columns pc1, pc2, …)",
		Fit: func(ctx context.Context, env datasets.Env, d *datasets.Dataset, p pcaParams) (datasets.Fitted, error) {
			f, err := FitPCACached(ctx, env, d.X, p.options())
			if err != nil {
				return nil, err
			}
			return p.projecting(f), nil
		},
		// fit: all — once on every row, test rows included (transductive).
		Apply: func(ctx context.Context, env datasets.Env, d *datasets.Dataset, p pcaParams) (*datasets.Dataset, error) {
			f, err := FitPCACached(ctx, env, d.X, p.options())
			if err != nil {
				return nil, err
			}
			return p.projecting(f).Transform(d)
		},
		Memory:  pcaMemory,
		Learns:  true,
		Version: 1,
	})
}

// pcaParams are the parameters of pca.
type pcaParams struct {
	Components  int     `param:"components" range:"[0, +inf)" default:"0" doc:"keep the first components; 0 keeps all of non-negligible variance (at most min(rows−1, columns))"`
	Variance    float64 `param:"variance" range:"(0, 1]" default:"1" doc:"keep the fewest leading components that explain this fraction of the total variance (Weka's -R; 1 keeps all)"`
	Standardize bool    `param:"standardize" default:"false" doc:"divide every column by its standard deviation first (PCA of the correlation matrix, Weka's default); false only centres"`
	Projection  string  `param:"projection,omitdefault" enum:"centred|raw" default:"centred" doc:"centred: a row x becomes Vᵀ·diag(s)·(x − μ), the rows the analysis diagonalized (s the standardizing factors, else 1); raw: Vᵀx, the directions applied to the rows as they are, neither centred nor scaled (the older code of Weka's PrincipalComponents, CVS rev. 1.25.2.2: the correlation matrix's eigenvectors times the raw values) — a rotation of the rows, so that L2-regularized models without an intercept see the same geometry as on the rows themselves"`
}

// options returns the Options of p.
func (p pcaParams) options() Options {
	return Options{Components: p.Components, Variance: p.Variance, Standardize: p.Standardize}
}

// projecting returns the analysis f projecting as p.Projection says: f
// itself (centred), or a copy of it with a zero mean and unit scale (raw:
// x ↦ Vᵀx). The fit, and so its cache file, is the same either way.
func (p pcaParams) projecting(f *PCA) *PCA {
	if p.Projection != "raw" {
		return f
	}
	raw := *f
	raw.Mean = make([]float64, len(f.Mean))
	raw.Scale = make([]float64, len(f.Scale))
	for j := range raw.Scale {
		raw.Scale[j] = 1
	}
	return &raw
}

// Options configures FitPCA. The zero value keeps every component of
// non-negligible variance of the centred rows.
type Options struct {
	// Components, if positive, keeps at most the first Components
	// components.
	Components int
	// Variance, if in (0, 1), keeps the fewest leading components whose
	// variances sum to at least that fraction of the total. 0 or 1 keeps
	// all.
	Variance float64
	// Standardize scales every column to unit standard deviation before
	// the analysis (columns of zero deviation stay zero).
	Standardize bool
}

// relTol is the variance, relative to the largest, below which a component
// is numerical noise of a rank-deficient fit and is dropped.
const relTol = 1e-12

// PCA is a fitted principal component analysis: the projection
// x ↦ Vᵀ·diag(Scale)·(x − Mean) onto the components, the columns of V,
// sorted by decreasing variance.
type PCA struct {
	// Mean holds the fitted rows' column means.
	Mean []float64
	// Scale holds the factor applied to each centred column: 1, or with
	// Options.Standardize 1/sd (0 for a constant column).
	Scale []float64
	// Components is d×m: column i is the i-th principal direction, of
	// unit norm, with its largest-magnitude entry positive (the sign
	// convention that makes the fit deterministic).
	Components *mat.Dense
	// Variances holds the m components' variances (sample, divisor n−1)
	// on the fitted rows, decreasing.
	Variances []float64
}

var _ datasets.Fitted = (*PCA)(nil)

// FitPCA fits a principal component analysis to the rows of X.
//
// With at most as many columns as rows it diagonalizes the d×d covariance
// matrix (eigen.Sym: gonum's EigenSym, bit for bit, on every core); with
// more columns than rows, the n×n Gram matrix of the centred rows, mapping its eigenvectors u to the directions
// Xcᵀu/‖Xcᵀu‖ — the cheaper of the two eigenproblems, and cheaper than an
// SVD of the rows in gonum. Sparse rows are accumulated by their non-zeros
// only. Components whose variance is below 1e-12 of the largest are
// dropped: the fitted rows do not span them.
func FitPCA(ctx context.Context, X matrix.Matrix, o Options) (*PCA, error) {
	n, d := X.Dims()
	if n < 2 || d == 0 {
		return nil, fmt.Errorf("pca: needs at least 2 rows and 1 column, have %d×%d", n, d)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &PCA{Mean: matrix.ColumnMeans(X), Scale: make([]float64, d)}
	for j := range p.Scale {
		p.Scale[j] = 1
	}
	if o.Standardize {
		for j, s := range matrix.ColumnStds(X) {
			p.Scale[j] = 0
			if s > 0 {
				p.Scale[j] = 1 / s
			}
		}
	}
	// vals are the eigenvalues, decreasing; V the d×m directions.
	vals, V, err := cancellable(ctx, func() ([]float64, *mat.Dense) {
		if d <= n {
			return p.covarianceEigen(X)
		}
		// Only the directions kept are mapped back to feature space: all
		// n of them would be a dense d×n matrix (8 GB for a million
		// 5-gram columns and a thousand rows).
		limit := 0
		if !(o.Variance > 0 && o.Variance < 1) {
			limit = o.Components
		}
		return p.gramEigen(X, limit)
	})
	if err != nil {
		return nil, err
	}
	if len(vals) == 0 || !(vals[0] > 0) {
		return nil, errors.New("pca: the fitted rows have no variance")
	}
	m := 0
	for m < len(vals) && vals[m] > relTol*vals[0] {
		m++
	}
	if o.Variance > 0 && o.Variance < 1 {
		total := 0.0
		for _, v := range vals[:m] {
			total += v
		}
		sum, k := 0.0, 0
		for k < m && sum < o.Variance*total {
			sum += vals[k]
			k++
		}
		m = k
	}
	if o.Components > 0 {
		m = min(m, o.Components)
	}
	p.Components = mat.DenseCopyOf(V.Slice(0, d, 0, m))
	p.Variances = make([]float64, m)
	for i := range p.Variances {
		p.Variances[i] = vals[i] / float64(n-1)
		fixSign(p.Components, i)
	}
	return p, nil
}

// covarianceEigen returns the eigenvalues of (n−1) times the covariance
// matrix of the scaled rows, decreasing, and their eigenvectors.
func (p *PCA) covarianceEigen(X matrix.Matrix) ([]float64, *mat.Dense) {
	n, d := X.Dims()
	S := mat.NewSymDense(d, nil)
	if csr, ok := X.(*matrix.CSR); ok {
		// Σᵢ xᵢxᵢᵀ over the non-zeros, less n·μμᵀ.
		raw := S.RawSymmetric()
		for i := 0; i < n; i++ {
			ind, val := csr.Ind[csr.Ptr[i]:csr.Ptr[i+1]], csr.Val[csr.Ptr[i]:csr.Ptr[i+1]]
			for a, ja := range ind {
				va := val[a] * p.Scale[ja]
				row := raw.Data[int(ja)*raw.Stride:]
				for b := a; b < len(ind); b++ {
					row[ind[b]] += va * val[b] * p.Scale[ind[b]]
				}
			}
		}
		mu := p.scaledMean()
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				S.SetSym(a, b, S.At(a, b)-float64(n)*mu[a]*mu[b])
			}
		}
	} else {
		S.SymOuterK(1, p.centred(X).T())
	}
	vals, V, err := eigen.Sym(S, 0)
	if err != nil {
		panic("pca: eigendecomposition of the covariance matrix failed")
	}
	return reverse(vals, V)
}

// gramEigen returns the eigenvalues of the n×n Gram matrix of the centred,
// scaled rows, decreasing, and the corresponding unit directions in
// feature space: the first limit of them when limit is positive, all of
// non-negligible variance otherwise.
func (p *PCA) gramEigen(X matrix.Matrix, limit int) ([]float64, *mat.Dense) {
	n, d := X.Dims()
	G := mat.NewSymDense(n, nil)
	var Xc *mat.Dense
	if csr, ok := X.(*matrix.CSR); ok {
		// XXᵀ as Σⱼ cⱼcⱼᵀ over the columns' non-zeros, then centred on
		// both sides: Gc = HGH with H = I − 11ᵀ/n.
		cols := csr.T()
		raw := G.RawSymmetric()
		for j := 0; j < d; j++ {
			s2 := p.Scale[j] * p.Scale[j]
			ind, val := cols.Ind[cols.Ptr[j]:cols.Ptr[j+1]], cols.Val[cols.Ptr[j]:cols.Ptr[j+1]]
			for a, ia := range ind {
				va := val[a] * s2
				row := raw.Data[int(ia)*raw.Stride:]
				for b := a; b < len(ind); b++ {
					row[ind[b]] += va * val[b]
				}
			}
		}
		r := make([]float64, n) // row means of G
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				r[a] += G.At(a, b)
			}
			r[a] /= float64(n)
		}
		all := 0.0
		for _, v := range r {
			all += v
		}
		all /= float64(n)
		for a := 0; a < n; a++ {
			for b := a; b < n; b++ {
				G.SetSym(a, b, G.At(a, b)-r[a]-r[b]+all)
			}
		}
	} else {
		Xc = p.centred(X)
		G.SymOuterK(1, Xc)
	}
	ev, U, err := eigen.Sym(G, 0)
	if err != nil {
		panic("pca: eigendecomposition of the Gram matrix failed")
	}
	vals, Us := reverse(ev, U)
	m := 0
	for m < len(vals) && vals[m] > relTol*vals[0] {
		m++
	}
	if limit > 0 {
		m = min(m, limit)
	}
	// v = Xcᵀu = diag(Scale)(Xᵀu − μ·Σu), normalized.
	V := mat.NewDense(d, max(m, 1), nil)
	u, v := make([]float64, n), make([]float64, d)
	for i := 0; i < m; i++ {
		mat.Col(u, i, Us)
		if Xc != nil {
			mat.NewVecDense(d, v).MulVec(Xc.T(), mat.NewVecDense(n, u))
		} else {
			X.MulTransVec(v, u)
			su := 0.0
			for _, x := range u {
				su += x
			}
			for j := range v {
				v[j] = (v[j] - p.Mean[j]*su) * p.Scale[j]
			}
		}
		norm := 0.0
		for _, x := range v {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		for j, x := range v {
			V.Set(j, i, x/norm)
		}
	}
	return vals[:m], V
}

// centred returns the centred, scaled rows of X as a gonum matrix.
func (p *PCA) centred(X matrix.Matrix) *mat.Dense {
	n, d := X.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		for j := range row {
			row[j] = -p.Mean[j]
		}
		X.Row(i, func(j int, v float64) { row[j] += v })
		for j := range row {
			row[j] *= p.Scale[j]
		}
	}
	return out
}

// scaledMean returns diag(Scale)·Mean.
func (p *PCA) scaledMean() []float64 {
	mu := make([]float64, len(p.Mean))
	for j, m := range p.Mean {
		mu[j] = m * p.Scale[j]
	}
	return mu
}

// reverse returns the ascending eigenvalues vals in decreasing order with
// the columns of V permuted alike.
func reverse(vals []float64, V *mat.Dense) ([]float64, *mat.Dense) {
	r, c := V.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < c; i++ {
		out.ColView(i).(*mat.VecDense).CopyVec(V.ColView(c - 1 - i))
	}
	slices.Reverse(vals)
	return vals, out
}

// fixSign flips column i of V so that its entry of largest magnitude (the
// first of equal ones) is positive.
func fixSign(V *mat.Dense, i int) {
	r, _ := V.Dims()
	best := 0
	for j := 1; j < r; j++ {
		if math.Abs(V.At(j, i)) > math.Abs(V.At(best, i)) {
			best = j
		}
	}
	if V.At(best, i) < 0 {
		for j := 0; j < r; j++ {
			V.Set(j, i, -V.At(j, i))
		}
	}
}

// Project returns the rows of X (the fitted rows' columns) projected onto
// the components: a dense n×m matrix.
func (p *PCA) Project(X matrix.Matrix) *matrix.Dense {
	n, d := X.Dims()
	dd, m := p.Components.Dims()
	if d != dd {
		panic(fmt.Sprintf("pca: Project: %d columns, fitted on %d", d, dd))
	}
	// W = diag(Scale)·V, offset = (diag(Scale)·Mean)ᵀV.
	W := mat.DenseCopyOf(p.Components)
	for j := 0; j < d; j++ {
		row := W.RawRowView(j)
		for k := range row {
			row[k] *= p.Scale[j]
		}
	}
	offset := make([]float64, m)
	mat.NewVecDense(m, offset).MulVec(W.T(), mat.NewVecDense(d, slices.Clone(p.Mean)))
	out := matrix.NewDense(n, m, nil)
	if n == 0 {
		return out
	}
	if dense, ok := X.(*matrix.Dense); ok {
		o := mat.NewDense(n, m, out.RawData())
		o.Mul(dense.Mat(), W)
		for i := 0; i < n; i++ {
			row := out.RawRow(i)
			for k := range row {
				row[k] -= offset[k]
			}
		}
		return out
	}
	// Sparse rows: each row's sum over its non-zeros, then the offset;
	// the rows are independent, so they are shared among goroutines (the
	// same values as one loop).
	workers := max(1, min(runtime.GOMAXPROCS(0), n/64))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				row := out.RawRow(i)
				X.Row(i, func(j int, v float64) {
					for k, w := range W.RawRowView(j) {
						row[k] += v * w
					}
				})
				for k := range row {
					row[k] -= offset[k]
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// Transform returns d with its rows projected onto the components: dense
// columns pc1 … pcm. Column-level information of d (feature names, groups,
// graphs) does not carry over.
func (p *PCA) Transform(d *datasets.Dataset) (*datasets.Dataset, error) {
	if _, c := d.X.Dims(); c != len(p.Mean) {
		return nil, fmt.Errorf("pca: dataset has %d columns, the analysis was fitted on %d", c, len(p.Mean))
	}
	out := *d
	out.X = p.Project(d.X)
	out.Features = make([]string, len(p.Variances))
	for i := range out.Features {
		out.Features[i] = "pc" + strconv.Itoa(i+1)
	}
	out.Groups, out.Graphs = nil, nil
	return &out, nil
}

// cancellable runs f, which cannot be interrupted (gonum's
// eigendecomposition: a minute and more on a large pool), in a goroutine
// and returns as soon as ctx is done: an interrupted run then stops at
// once rather than after the factorization, which finishes unobserved. A
// panic in f is raised again in the caller's goroutine, where the runner
// recovers it as a failed trial.
func cancellable(ctx context.Context, f func() ([]float64, *mat.Dense)) ([]float64, *mat.Dense, error) {
	type result struct {
		vals  []float64
		V     *mat.Dense
		panic any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			r.panic = recover()
			done <- r
		}()
		r.vals, r.V = f()
	}()
	select {
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case r := <-done:
		if r.panic != nil {
			panic(r.panic)
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		return r.vals, r.V, nil
	}
}
