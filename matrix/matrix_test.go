package matrix_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// randomPair returns the same random r×c matrix as Dense and CSR, with
// about a third of the elements zero.
func randomPair(r, c int, seed uint64) (*matrix.Dense, *matrix.CSR) {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := matrix.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.IntN(3) > 0 {
				d.Set(i, j, rng.NormFloat64())
			}
		}
	}
	return d, matrix.ToCSR(d)
}

func vec(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12*(1+math.Abs(a[i])) {
			return false
		}
	}
	return true
}

// naiveMulVec is the definition of A·x.
func naiveMulVec(m matrix.Matrix, x []float64) []float64 {
	r, c := m.Dims()
	out := make([]float64, r)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out[i] += m.At(i, j) * x[j]
		}
	}
	return out
}

func TestKernelsAgree(t *testing.T) {
	for _, shape := range [][2]int{{1, 1}, {5, 3}, {3, 7}, {20, 20}} {
		r, c := shape[0], shape[1]
		d, s := randomPair(r, c, uint64(r*100+c))
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		x, y := vec(c, 1), vec(r, 2)
		want := naiveMulVec(d, x)
		for _, m := range []matrix.Matrix{d, s} {
			name := fmt.Sprintf("%T %dx%d", m, r, c)
			got := make([]float64, r)
			m.MulVec(got, x)
			if !near(got, want) {
				t.Errorf("%s MulVec = %v, want %v", name, got, want)
			}
			gt := make([]float64, c)
			m.MulTransVec(gt, y)
			if wt := naiveMulVec(d.T(), y); !near(gt, wt) {
				t.Errorf("%s MulTransVec = %v, want %v", name, gt, wt)
			}
			for i := 0; i < r; i++ {
				if v := m.RowDot(i, x); math.Abs(v-want[i]) > 1e-12*(1+math.Abs(v)) {
					t.Errorf("%s RowDot(%d) = %v, want %v", name, i, v, want[i])
				}
			}
			acc := make([]float64, c)
			m.AddRow(acc, r-1, 2)
			for j := 0; j < c; j++ {
				if acc[j] != 2*d.At(r-1, j) {
					t.Errorf("%s AddRow[%d] = %v, want %v", name, j, acc[j], 2*d.At(r-1, j))
				}
			}
		}
		if s.NNZ() > d.NNZ() {
			t.Errorf("CSR stores %d > %d elements", s.NNZ(), d.NNZ())
		}
		if !reflect.DeepEqual(matrix.ToDense(s), d) {
			t.Errorf("ToDense(ToCSR(d)) != d")
		}
		if !reflect.DeepEqual(matrix.ToDense(s.T()), d.T()) {
			t.Errorf("CSR.T != Dense.T")
		}
	}
}

func TestSubsets(t *testing.T) {
	d, s := randomPair(6, 5, 9)
	rows := []int{4, 0, 4, 2}
	cols := []int{3, 1, 3}
	for _, m := range []matrix.Matrix{d, s} {
		sub := matrix.ToDense(m.RowsOf(rows))
		for k, i := range rows {
			for j := 0; j < 5; j++ {
				if sub.At(k, j) != d.At(i, j) {
					t.Fatalf("%T RowsOf: [%d,%d] = %v, want %v", m, k, j, sub.At(k, j), d.At(i, j))
				}
			}
		}
		// Scattered columns, and runs (a copy per row on Dense).
		for _, cols := range [][]int{cols, {0, 1, 2}, {2, 3, 4}, {1}, {0, 1, 2, 3, 4}, {1, 2, 4}} {
			sub = matrix.ToDense(m.ColsOf(cols))
			if r, c := sub.Dims(); r != 6 || c != len(cols) {
				t.Fatalf("%T ColsOf(%v) is %d×%d", m, cols, r, c)
			}
			for i := 0; i < 6; i++ {
				for k, j := range cols {
					if sub.At(i, k) != d.At(i, j) {
						t.Fatalf("%T ColsOf(%v): [%d,%d] = %v, want %v", m, cols, i, k, sub.At(i, k), d.At(i, j))
					}
				}
			}
		}
	}
}

func TestColumnStats(t *testing.T) {
	d := matrix.NewDense(3, 2, []float64{1, 0, 2, 0, 6, 3})
	for _, m := range []matrix.Matrix{d, matrix.ToCSR(d)} {
		if got, want := matrix.ColumnMeans(m), []float64{3, 1}; !near(got, want) {
			t.Errorf("%T ColumnMeans = %v, want %v", m, got, want)
		}
		if got, want := matrix.ColumnNorms2(m), []float64{41, 9}; !near(got, want) {
			t.Errorf("%T ColumnNorms2 = %v, want %v", m, got, want)
		}
		// Population variances: (4+1+9)/3 and (1+1+4)/3.
		if got, want := matrix.ColumnStds(m), []float64{math.Sqrt(14.0 / 3), math.Sqrt(2)}; !near(got, want) {
			t.Errorf("%T ColumnStds = %v, want %v", m, got, want)
		}
	}
	if got := matrix.Sparsity(matrix.ToCSR(d)); got != 4.0/6 {
		t.Errorf("Sparsity = %v, want 4/6", got)
	}
}

func TestBuilder(t *testing.T) {
	b := matrix.NewBuilder(4)
	b.Add(3, 1)
	b.Add(0, 2)
	b.Add(3, 1) // duplicates sum
	b.EndRow()
	b.EndRow() // an empty row
	b.Add(1, 5)
	b.Add(1, -5) // cancels: dropped
	b.Add(2, 7)
	b.EndRow()
	m := b.Build()
	want := &matrix.CSR{R: 3, C: 4, Ptr: []int{0, 2, 2, 3}, Ind: []int32{0, 3, 2}, Val: []float64{2, 2, 7}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("Build = %+v, want %+v", m, want)
	}
}

func TestCheckRejects(t *testing.T) {
	bad := []*matrix.CSR{
		{R: 1, C: 2, Ptr: []int{0}, Ind: nil, Val: nil},                          // short Ptr
		{R: 1, C: 2, Ptr: []int{0, 2}, Ind: []int32{1, 0}, Val: []float64{1, 1}}, // unsorted
		{R: 1, C: 2, Ptr: []int{0, 1}, Ind: []int32{2}, Val: []float64{1}},       // out of range
		{R: 1, C: 2, Ptr: []int{0, 1}, Ind: []int32{0}, Val: nil},                // lengths
	}
	for i, m := range bad {
		if m.Check() == nil {
			t.Errorf("case %d: Check accepted %+v", i, m)
		}
	}
}

func TestShapePanics(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || fmt.Sprint(p)[:7] != "matrix:" {
			t.Errorf("panic = %v, want a matrix: shape panic", p)
		}
	}()
	matrix.NewDense(2, 2, nil).MulVec(make([]float64, 3), make([]float64, 2))
}

func ExampleBuilder() {
	b := matrix.NewBuilder(3)
	b.Add(2, 1.5)
	b.Add(0, 1)
	b.EndRow()
	b.Add(1, 2)
	b.EndRow()
	m := b.Build()
	y := make([]float64, 2)
	m.MulVec(y, []float64{1, 1, 1})
	fmt.Println(m.NNZ(), y)
	// Output: 3 [2.5 2]
}

// TestDenseT: the transpose of dense matrices of several shapes.
func TestDenseT(t *testing.T) {
	for _, rc := range [][2]int{{1, 1}, {31, 33}, {32, 32}, {70, 45}, {3, 100}, {0, 5}} {
		r, c := rc[0], rc[1]
		data := make([]float64, r*c)
		for i := range data {
			data[i] = float64(i) + 0.5
		}
		d := matrix.NewDense(r, c, data)
		tr := d.T()
		if rows, cols := tr.Dims(); rows != c || cols != r {
			t.Fatalf("%d×%d: T is %d×%d", r, c, rows, cols)
		}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if tr.At(j, i) != d.At(i, j) {
					t.Fatalf("%d×%d: T[%d][%d] = %v, want %v", r, c, j, i, tr.At(j, i), d.At(i, j))
				}
			}
		}
	}
}

// TestMulVecs: every element of MulVecs equals MulVec's bit for bit, on
// shapes whose rows fill several blocks with remainders of 0–3 rows and
// one block of fewer than 4 rows.
func TestMulVecs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, rc := range [][2]int{{1, 3}, {3, 1433}, {45, 1433}, {93, 1433}, {401, 700}, {1354, 1433}, {10, 0}, {0, 4}} {
		r, c := rc[0], rc[1]
		data := make([]float64, r*c)
		for i := range data {
			data[i] = rng.NormFloat64()
		}
		d := matrix.NewDense(r, c, data)
		xs, dst := make([][]float64, 7), make([][]float64, 7)
		for k := range xs {
			xs[k], dst[k] = make([]float64, c), make([]float64, r)
			for j := range xs[k] {
				xs[k][j] = rng.NormFloat64()
			}
			for i := range dst[k] {
				dst[k][i] = math.NaN() // overwritten
			}
		}
		d.MulVecs(dst, xs)
		want := make([]float64, r)
		for k, x := range xs {
			d.MulVec(want, x)
			for i := range want {
				if math.Float64bits(dst[k][i]) != math.Float64bits(want[i]) {
					t.Fatalf("%d×%d, vector %d, row %d: MulVecs %v, MulVec %v", r, c, k, i, dst[k][i], want[i])
				}
			}
		}
	}
}
