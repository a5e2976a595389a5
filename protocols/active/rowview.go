package active

import (
	"fmt"

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
	// d is m when it is dense; the view then holds only its columns j0 to
	// j0+c−1 (all of them unless the view came from ColsOf).
	d     *matrix.Dense
	j0, c int
}

// viewRows returns the rows of m as a matrix.Matrix without copying them.
func viewRows(m matrix.Matrix, rows []int) matrix.Matrix {
	v := &rowView{m: m, rows: rows}
	if d, ok := m.(*matrix.Dense); ok {
		v.d = d
		_, v.c = d.Dims()
	}
	return v
}

// row returns the view's part of the dense matrix's row r.
func (v *rowView) row(r int) []float64 { return v.d.RawRow(r)[v.j0 : v.j0+v.c] }

func (v *rowView) Dims() (int, int) {
	if v.d != nil {
		return len(v.rows), v.c
	}
	_, c := v.m.Dims()
	return len(v.rows), c
}

func (v *rowView) At(i, j int) float64 {
	if v.d != nil {
		return v.row(v.rows[i])[j]
	}
	return v.m.At(v.rows[i], j)
}

func (v *rowView) MulVec(dst, x []float64) {
	if len(dst) != len(v.rows) {
		panic("rowView: MulVec: dst length mismatch")
	}
	if v.d != nil {
		if len(x) != v.c {
			panic("rowView: MulVec: x length mismatch")
		}
		for i, r := range v.rows {
			dst[i] = floats.Dot(v.row(r), x)
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
	if v.d == nil {
		for k, x := range xs {
			v.MulVec(dst[k], x)
		}
		return
	}
	for k := range xs {
		if len(dst[k]) != len(v.rows) || len(xs[k]) != v.c {
			panic("rowView: MulVecs: length mismatch")
		}
	}
	for i, r := range v.rows {
		row := v.row(r)
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
	if v.d != nil {
		for i, r := range v.rows {
			floats.AddScaled(dst, x[i], v.row(r))
		}
		return
	}
	for i, r := range v.rows {
		v.m.AddRow(dst, r, x[i])
	}
}

// RowDot and AddRow compute as Dense's do (a plain loop), so that a view
// and a copy agree bit for bit.
func (v *rowView) RowDot(i int, w []float64) float64 {
	if v.d == nil {
		return v.m.RowDot(v.rows[i], w)
	}
	if len(w) != v.c {
		panic("rowView: RowDot: w length mismatch")
	}
	s := 0.0
	for j, x := range v.row(v.rows[i]) {
		s += x * w[j]
	}
	return s
}

func (v *rowView) AddRow(dst []float64, i int, alpha float64) {
	if v.d == nil {
		v.m.AddRow(dst, v.rows[i], alpha)
		return
	}
	if len(dst) != v.c {
		panic("rowView: AddRow: dst length mismatch")
	}
	for j, x := range v.row(v.rows[i]) {
		dst[j] += alpha * x
	}
}

func (v *rowView) Row(i int, fn func(j int, v float64)) {
	if v.d != nil {
		for j, x := range v.row(v.rows[i]) {
			fn(j, x)
		}
		return
	}
	v.m.Row(v.rows[i], fn)
}

func (v *rowView) NNZ() int {
	if v.d != nil {
		return len(v.rows) * v.c
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
	if v.d != nil {
		out := matrix.NewDense(len(rows), v.c, nil)
		for k, r := range src {
			copy(out.RawRow(k), v.row(r))
		}
		return out
	}
	return v.m.RowsOf(src)
}

// ColsOf returns the given columns of the view's rows. A run of
// consecutive columns of a dense matrix is a view of the same rows,
// without a copy (EE's pool at every candidate number of leading
// components: a copy of 17,000 rows × hundreds of components per
// candidate was most of an EE fit's time); other columns are copied.
func (v *rowView) ColsOf(cols []int) matrix.Matrix {
	if v.d == nil {
		return v.m.RowsOf(v.rows).ColsOf(cols)
	}
	if j0, ok := matrix.ColumnRun(cols); ok {
		if j1 := j0 + len(cols); j0 < 0 || j1 > v.c {
			panic(fmt.Sprintf("rowView: ColsOf: columns %d to %d of %d", j0, j1-1, v.c))
		}
		return &rowView{m: v.m, rows: v.rows, d: v.d, j0: v.j0 + j0, c: len(cols)}
	}
	out := matrix.NewDense(len(v.rows), len(cols), nil)
	for k, r := range v.rows {
		src, dst := v.row(r), out.RawRow(k)
		for c, j := range cols {
			dst[c] = src[j]
		}
	}
	return out
}
