package hp

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lsq"
	"github.com/repro-ml/repro/param"
)

// DefaultBandwidths are the paper's 7 bandwidths, log-spaced from 10⁻¹ to 10².
var DefaultBandwidths = []float64{0.1, 0.31622776601683794, 1, 3.1622776601683795, 10, 31.622776601683793, 100}

func init() {
	methods.RegisterTyped("kernel-hp", methods.Typed[kernelParams]{
		Doc: "multiple kernel regression with hierarchical penalization (Szafranski 2007 §4.3): one-input Gaussian kernels " +
			"exp(−(x−x')²/(2h²)) (or /h², /h: param width) at each bandwidth, each bandwidth a group of n coefficients",
		Kinds:  methods.Regression,
		Memory: memKernelHP,
		Needs:  func(kernelParams) methods.Needs { return methods.Needs{Columns: 1} },
		New: func(p kernelParams) (methods.Method, error) {
			if err := validateKernel(p); err != nil {
				return nil, err
			}
			return &kernelMethod{nu: p.Nu, h: p.Bandwidths, width: p.Width, grid: p.Grid, intercept: p.Intercept, opt: p.options(p.Batch)}, nil
		},
		Validate: validateKernel,
	})
}

// kernelParams are the parameters of kernel-hp. The default of
// bandwidths is DefaultBandwidths.
type kernelParams struct {
	Nu         float64   `param:"nu" range:"[0, +inf)" default:"25" doc:"ν of RSS + ν Σ_k n^{1/4}(Σ_j|β_kj|^{4/3})^{3/4} (the paper's criterion (5))"`
	Bandwidths []float64 `param:"bandwidths" range:"(0, +inf)" default:"[0.1 0.31622776601683794 1 3.1622776601683795 10 31.622776601683793 100]" doc:"kernel bandwidths h (input units)"`
	Width      string    `param:"width" enum:"2h^2|h^2|h" default:"2h^2" doc:"denominator of the Gaussian kernel exp(−(x−x')²/width): 2h² (h is the standard deviation), h², or h (the paper does not say)"`
	Grid       int       `param:"grid" range:"[2, +inf)" default:"400" doc:"number of points of the fitted-curve artifact"`
	Batch      bool      `param:"batch" default:"true" doc:"step D also adds every violating variable of the already-active groups at once (same solution, fewer Newton solves)"`
	solverParams
}

// validateKernel checks what kernel-hp's declarations cannot express: at
// least one bandwidth (each is checked > 0 by its declaration).
func validateKernel(p kernelParams) error {
	if len(p.Bandwidths) == 0 {
		return param.Invalid("bandwidths", "empty list; want at least one bandwidth h > 0")
	}
	return nil
}

// kernelMethod is kernel-hp. Its solver (Solve) works on the covariance
// form of the regression on the kernel design X = [K_{h_1} … K_{h_K}]
// (lsq.Design: XᵀX, (K·n)×(K·n), and Xᵀy): every entry of XᵀX is an inner
// product of two kernel columns over all n rows, and the active-set Newton
// steps read whole rows of it, so the method genuinely needs the whole
// design and its covariance, not kernel columns on demand; it has no
// cache_mb (a kernel-column cache, as svm's and med's, would not bound
// it). memKernelHP counts the design, its centred copy, the covariance
// and the solver's systems over K·n columns: O(K² n²) bytes, which the
// runner uses to refuse a trial over the memory limit.
type kernelMethod struct {
	nu        float64
	h         []float64
	width     string
	grid      int
	intercept bool
	opt       Options
}

// KernelDesign returns the n×(K·n) matrix [K_{h_1} … K_{h_K}] with
// K_h[i][j] = exp(−(x_i − z_j)²/(2h²)) for inputs x and centres z.
func KernelDesign(x, z, h []float64) *matrix.Dense { return KernelDesignWidth(x, z, h, "2h^2") }

// KernelDesignWidth is KernelDesign with the kernel
// exp(−(x − z)²/w(h)), where width names w: "2h^2" (w = 2h², h is the
// standard deviation), "h^2" (w = h²) or "h" (w = h). It panics on another
// width.
func KernelDesignWidth(x, z, h []float64, width string) *matrix.Dense {
	n, m := len(x), len(z)
	out := matrix.NewDense(n, len(h)*m, nil)
	for i, xi := range x {
		row := out.RawRow(i)
		for k, hk := range h {
			c := -1 / widthOf(hk, width)
			for j, zj := range z {
				d := xi - zj
				row[k*m+j] = math.Exp(c * d * d)
			}
		}
	}
	return out
}

// widthOf returns the kernel denominator w(h) of exp(−d²/w(h)).
func widthOf(h float64, width string) float64 {
	switch width {
	case "2h^2", "":
		return 2 * h * h
	case "h^2":
		return h * h
	case "h":
		return h
	}
	panic("hp: unknown kernel width " + strconv.Quote(width))
}

func bandwidthName(h float64) string { return "h=" + strconv.FormatFloat(h, 'g', 4, 64) }

func (m *kernelMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	if train.IsClassification() {
		return nil, fmt.Errorf("kernel-hp: dataset %q is a classification dataset; kernel-hp does regression", train.Name)
	}
	n, c := train.X.Dims()
	if c != 1 {
		return nil, fmt.Errorf("kernel-hp: dataset %q has %d input columns; kernel-hp takes exactly one (e.g. mcycle times)", train.Name, c)
	}
	if n < 2 {
		return nil, fmt.Errorf("kernel-hp: dataset %q: %d training rows, need at least 2", train.Name, n)
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = train.X.At(i, 0)
	}
	key := methods.Key{Op: "hp.kernel-design",
		Args: fmt.Sprintf("h=%v/width=%s/intercept=%t/y=%s", m.h, m.width, m.intercept, methods.ContentID(train.Y))}
	ds, err := methods.Remember(env, key, func() (*lsq.Design, error) {
		return lsq.NewDesign(KernelDesignWidth(x, x, m.h, m.width), train.Y, false, m.intercept)
	})
	if err != nil {
		return nil, fmt.Errorf("kernel-hp: dataset %q: %w", train.Name, err)
	}
	groups := make([][]int, len(m.h))
	for k := range groups {
		for j := 0; j < n; j++ {
			groups[k] = append(groups[k], k*n+j)
		}
	}
	sol, err := Solve(ctx, ds, groups, m.nu, m.opt)
	if err != nil {
		return nil, fmt.Errorf("kernel-hp: dataset %q: %w", train.Name, err)
	}
	beta, b := ds.Coefficients(sol.Beta)
	km := &KernelModel{X: x, H: m.h, Width: m.width, Beta: beta, Intercept: b,
		info: methods.Info{Iterations: sol.Newton, Converged: sol.Converged, Objective: sol.Objective}}
	km.artifacts = km.makeArtifacts(train, groups, m.grid)
	return km, nil
}

// KernelModel is a fitted kernel-hp model:
// f(x) = Intercept + Σ_k Σ_j Beta[k·n+j] κ_{H[k]}(x, X[j]), with
// κ_h(x, z) = exp(−(x − z)²/w(h)) and w named by Width (see
// KernelDesignWidth; "" means "2h^2").
type KernelModel struct {
	X, H      []float64
	Width     string
	Beta      []float64
	Intercept float64
	info      methods.Info
	artifacts []methods.Artifact
}

// Contribution returns Σ_j β_kj κ_{h_k}(x, x_j), bandwidth k's part of f(x).
func (m *KernelModel) Contribution(k int, x float64) float64 {
	n := len(m.X)
	c := -1 / widthOf(m.H[k], m.Width)
	s := 0.0
	for j, z := range m.X {
		if b := m.Beta[k*n+j]; b != 0 {
			d := x - z
			s += b * math.Exp(c*d*d)
		}
	}
	return s
}

// Value returns f(x).
func (m *KernelModel) Value(x float64) float64 {
	s := m.Intercept
	for k := range m.H {
		s += m.Contribution(k, x)
	}
	return s
}

// Predict returns f at the first column of X.
func (m *KernelModel) Predict(X matrix.Matrix) *methods.Prediction {
	r, c := X.Dims()
	if c != 1 {
		panic(fmt.Sprintf("hp: KernelModel.Predict: %d columns, want 1", c))
	}
	out := make([]float64, r)
	for i := range out {
		out[i] = m.Value(X.At(i, 0))
	}
	return &methods.Prediction{Values: out}
}

// Info reports the fit.
func (m *KernelModel) Info() methods.Info { return m.info }

// Artifacts returns the "fit" plot (the paper's Fig. 3 layout: data points,
// combined fit, each bandwidth's contribution over a grid of x) and the
// "bandwidths" table (per bandwidth: hp group norm n^{1/4}‖β_k‖_{4/3},
// number of non-zero coefficients, and whether the group is exactly zero).
func (m *KernelModel) Artifacts() []methods.Artifact { return m.artifacts }

// GroupNorms returns n^{1/4}(Σ_j|β_kj|^{4/3})^{3/4} for each bandwidth k.
func (m *KernelModel) GroupNorms() []float64 {
	n := len(m.X)
	out := make([]float64, len(m.H))
	for k := range out {
		out[k] = lsq.HPNorm(m.Beta[k*n : (k+1)*n])
	}
	return out
}

func (m *KernelModel) makeArtifacts(train *datasets.Dataset, groups [][]int, gridN int) []methods.Artifact {
	lo, hi := m.X[0], m.X[0]
	for _, v := range m.X {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	grid := make([]float64, gridN)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/float64(gridN-1)
	}
	xlab, ylab := "x", "y"
	if len(train.Features) == 1 {
		xlab = train.Features[0]
	}
	plot := &methods.Plot{XLabel: xlab, YLabel: ylab}
	plot.Series = append(plot.Series, methods.Series{Label: "data", X: append([]float64(nil), m.X...), Y: append([]float64(nil), train.Y...), Points: true})
	comb := make([]float64, gridN)
	for i, x := range grid {
		comb[i] = m.Value(x)
	}
	plot.Series = append(plot.Series, methods.Series{Label: "combined", X: grid, Y: comb})
	tab := &methods.Table{Columns: []string{"hp_norm", "nonzero", "zero_group"}}
	norms := m.GroupNorms()
	n := len(m.X)
	for k, h := range m.H {
		ys := make([]float64, gridN)
		for i, x := range grid {
			ys[i] = m.Contribution(k, x)
		}
		plot.Series = append(plot.Series, methods.Series{Label: bandwidthName(h), X: grid, Y: ys})
		nz := 0
		for _, b := range m.Beta[k*n : (k+1)*n] {
			if b != 0 {
				nz++
			}
		}
		zero := 0.0
		if nz == 0 {
			zero = 1
		}
		tab.Rows = append(tab.Rows, bandwidthName(h))
		tab.Values = append(tab.Values, []float64{norms[k], float64(nz), zero})
	}
	return []methods.Artifact{
		{Name: "fit", Title: "Combined fit and each bandwidth's contribution", Plot: plot},
		{Name: "bandwidths", Title: "Group norm n^{1/4}(Σ_j|β_kj|^{4/3})^{3/4} per bandwidth", Table: tab},
	}
}
