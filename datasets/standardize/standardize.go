// Package standardize provides the transform plugin "standardize": every
// feature column centred on its mean and divided by its standard
// deviation, both taken on the training rows of each trial (fit: train, or
// fit: pool in an active-learning trial) and applied to every row with
// those statistics, so that the test rows never inform the scaling.
//
// Badly scaled columns (word frequencies next to counts in the thousands)
// make the linear solvers' problems ill-conditioned; declaring the scaling
// in the experiment replaces doing it by hand before the data are written.
// Sparse feature matrices are only scaled, whatever center says: centring
// would fill in every zero (Fit, called directly, refuses it with an error
// that says so).
package standardize

import (
	"context"
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func init() {
	datasets.RegisterTypedTransform("standardize", datasets.TypedTransform[params]{
		Doc: "each column centred on its mean and divided by its standard deviation, both from the rows it is fitted on " +
			"(fit: train; a constant column is only centred); sparse data is only scaled",
		Fit: func(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p params) (datasets.Fitted, error) {
			_, sparse := d.X.(*matrix.CSR)
			return Fit(ctx, d, p.Center && !sparse, p.Scale)
		},
		Memory:  memory,
		Learns:  true,
		Version: 1,
	})
}

// params are the parameters of standardize.
type params struct {
	Center bool `param:"center" default:"true" doc:"subtract each column's mean (dense data only: sparse data is scaled only, as centring would make it dense)"`
	Scale  bool `param:"scale" default:"true" doc:"divide each column by its standard deviation (population, divisor n; a constant column is left unscaled)"`
}

// Scaler is a fitted standardization x ↦ (x − Mean)·Scale, column-wise.
type Scaler struct {
	// Mean holds the fitted rows' column means; nil when not centring.
	Mean []float64
	// Scale holds each column's factor 1/sd (1 for a column of zero
	// deviation); nil when not scaling.
	Scale []float64
	cols  int
}

var _ datasets.Fitted = (*Scaler)(nil)

// Fit computes the column means and population standard deviations of the
// rows of d. Centring a sparse matrix is an error.
func Fit(ctx context.Context, d *datasets.Dataset, center, scale bool) (*Scaler, error) {
	if d.X == nil {
		return nil, fmt.Errorf("standardize: dataset %q has no feature matrix", d.Name)
	}
	n, c := d.X.Dims()
	if _, sparse := d.X.(*matrix.CSR); sparse && center {
		return nil, fmt.Errorf("standardize: dataset %q is sparse (%d × %d); centring would store every zero: scale only (center false)", d.Name, n, c)
	}
	if n == 0 {
		return nil, fmt.Errorf("standardize: dataset %q: no rows to fit on", d.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Two passes (mean, then squared deviations) for accuracy on columns
	// with a large mean.
	mean := make([]float64, c)
	for i := 0; i < n; i++ {
		d.X.Row(i, func(j int, v float64) { mean[j] += v })
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	s := &Scaler{cols: c}
	if center {
		s.Mean = mean
	}
	if !scale {
		return s, nil
	}
	ss := make([]float64, c)
	nz := make([]int, c)
	for i := 0; i < n; i++ {
		d.X.Row(i, func(j int, v float64) {
			dv := v - mean[j]
			ss[j] += dv * dv
			nz[j]++
		})
	}
	s.Scale = make([]float64, c)
	for j := range ss {
		// Entries not visited (sparse zeros) deviate by −mean.
		ss[j] += float64(n-nz[j]) * mean[j] * mean[j]
		sd := math.Sqrt(ss[j] / float64(n))
		s.Scale[j] = 1
		if sd > 1e-12*math.Max(1, math.Abs(mean[j])) {
			s.Scale[j] = 1 / sd
		}
	}
	return s, nil
}

// Transform returns d with the fitted statistics applied to its rows: a
// dense matrix stays dense and a sparse one sparse (only scaled).
func (s *Scaler) Transform(d *datasets.Dataset) (*datasets.Dataset, error) {
	n, c := d.X.Dims()
	if c != s.cols {
		return nil, fmt.Errorf("standardize: dataset %q has %d columns, the scaling was fitted on %d", d.Name, c, s.cols)
	}
	out := *d
	if sp, ok := d.X.(*matrix.CSR); ok {
		if s.Mean != nil {
			return nil, fmt.Errorf("standardize: dataset %q is sparse; the scaling was fitted with centring", d.Name)
		}
		val := make([]float64, len(sp.Val))
		for k, j := range sp.Ind {
			val[k] = sp.Val[k] * s.factor(int(j))
		}
		out.X = matrix.NewCSR(n, c, sp.Ptr, sp.Ind, val)
		return &out, nil
	}
	X := matrix.NewDense(n, c, nil)
	for i := 0; i < n; i++ {
		row := X.RawRow(i)
		d.X.Row(i, func(j int, v float64) { row[j] = v })
		for j, v := range row {
			if s.Mean != nil {
				v -= s.Mean[j]
			}
			row[j] = v * s.factor(j)
		}
	}
	out.X = X
	return &out, nil
}

func (s *Scaler) factor(j int) float64 {
	if s.Scale == nil {
		return 1
	}
	return s.Scale[j]
}

// memory estimates what Fit and Transform allocate on rows×cols with nnz
// stored entries: the transformed copy (dense, or the sparse values) and
// three column vectors.
func memory(rows, cols, nnz int, _ params) int64 {
	x := 8 * float64(nnz)
	if nnz >= rows*cols {
		x = 8 * float64(rows) * float64(cols)
	}
	b := x + 8*3*float64(cols) + 64<<10
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}
