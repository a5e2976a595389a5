package compress_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/compress"
	"github.com/repro-ml/repro/matrix"
)

func TestOrder(t *testing.T) {
	d := &datasets.Dataset{Name: "t", X: matrix.NewDense(6, 1, nil), Classes: []string{"A", "G"}, Y: []float64{0, 1, 1, 0, 1, 1}}
	tests := []struct {
		order string
		want  []int
	}{
		{compress.OrderGiven, []int{0, 1, 2, 3, 4, 5}},
		{compress.OrderByClass, []int{0, 3, 1, 2, 4, 5}},
		{compress.OrderByClassDesc, []int{1, 2, 4, 5, 0, 3}},
		{compress.OrderAlternating, []int{0, 1, 3, 2, 4, 5}},
	}
	for _, tt := range tests {
		got, err := compress.Order(d, tt.order, 1)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Order(%s) = %v, %v; want %v", tt.order, got, err, tt.want)
		}
	}
	r1, _ := compress.Order(d, compress.OrderRandom, 1)
	r2, _ := compress.Order(d, compress.OrderRandom, 1)
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("random order not reproducible: %v, %v", r1, r2)
	}
	unlabelled := &datasets.Dataset{Name: "u", X: matrix.NewDense(2, 1, nil), Y: []float64{0, 0}}
	if _, err := compress.Order(unlabelled, compress.OrderByClass, 1); err == nil {
		t.Error("by-class order of a dataset without classes: no error")
	}
	if _, err := compress.Order(d, "sideways", 1); err == nil {
		t.Error("unknown order: no error")
	}
}

func TestLZ77(t *testing.T) {
	docs := []string{"a b a b a b", "", "a b c"}
	x, names, err := compress.LZ77(context.Background(), docs, []int{0, 1, 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// doc 0: a, b, then "a b a b" (overlapping its own earlier text);
	// doc 2: "a b", c.
	if want := []string{"a", "a_b", "a_b_a_b", "b", "c"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("phrases %q; want %q", names, want)
	}
	want := [][]float64{{1, 0, 1, 1, 0}, {0, 0, 0, 0, 0}, {0, 1, 0, 0, 1}}
	for i, row := range want {
		for j, v := range row {
			if got := x.At(i, j); got != v {
				t.Errorf("x[%d][%d] = %v; want %v", i, j, got, v)
			}
		}
	}
	for _, bad := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}} {
		if _, _, err := compress.LZ77(context.Background(), docs, bad, 5); err == nil {
			t.Errorf("order %v: no error", bad)
		}
	}
}
