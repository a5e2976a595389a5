package matrix

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

// Dense is a row-major dense matrix. Its zero value is an empty 0×0 matrix.
type Dense struct {
	r, c int
	data []float64
}

var _ Matrix = (*Dense)(nil)

// NewDense returns an r×c dense matrix backed by data, which is used, not
// copied. If data is nil a zeroed slice is allocated; otherwise len(data)
// must be r*c.
func NewDense(r, c int, data []float64) *Dense {
	if r < 0 || c < 0 {
		panic("matrix: negative dimension")
	}
	if data == nil {
		data = make([]float64, r*c)
	}
	if len(data) != r*c {
		panic(fmt.Sprintf("matrix: NewDense: len(data) = %d, want %d×%d", len(data), r, c))
	}
	return &Dense{r: r, c: c, data: data}
}

// Dims returns the number of rows and columns.
func (d *Dense) Dims() (int, int) { return d.r, d.c }

// At returns the element at row i, column j.
func (d *Dense) At(i, j int) float64 { return d.data[i*d.c+j] }

// Set sets the element at row i, column j to v.
func (d *Dense) Set(i, j int, v float64) { d.data[i*d.c+j] = v }

// RawRow returns row i as a slice sharing d's storage.
func (d *Dense) RawRow(i int) []float64 { return d.data[i*d.c : (i+1)*d.c] }

// RawData returns the row-major backing slice of d.
func (d *Dense) RawData() []float64 { return d.data }

// NNZ returns r*c: a dense matrix stores every element.
func (d *Dense) NNZ() int { return d.r * d.c }

// Mat returns a gonum *mat.Dense that shares d's storage.
func (d *Dense) Mat() *mat.Dense {
	if d.r == 0 || d.c == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(d.r, d.c, d.data)
}

func (d *Dense) general() blas64.General {
	return blas64.General{Rows: d.r, Cols: d.c, Stride: d.c, Data: d.data}
}

// MulVec sets dst = d·x.
func (d *Dense) MulVec(dst, x []float64) {
	checkLen("MulVec dst", len(dst), d.r)
	checkLen("MulVec x", len(x), d.c)
	if d.r == 0 {
		return
	}
	if d.c == 0 {
		clear(dst)
		return
	}
	blas64.Gemv(blasNoTrans, 1, d.general(), blas64.Vector{N: d.c, Inc: 1, Data: x}, 0, blas64.Vector{N: d.r, Inc: 1, Data: dst})
}

// mulVecsBlock is the size in bytes of the block of rows MulVecs keeps in
// cache across its vectors.
const mulVecsBlock = 256 << 10

// MulVecs sets dst[k] = d·xs[k] for every k, each element the same float64
// as MulVec's, reading d from memory once rather than once per vector: a
// block of rows at a time (256 kB), multiplied by every vector while it is
// in cache. A one-vs-rest model's K decision functions on a test set of
// 1,400 rows × 1,433 columns read 16 MB once instead of K times. Gonum's
// kernel (GemvN) sums every row alone and takes the rows in groups of 4
// from the first; the blocks start at multiples of 4 rows and hold
// multiples of 4 (the last one the remainder, as in one call), so each row
// meets the same code as in MulVec (TestMulVecs).
func (d *Dense) MulVecs(dst, xs [][]float64) {
	checkLen("MulVecs dst", len(dst), len(xs))
	for k := range xs {
		checkLen("MulVecs dst", len(dst[k]), d.r)
		checkLen("MulVecs x", len(xs[k]), d.c)
	}
	if d.r == 0 {
		return
	}
	if d.c == 0 {
		for _, y := range dst {
			clear(y)
		}
		return
	}
	b := max(4, mulVecsBlock/(8*d.c)&^3)
	for i0 := 0; i0 < d.r; i0 += b {
		i1 := min(i0+b, d.r)
		g := blas64.General{Rows: i1 - i0, Cols: d.c, Stride: d.c, Data: d.data[i0*d.c : i1*d.c]}
		for k, x := range xs {
			blas64.Gemv(blasNoTrans, 1, g, blas64.Vector{N: d.c, Inc: 1, Data: x}, 0, blas64.Vector{N: i1 - i0, Inc: 1, Data: dst[k][i0:i1]})
		}
	}
}

// MulTransVec sets dst = dᵀ·x.
func (d *Dense) MulTransVec(dst, x []float64) {
	checkLen("MulTransVec dst", len(dst), d.c)
	checkLen("MulTransVec x", len(x), d.r)
	if d.c == 0 {
		return
	}
	if d.r == 0 {
		clear(dst)
		return
	}
	blas64.Gemv(blasTrans, 1, d.general(), blas64.Vector{N: d.r, Inc: 1, Data: x}, 0, blas64.Vector{N: d.c, Inc: 1, Data: dst})
}

// RowDot returns the dot product of row i with w.
func (d *Dense) RowDot(i int, w []float64) float64 {
	checkLen("RowDot", len(w), d.c)
	row := d.RawRow(i)
	s := 0.0
	for j, v := range row {
		s += v * w[j]
	}
	return s
}

// AddRow adds alpha times row i to dst.
func (d *Dense) AddRow(dst []float64, i int, alpha float64) {
	checkLen("AddRow", len(dst), d.c)
	for j, v := range d.RawRow(i) {
		dst[j] += alpha * v
	}
}

// Row calls fn for every element of row i.
func (d *Dense) Row(i int, fn func(j int, v float64)) {
	for j, v := range d.RawRow(i) {
		fn(j, v)
	}
}

// RowsOf returns the given rows: a view of d's storage for a run of
// consecutive rows (ColumnRun), a copy otherwise.
func (d *Dense) RowsOf(rows []int) Matrix {
	if i0, ok := ColumnRun(rows); ok {
		lo, hi := i0*d.c, (i0+len(rows))*d.c
		return NewDense(len(rows), d.c, d.data[lo:hi:hi])
	}
	out := NewDense(len(rows), d.c, nil)
	for k, i := range rows {
		copy(out.RawRow(k), d.RawRow(i))
	}
	return out
}

// ColsOf returns a copy of the given columns.
func (d *Dense) ColsOf(cols []int) Matrix {
	out := NewDense(d.r, len(cols), nil)
	if j0, ok := ColumnRun(cols); ok { // leading components (DDR, EE): a copy per row
		for i := 0; i < d.r; i++ {
			copy(out.RawRow(i), d.RawRow(i)[j0:j0+len(cols)])
		}
		return out
	}
	for i := 0; i < d.r; i++ {
		src, dst := d.RawRow(i), out.RawRow(i)
		for k, j := range cols {
			dst[k] = src[j]
		}
	}
	return out
}

// ColumnRun reports whether cols is a non-empty run j0, j0+1, … and
// returns j0: ColsOf of such columns copies a slice of every row, and
// RowsOf of such rows is a view.
func ColumnRun(cols []int) (int, bool) {
	if len(cols) == 0 {
		return 0, false
	}
	for k, j := range cols {
		if j != cols[0]+k {
			return 0, false
		}
	}
	return cols[0], true
}

// T returns the transpose of d as a new Dense matrix.
func (d *Dense) T() *Dense {
	out := NewDense(d.c, d.r, nil)
	for i := 0; i < d.r; i++ {
		for j, v := range d.RawRow(i) {
			out.data[j*d.r+i] = v
		}
	}
	return out
}
