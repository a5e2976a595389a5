package matrix

import "fmt"

// Matrix is a read-only r×c matrix stored by rows. Dense and *CSR implement it.
//
// Solvers that must run on dense or sparse features use only these methods;
// those that need random access to columns (coordinate descent) call
// ColumnMajor once and work on the result.
type Matrix interface {
	// Dims returns the number of rows and columns.
	Dims() (r, c int)
	// At returns the element at row i, column j.
	At(i, j int) float64
	// MulVec sets dst = A·x. len(dst) must be r and len(x) c.
	MulVec(dst, x []float64)
	// MulTransVec sets dst = Aᵀ·x. len(dst) must be c and len(x) r.
	MulTransVec(dst, x []float64)
	// RowDot returns the dot product of row i with w (len(w) == c).
	RowDot(i int, w []float64) float64
	// AddRow adds alpha times row i to dst (len(dst) == c).
	AddRow(dst []float64, i int, alpha float64)
	// Row calls fn for every stored element of row i in increasing column
	// order. Dense matrices store every element, sparse ones only non-zeros.
	Row(i int, fn func(j int, v float64))
	// NNZ returns the number of stored elements.
	NNZ() int
	// RowsOf returns a matrix made of the given rows, in that order. It
	// may share the receiver's storage (matrices are read-only).
	RowsOf(rows []int) Matrix
	// ColsOf returns a new matrix made of the given columns, in that order.
	ColsOf(cols []int) Matrix
}

// MultiVec is a Matrix that multiplies several vectors in one pass over
// its rows, each product the same float64 as MulVec's (Dense.MulVecs).
type MultiVec interface {
	Matrix
	// MulVecs sets dst[k] = A·xs[k] for every k.
	MulVecs(dst, xs [][]float64)
}

func checkLen(op string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("matrix: %s: length %d, want %d", op, got, want))
	}
}

// Sparsity returns the fraction of elements of m that are stored, in [0, 1].
func Sparsity(m Matrix) float64 {
	r, c := m.Dims()
	if r == 0 || c == 0 {
		return 0
	}
	return float64(m.NNZ()) / (float64(r) * float64(c))
}

// ColumnNorms2 returns the squared Euclidean norm of every column of m.
func ColumnNorms2(m Matrix) []float64 {
	r, c := m.Dims()
	out := make([]float64, c)
	if d, ok := m.(*Dense); ok { // the same sums, in the same order, without a call per element
		for i := 0; i < r; i++ {
			row := d.RawRow(i)
			for j := range out {
				out[j] += row[j] * row[j]
			}
		}
		return out
	}
	for i := 0; i < r; i++ {
		m.Row(i, func(j int, v float64) { out[j] += v * v })
	}
	return out
}

// ColumnMeans returns the mean of every column of m.
func ColumnMeans(m Matrix) []float64 {
	r, c := m.Dims()
	out := make([]float64, c)
	if r == 0 {
		return out
	}
	for i := 0; i < r; i++ {
		m.Row(i, func(j int, v float64) { out[j] += v })
	}
	for j := range out {
		out[j] /= float64(r)
	}
	return out
}

// ColumnStds returns the population standard deviation of every column of m.
func ColumnStds(m Matrix) []float64 {
	r, c := m.Dims()
	mean := ColumnMeans(m)
	sq := ColumnNorms2(m)
	out := make([]float64, c)
	if r == 0 {
		return out
	}
	for j := range out {
		v := sq[j]/float64(r) - mean[j]*mean[j]
		if v > 0 {
			out[j] = sqrt(v)
		}
	}
	return out
}

// ToDense returns m as a Dense matrix, copying it unless it already is one.
func ToDense(m Matrix) *Dense {
	if d, ok := m.(*Dense); ok {
		return d
	}
	r, c := m.Dims()
	d := NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		row := d.RawRow(i)
		m.Row(i, func(j int, v float64) { row[j] = v })
	}
	return d
}

// ToCSR returns m as a CSR matrix, copying it unless it already is one.
// Explicit zeros of a dense matrix are not stored.
func ToCSR(m Matrix) *CSR {
	if s, ok := m.(*CSR); ok {
		return s
	}
	r, c := m.Dims()
	b := NewBuilder(c)
	for i := 0; i < r; i++ {
		m.Row(i, func(j int, v float64) {
			if v != 0 {
				b.Add(j, v)
			}
		})
		b.EndRow()
	}
	return b.Build()
}
