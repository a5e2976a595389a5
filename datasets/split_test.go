package datasets

import (
	"slices"
	"testing"
)

func labels(counts ...int) ([]int, []float64) {
	var pool []int
	var y []float64
	for c, n := range counts {
		for i := 0; i < n; i++ {
			pool = append(pool, len(y))
			y = append(y, float64(c))
		}
	}
	return pool, y
}

func TestOrderIsPermutation(t *testing.T) {
	pool, y := labels(50, 30, 20)
	for _, s := range []Sampling{Random, Stratified, Balanced} {
		o, err := Order(pool, y, 3, s, 42)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(o)
		slices.Sort(got)
		if !slices.Equal(got, pool) {
			t.Errorf("%s: order is not a permutation of the pool", s)
		}
		o2, _ := Order(pool, y, 3, s, 42)
		if !slices.Equal(o, o2) {
			t.Errorf("%s: same seed gave different orders", s)
		}
		o3, _ := Order(pool, y, 3, s, 43)
		if slices.Equal(o, o3) {
			t.Errorf("%s: different seeds gave the same order", s)
		}
	}
}

func TestOrderPrefixProportions(t *testing.T) {
	pool, y := labels(50, 30, 20)
	tests := []struct {
		s    Sampling
		n    int
		want []int
	}{
		{Stratified, 10, []int{5, 3, 2}},
		{Stratified, 50, []int{25, 15, 10}},
		{Stratified, 100, []int{50, 30, 20}},
		{Balanced, 30, []int{10, 10, 10}},
		{Balanced, 60, []int{20, 20, 20}},
		{Balanced, 80, []int{30, 30, 20}}, // class 2 exhausted at 20
	}
	for _, tt := range tests {
		o, err := Order(pool, y, 3, tt.s, 7)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int, 3)
		for _, i := range o[:tt.n] {
			got[int(y[i])]++
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s n=%d: class counts %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestOrderErrors(t *testing.T) {
	pool, y := labels(3, 3)
	if _, err := Order(pool, y, 0, Balanced, 1); err == nil {
		t.Error("balanced sampling without classes: want error")
	}
	if _, err := Order(pool, y, 2, "bogus", 1); err == nil {
		t.Error("unknown sampling: want error")
	}
}

func TestFolds(t *testing.T) {
	pool, y := labels(40, 20)
	folds, err := Folds(pool, y, 2, 5, 9)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for f, rows := range folds {
		if len(rows) != 12 {
			t.Errorf("fold %d has %d rows, want 12", f, len(rows))
		}
		c1 := 0
		for _, i := range rows {
			seen[i]++
			if y[i] == 1 {
				c1++
			}
		}
		if c1 != 4 {
			t.Errorf("fold %d has %d rows of class 1, want 4 (stratified)", f, c1)
		}
	}
	if len(seen) != 60 {
		t.Errorf("folds cover %d rows, want 60", len(seen))
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("row %d in %d folds", i, n)
		}
	}
	if _, err := Folds(pool[:3], y, 2, 5, 1); err == nil {
		t.Error("3 rows in 5 folds: want error")
	}
}

func TestComplement(t *testing.T) {
	got := Complement([]int{5, 1, 4, 2, 3}, []int{4, 5})
	if want := []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("Complement = %v, want %v", got, want)
	}
}
