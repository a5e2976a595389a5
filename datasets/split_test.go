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

// TestFoldsEveryClass checks that every fold holds every class with at
// least k rows, where dealing the interleaved order would not (the
// classes' period sharing a factor with k), and that the folds that
// dealing gets right are kept as they were.
func TestFoldsEveryClass(t *testing.T) {
	for _, tt := range []struct {
		name             string
		perClass         []int
		k                int
		sameAsInterleave bool
	}{
		{"3 balanced classes in 3 folds", []int{5, 5, 5}, 3, false},
		{"2 balanced classes in 10 folds", []int{20, 20}, 10, false},
		{"2 unbalanced classes in 4 folds", []int{8, 12}, 4, true},
		{"2 classes in 5 folds", []int{20, 40}, 5, true},
		{"20 classes in 3 folds", []int{30, 31, 29, 30, 28, 33, 30, 30, 27, 30, 30, 32, 30, 30, 30, 26, 30, 30, 30, 34}, 3, true},
	} {
		var rows []int
		var y []float64
		for c, n := range tt.perClass {
			for range n {
				rows = append(rows, len(rows))
				y = append(y, float64(c))
			}
		}
		classes := len(tt.perClass)
		folds, err := Folds(rows, y, classes, tt.k, 7)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for f, fold := range folds {
			in := make([]int, classes)
			for _, i := range fold {
				in[int(y[i])]++
			}
			seen += len(fold)
			for c, n := range in {
				if tt.perClass[c] >= tt.k && n == 0 {
					t.Errorf("%s: fold %d has no row of class %d", tt.name, f, c)
				}
			}
		}
		if seen != len(rows) {
			t.Errorf("%s: folds hold %d rows, want %d", tt.name, seen, len(rows))
		}
		// The interleaved dealing, as before the fallback.
		order, _ := Order(rows, y, classes, Stratified, 7)
		dealt := make([][]int, tt.k)
		for i, r := range order {
			dealt[i%tt.k] = append(dealt[i%tt.k], r)
		}
		same := true
		for f := range dealt {
			slices.Sort(dealt[f])
			same = same && slices.Equal(dealt[f], folds[f])
		}
		if same != tt.sameAsInterleave {
			t.Errorf("%s: folds equal to the interleaved dealing: %v, want %v", tt.name, same, tt.sameAsInterleave)
		}
	}
}

func TestComplement(t *testing.T) {
	got := Complement([]int{5, 1, 4, 2, 3}, []int{4, 5})
	if want := []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("Complement = %v, want %v", got, want)
	}
}
