package methods_test

import (
	"slices"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// TestPresentColumns: the present columns are listed only when the
// absent ones are at least half of the columns and at least
// CompactMinAbsent; SelectColumns renumbers them and drops the others.
func TestPresentColumns(t *testing.T) {
	wide := methods.CompactMinAbsent + 10
	for _, c := range []struct {
		name string
		d    int
		rows [][]int // columns of each row's entries
		want []int
	}{
		{name: "narrow", d: 1000, rows: [][]int{{3}, {999}}},
		{name: "wide", d: wide, rows: [][]int{{wide - 1, 5}, {2, 5}}, want: []int{2, 5, wide - 1}},
		{name: "wide, empty rows", d: wide, rows: [][]int{{}, {7}}, want: []int{7}},
		{name: "wide, half present", d: 2 * methods.CompactMinAbsent, rows: [][]int{seq(methods.CompactMinAbsent + 1)}},
	} {
		b := matrix.NewBuilder(c.d)
		for _, r := range c.rows {
			for _, j := range r {
				b.Add(j, float64(j+1))
			}
			b.EndRow()
		}
		X := b.Build()
		got := methods.PresentColumns(X)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: PresentColumns = %v, want %v", c.name, got, c.want)
			continue
		}
		if got == nil {
			continue
		}
		S := methods.SelectColumns(X, got)
		if err := S.Check(); err != nil {
			t.Fatalf("%s: SelectColumns: %v", c.name, err)
		}
		for i := range c.rows {
			for k, j := range got {
				if S.At(i, k) != X.At(i, j) {
					t.Errorf("%s: SelectColumns(%d, %d) = %g, want X(%d, %d) = %g", c.name, i, k, S.At(i, k), i, j, X.At(i, j))
				}
			}
		}
	}
	// Dense rows keep every column.
	if got := methods.PresentColumns(matrix.NewDense(2, 3, make([]float64, 6))); got != nil {
		t.Errorf("PresentColumns(dense) = %v, want nil", got)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
