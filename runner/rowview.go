package runner

import (
	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/matrix"
)

// rowView is the rows of a matrix, in a given order, without copying
// them: the active protocol's unlabelled pool, which it hands to the
// query strategy and to Env.Unlabelled at every batch. A copy of a pool
// of 17,000 rows × 3,000 principal components is 400 MB per batch; the
// view reads the rows where they are.
//
// Products with a dense matrix's rows use gonum's dot kernel, row by row;
// a copy's MulVec uses its matrix-vector kernel, whose sums may round in
// another order (a relative difference of the order of 1e-16).
type rowView struct {
	m    matrix.Matrix
	rows []int
}

// viewRows returns the rows of m as a matrix.Matrix without copying them.
func viewRows(m matrix.Matrix, rows []int) matrix.Matrix {
	return &rowView{m: m, rows: rows}
}

func (v *rowView) Dims() (int, int) {
	_, c := v.m.Dims()
	return len(v.rows), c
}

func (v *rowView) At(i, j int) float64 { return v.m.At(v.rows[i], j) }

func (v *rowView) MulVec(dst, x []float64) {
	if len(dst) != len(v.rows) {
		panic("rowView: MulVec: dst length mismatch")
	}
	if d, ok := v.m.(*matrix.Dense); ok {
		if _, c := d.Dims(); len(x) != c {
			panic("rowView: MulVec: x length mismatch")
		}
		for i, r := range v.rows {
			dst[i] = floats.Dot(d.RawRow(r), x)
		}
		return
	}
	for i, r := range v.rows {
		dst[i] = v.m.RowDot(r, x)
	}
}

// MulVecs sets dst[k] = v·xs[k], each element the same float64 as
// MulVec's (the same dot per row), taking every row once for all the
// vectors: a one-vs-rest model's K decision functions on the pool.
func (v *rowView) MulVecs(dst, xs [][]float64) {
	if len(dst) != len(xs) {
		panic("rowView: MulVecs: dst and xs lengths differ")
	}
	d, ok := v.m.(*matrix.Dense)
	if !ok {
		for k, x := range xs {
			v.MulVec(dst[k], x)
		}
		return
	}
	_, c := d.Dims()
	for k := range xs {
		if len(dst[k]) != len(v.rows) || len(xs[k]) != c {
			panic("rowView: MulVecs: length mismatch")
		}
	}
	for i, r := range v.rows {
		row := d.RawRow(r)
		for k, x := range xs {
			dst[k][i] = floats.Dot(row, x)
		}
	}
}

func (v *rowView) MulTransVec(dst, x []float64) {
	if len(x) != len(v.rows) {
		panic("rowView: MulTransVec: x length mismatch")
	}
	clear(dst)
	if d, ok := v.m.(*matrix.Dense); ok {
		for i, r := range v.rows {
			floats.AddScaled(dst, x[i], d.RawRow(r))
		}
		return
	}
	for i, r := range v.rows {
		v.m.AddRow(dst, r, x[i])
	}
}

func (v *rowView) RowDot(i int, w []float64) float64 { return v.m.RowDot(v.rows[i], w) }

func (v *rowView) AddRow(dst []float64, i int, alpha float64) { v.m.AddRow(dst, v.rows[i], alpha) }

func (v *rowView) Row(i int, fn func(j int, v float64)) { v.m.Row(v.rows[i], fn) }

func (v *rowView) NNZ() int {
	if d, ok := v.m.(*matrix.Dense); ok {
		_, c := d.Dims()
		return len(v.rows) * c
	}
	n := 0
	for _, r := range v.rows {
		v.m.Row(r, func(int, float64) { n++ })
	}
	return n
}

func (v *rowView) RowsOf(rows []int) matrix.Matrix {
	src := make([]int, len(rows))
	for k, i := range rows {
		src[k] = v.rows[i]
	}
	return v.m.RowsOf(src)
}

// ColsOf copies the given columns of the view's rows: for a dense matrix
// the same values, in the same layout, as ColsOf of a copy of the rows.
func (v *rowView) ColsOf(cols []int) matrix.Matrix {
	d, ok := v.m.(*matrix.Dense)
	if !ok {
		return v.m.RowsOf(v.rows).ColsOf(cols)
	}
	out := matrix.NewDense(len(v.rows), len(cols), nil)
	if j0, ok := matrix.ColumnRun(cols); ok { // leading components (EE's pool at every size)
		for k, r := range v.rows {
			copy(out.RawRow(k), d.RawRow(r)[j0:j0+len(cols)])
		}
		return out
	}
	for k, r := range v.rows {
		src, dst := d.RawRow(r), out.RawRow(k)
		for c, j := range cols {
			dst[c] = src[j]
		}
	}
	return out
}
