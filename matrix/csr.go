package matrix

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// CSR is a sparse matrix in compressed sparse row form: the non-zeros of row
// i are Val[Ptr[i]:Ptr[i+1]] at columns Ind[Ptr[i]:Ptr[i+1]], with column
// indices strictly increasing within a row.
//
// Column indices are int32, so a stored non-zero costs 12 bytes (its index
// and its float64 value); a CSR has at most MaxCSRDim columns (and, for
// its transpose, rows).
type CSR struct {
	R, C int
	Ptr  []int
	Ind  []int32
	Val  []float64
}

// MaxCSRDim is the largest number of columns of a CSR matrix: its column
// indices are int32.
const MaxCSRDim = math.MaxInt32

var _ Matrix = (*CSR)(nil)

// NewCSR returns a CSR matrix from its three arrays, which are used, not
// copied. It panics if they are inconsistent.
func NewCSR(r, c int, ptr []int, ind []int32, val []float64) *CSR {
	m := &CSR{R: r, C: c, Ptr: ptr, Ind: ind, Val: val}
	if err := m.Check(); err != nil {
		panic("matrix: NewCSR: " + err.Error())
	}
	return m
}

// Check reports whether the arrays of m are consistent: monotone Ptr,
// in-range and strictly increasing column indices within each row.
func (m *CSR) Check() error {
	if m.C < 0 || m.C > MaxCSRDim {
		return fmt.Errorf("%d columns, want 0 to %d", m.C, MaxCSRDim)
	}
	if len(m.Ptr) != m.R+1 {
		return fmt.Errorf("len(Ptr) = %d, want %d", len(m.Ptr), m.R+1)
	}
	if m.Ptr[0] != 0 || m.Ptr[m.R] != len(m.Ind) || len(m.Ind) != len(m.Val) {
		return fmt.Errorf("Ptr[0]=%d Ptr[r]=%d len(Ind)=%d len(Val)=%d", m.Ptr[0], m.Ptr[m.R], len(m.Ind), len(m.Val))
	}
	for i := 0; i < m.R; i++ {
		if m.Ptr[i] > m.Ptr[i+1] {
			return fmt.Errorf("row %d: Ptr decreases", i)
		}
		prev := -1
		for _, j32 := range m.Ind[m.Ptr[i]:m.Ptr[i+1]] {
			j := int(j32)
			if j <= prev || j >= m.C {
				return fmt.Errorf("row %d: column %d out of order or range", i, j)
			}
			prev = j
		}
	}
	return nil
}

// Dims returns the number of rows and columns.
func (m *CSR) Dims() (int, int) { return m.R, m.C }

// NNZ returns the number of stored non-zeros.
func (m *CSR) NNZ() int { return len(m.Val) }

// At returns the element at row i, column j (binary search within the row).
func (m *CSR) At(i, j int) float64 {
	lo, hi := m.Ptr[i], m.Ptr[i+1]
	if j < 0 || j > MaxCSRDim {
		return 0
	}
	ind := m.Ind[lo:hi]
	k, found := slices.BinarySearch(ind, int32(j))
	if found {
		return m.Val[lo+k]
	}
	return 0
}

// MulVec sets dst = m·x.
func (m *CSR) MulVec(dst, x []float64) {
	checkLen("MulVec dst", len(dst), m.R)
	checkLen("MulVec x", len(x), m.C)
	for i := 0; i < m.R; i++ {
		s := 0.0
		for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
			s += m.Val[k] * x[m.Ind[k]]
		}
		dst[i] = s
	}
}

// MulTransVec sets dst = mᵀ·x.
func (m *CSR) MulTransVec(dst, x []float64) {
	checkLen("MulTransVec dst", len(dst), m.C)
	checkLen("MulTransVec x", len(x), m.R)
	clear(dst)
	for i := 0; i < m.R; i++ {
		xi := x[i]
		if xi == 0 {
			continue
		}
		for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
			dst[m.Ind[k]] += m.Val[k] * xi
		}
	}
}

// RowDot returns the dot product of row i with w.
func (m *CSR) RowDot(i int, w []float64) float64 {
	s := 0.0
	for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
		s += m.Val[k] * w[m.Ind[k]]
	}
	return s
}

// AddRow adds alpha times row i to dst.
func (m *CSR) AddRow(dst []float64, i int, alpha float64) {
	lo, hi := m.Ptr[i], m.Ptr[i+1]
	SparseAxpy(dst, alpha, m.Ind[lo:hi], m.Val[lo:hi])
}

// Row calls fn for every non-zero of row i.
func (m *CSR) Row(i int, fn func(j int, v float64)) {
	for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
		fn(int(m.Ind[k]), m.Val[k])
	}
}

// RowsOf returns the given rows as a CSR matrix. A run of consecutive
// rows (ColumnRun) shares m's Ind and Val, with a Ptr of its own: the
// test rows of a given split (a training file, then a test file) cost no
// copy. Other rows are copied.
func (m *CSR) RowsOf(rows []int) Matrix {
	if i0, ok := ColumnRun(rows); ok {
		lo, hi := m.Ptr[i0], m.Ptr[i0+len(rows)]
		ptr := make([]int, len(rows)+1)
		for k := range ptr {
			ptr[k] = m.Ptr[i0+k] - lo
		}
		return &CSR{R: len(rows), C: m.C, Ptr: ptr, Ind: m.Ind[lo:hi:hi], Val: m.Val[lo:hi:hi]}
	}
	n := 0
	for _, i := range rows {
		n += m.Ptr[i+1] - m.Ptr[i]
	}
	out := &CSR{R: len(rows), C: m.C, Ptr: make([]int, len(rows)+1), Ind: make([]int32, 0, n), Val: make([]float64, 0, n)}
	for k, i := range rows {
		out.Ind = append(out.Ind, m.Ind[m.Ptr[i]:m.Ptr[i+1]]...)
		out.Val = append(out.Val, m.Val[m.Ptr[i]:m.Ptr[i+1]]...)
		out.Ptr[k+1] = len(out.Ind)
	}
	return out
}

// ColsOf returns the given columns, renumbered in the order given, as a new
// CSR matrix. A column listed twice appears twice.
func (m *CSR) ColsOf(cols []int) Matrix {
	where := make([][]int, m.C)
	for k, j := range cols {
		where[j] = append(where[j], k)
	}
	b := NewBuilder(len(cols))
	for i := 0; i < m.R; i++ {
		for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
			for _, nj := range where[m.Ind[k]] {
				b.Add(nj, m.Val[k])
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// T returns the transpose of m as a new CSR matrix (equivalently, m in
// compressed sparse column form).
func (m *CSR) T() *CSR {
	cnt := make([]int, m.C+1)
	for _, j := range m.Ind {
		cnt[j+1]++
	}
	for j := 0; j < m.C; j++ {
		cnt[j+1] += cnt[j]
	}
	if m.R > MaxCSRDim {
		panic(fmt.Sprintf("matrix: CSR.T: %d rows, want at most %d (they become int32 column indices)", m.R, MaxCSRDim))
	}
	out := &CSR{R: m.C, C: m.R, Ptr: append([]int(nil), cnt...), Ind: make([]int32, len(m.Ind)), Val: make([]float64, len(m.Val))}
	next := cnt[:m.C]
	for i := 0; i < m.R; i++ {
		for k := m.Ptr[i]; k < m.Ptr[i+1]; k++ {
			j := m.Ind[k]
			out.Ind[next[j]] = int32(i)
			out.Val[next[j]] = m.Val[k]
			next[j]++
		}
	}
	return out
}

// Builder assembles a CSR matrix row by row. Add elements of the current row
// in any order (duplicates are summed), then call EndRow.
type Builder struct {
	c    int
	m    CSR
	row  map[int]float64
	keys []int
}

// NewBuilder returns a Builder for a matrix with c columns.
func NewBuilder(c int) *Builder {
	if c < 0 || c > MaxCSRDim {
		panic(fmt.Sprintf("matrix: NewBuilder: %d columns, want 0 to %d", c, MaxCSRDim))
	}
	return &Builder{c: c, m: CSR{C: c, Ptr: []int{0}}, row: map[int]float64{}}
}

// Add adds v at column j of the current row.
func (b *Builder) Add(j int, v float64) {
	if j < 0 || j >= b.c {
		panic(fmt.Sprintf("matrix: Builder.Add: column %d out of range [0,%d)", j, b.c))
	}
	if _, ok := b.row[j]; !ok {
		b.keys = append(b.keys, j)
	}
	b.row[j] += v
}

// EndRow finishes the current row; zeros (including sums that cancel) are dropped.
func (b *Builder) EndRow() {
	sort.Ints(b.keys)
	for _, j := range b.keys {
		if v := b.row[j]; v != 0 {
			b.m.Ind = append(b.m.Ind, int32(j))
			b.m.Val = append(b.m.Val, v)
		}
	}
	clear(b.row)
	b.keys = b.keys[:0]
	b.m.R++
	b.m.Ptr = append(b.m.Ptr, len(b.m.Ind))
}

// Build returns the assembled matrix. The Builder must not be used afterwards.
func (b *Builder) Build() *CSR {
	m := b.m
	return &m
}
