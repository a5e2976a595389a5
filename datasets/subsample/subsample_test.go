package subsample

import (
	"context"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// corpus returns 100 rows: classes 0 and 1 in proportion 3:1, the last
// 40 rows the test part, with a text per row naming the row.
func corpus() *datasets.Dataset {
	n := 100
	X := matrix.NewDense(n, 1, nil)
	d := &datasets.Dataset{Name: "c", X: X, Classes: []string{"a", "b"}, Split: make([]datasets.Part, n), Text: make([]string, n)}
	for i := 0; i < n; i++ {
		X.Set(i, 0, float64(i))
		y := 0.0
		if i%4 == 3 {
			y = 1
		}
		d.Y = append(d.Y, y)
		if i >= 60 {
			d.Split[i] = datasets.SplitTest
		}
		d.Text[i] = string(rune('A' + i%26))
	}
	return d
}

func TestRows(t *testing.T) {
	d := corpus()
	for _, tc := range []struct {
		fraction float64
		want     int // rows kept
	}{
		// cells: train a 45, train b 15, test a 30, test b 10
		{0.1, 5 + 2 + 3 + 1},
		{0.5, 23 + 8 + 15 + 5},
		{1, 100},
		{1e-9, 4}, // every cell keeps one row
	} {
		keep := Rows(d, tc.fraction, 7)
		if len(keep) != tc.want {
			t.Errorf("fraction %g: %d rows, want %d", tc.fraction, len(keep), tc.want)
		}
		if !slices.IsSorted(keep) {
			t.Errorf("fraction %g: rows not in order", tc.fraction)
		}
		if !slices.Equal(keep, Rows(d, tc.fraction, 7)) {
			t.Errorf("fraction %g: not deterministic", tc.fraction)
		}
	}
	if slices.Equal(Rows(d, 0.2, 1), Rows(d, 0.2, 2)) {
		t.Error("seeds 1 and 2 keep the same rows")
	}
}

func TestApplyKeepsRowsAligned(t *testing.T) {
	d := corpus()
	out, err := apply(context.Background(), datasets.Env{}, d, params{Fraction: 0.25, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	test := 0
	for i := 0; i < out.Rows(); i++ {
		row := int(out.X.At(i, 0))
		if out.Y[i] != d.Y[row] || out.Split[i] != d.Split[row] || out.Text[i] != d.Text[row] {
			t.Fatalf("row %d (was %d): label, part or text not carried", i, row)
		}
		if out.Split[i] == datasets.SplitTest {
			test++
		}
	}
	if test != 8+3 {
		t.Errorf("%d test rows, want 11 (a quarter of 30 and of 10, rounded up)", test)
	}
}
