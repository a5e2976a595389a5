// Package normalize provides the transform plugin "normalize": the
// preprocessing of Paskov et al. (2013) before their elastic-net logistic
// regression — each document (row) divided by its L1 norm, then each
// feature (column) divided by its standard deviation. Columns are not
// centred, so sparse matrices stay sparse.
//
// Run on the whole dataset (Apply) the standard deviations are those of
// every row; fitted per trial (fit: train or fit: pool) they are those of
// the rows it is fitted on, and applied to every row.
package normalize

import (
	"context"
	"fmt"
	"maps"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

func init() {
	datasets.RegisterTypedTransform("normalize", datasets.TypedTransform[params]{
		Doc: "each row divided by its L1 norm, then each column by its standard deviation (Paskov et al.'s elastic-net preprocessing); fit: train takes the deviations from the training rows",
		Apply: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, p params) (*datasets.Dataset, error) {
			f, err := fit(d, p)
			if err != nil {
				return nil, err
			}
			return f.Transform(d)
		},
		Fit: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, p params) (datasets.Fitted, error) {
			return fit(d, p)
		},
		Validate: func(p params) error {
			if p.L1 && p.L2 {
				return param.Invalid("l2", "l1 and l2 are both true, and a row is divided by one norm; want l1: false with l2: true")
			}
			return nil
		},
		Memory:  memory,
		Learns:  true,
		Version: 1,
	})
}

// params are the parameters of normalize.
type params struct {
	L1    bool `param:"l1" default:"true" doc:"divide each row by its L1 norm first (the paper did not for IMDb)"`
	L2    bool `param:"l2,omitdefault" default:"false" doc:"divide each row by its L2 norm instead (unit-length rows; needs l1: false)"`
	Scale bool `param:"scale" default:"true" doc:"divide each column by its standard deviation (population; a constant column is left as is)"`
}

// Scaler is a fitted normalization.
type Scaler struct {
	// L1 says whether rows are divided by their L1 norm.
	L1 bool
	// L2 says whether rows are divided by their L2 norm.
	L2 bool
	// Scale holds each column's factor, 1/sd (1 for a constant column);
	// nil: columns are not scaled.
	Scale []float64
}

var _ datasets.Fitted = (*Scaler)(nil)

func fit(d *datasets.Dataset, p params) (*Scaler, error) {
	if d.X == nil {
		return nil, fmt.Errorf("normalize: dataset %q has no feature matrix", d.Name)
	}
	s := Fit(d.X, p.L1, p.Scale)
	if p.L2 {
		s = FitL2(d.X, p.Scale)
	}
	return s, nil
}

// FitL2 returns the normalization of x with rows divided by their L2 norm
// and, with scale, then columns divided by their standard deviation over
// x's normalized rows.
func FitL2(x matrix.Matrix, scale bool) *Scaler {
	s := &Scaler{L2: true}
	if scale {
		s.Scale = reciprocals(matrix.ColumnStds(l2Rows(x)))
	}
	return s
}

// Fit returns the normalization of x: with l1, rows L1-normalized; with
// scale, then columns divided by their standard deviation over x's rows.
func Fit(x matrix.Matrix, l1, scale bool) *Scaler {
	s := &Scaler{L1: l1}
	if !scale {
		return s
	}
	rows := x
	if l1 {
		rows = l1Rows(x)
	}
	s.Scale = reciprocals(matrix.ColumnStds(rows))
	return s
}

// reciprocals returns 1/v of each standard deviation, 1 for a constant
// column (or one whose reciprocal overflows).
func reciprocals(sd []float64) []float64 {
	out := make([]float64, len(sd))
	for j, v := range sd {
		out[j] = 1
		if v > 0 && !math.IsInf(1/v, 0) {
			out[j] = 1 / v
		}
	}
	return out
}

// Transform returns d with its rows normalized and columns scaled.
func (s *Scaler) Transform(d *datasets.Dataset) (*datasets.Dataset, error) {
	if s.Scale != nil && d.Cols() != len(s.Scale) {
		return nil, fmt.Errorf("normalize: fitted on %d columns, applied to %d", len(s.Scale), d.Cols())
	}
	x := d.X
	if s.L1 {
		x = l1Rows(x)
	}
	if s.L2 {
		x = l2Rows(x)
	}
	if s.Scale != nil {
		x = scaleCols(x, s.Scale)
	}
	out := *d
	out.X = x
	out.Stats = maps.Clone(d.Stats)
	out.Notes = append(append([]string(nil), d.Notes...), s.note())
	return &out, nil
}

func (s *Scaler) note() string {
	switch {
	case s.L2 && s.Scale != nil:
		return "features normalized: each row divided by its L2 norm, then each feature by its standard deviation (not centred)"
	case s.L2:
		return "features normalized: each row divided by its L2 norm"
	case s.L1 && s.Scale != nil:
		return "features normalized: each document divided by its L1 norm, then each feature by its standard deviation (not centred)"
	case s.L1:
		return "features normalized: each document divided by its L1 norm"
	case s.Scale != nil:
		return "features normalized: each feature divided by its standard deviation (not centred)"
	}
	return "normalize: nothing done (l1 and scale off)"
}

// l1Rows returns x with every row divided by its L1 norm (zero rows kept).
func l1Rows(x matrix.Matrix) matrix.Matrix {
	return mapRows(x, func(i int) float64 {
		n := 0.0
		x.Row(i, func(_ int, v float64) { n += math.Abs(v) })
		if n == 0 {
			return 1
		}
		return 1 / n
	}, nil)
}

// l2Rows returns x with every row divided by its L2 norm (zero rows kept).
func l2Rows(x matrix.Matrix) matrix.Matrix {
	return mapRows(x, func(i int) float64 {
		n := 0.0
		x.Row(i, func(_ int, v float64) { n += v * v })
		if n == 0 {
			return 1
		}
		return 1 / math.Sqrt(n)
	}, nil)
}

func scaleCols(x matrix.Matrix, scale []float64) matrix.Matrix {
	return mapRows(x, func(int) float64 { return 1 }, scale)
}

// mapRows returns a copy of x, in its storage kind, with element (i, j)
// multiplied by row(i) and, if col is not nil, col[j].
func mapRows(x matrix.Matrix, row func(i int) float64, col []float64) matrix.Matrix {
	r, c := x.Dims()
	if dn, ok := x.(*matrix.Dense); ok {
		out := matrix.NewDense(r, c, nil)
		for i := range r {
			ri := row(i)
			src, dst := dn.RawRow(i), out.RawRow(i)
			for j, v := range src {
				v *= ri
				if col != nil {
					v *= col[j]
				}
				dst[j] = v
			}
		}
		return out
	}
	s := matrix.ToCSR(x)
	out := &matrix.CSR{R: s.R, C: s.C, Ptr: append([]int(nil), s.Ptr...), Ind: append([]int32(nil), s.Ind...), Val: make([]float64, len(s.Val))}
	for i := range r {
		ri := row(i)
		for q := s.Ptr[i]; q < s.Ptr[i+1]; q++ {
			v := s.Val[q] * ri
			if col != nil {
				v *= col[s.Ind[q]]
			}
			out.Val[q] = v
		}
	}
	return out
}
