package normalize_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/normalize"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

func counts(sparse bool) *datasets.Dataset {
	rows := [][]float64{{1, 3, 0}, {2, 0, 2}, {0, 0, 0}, {4, 4, 0}}
	x := matrix.NewDense(4, 3, nil)
	for i, r := range rows {
		for j, v := range r {
			x.Set(i, j, v)
		}
	}
	var m matrix.Matrix = x
	if sparse {
		m = matrix.ToCSR(x)
	}
	return &datasets.Dataset{Name: "counts", X: m, Y: []float64{0, 1, 0, 1}, Classes: []string{"a", "b"}}
}

// sd returns the population standard deviation of v.
func sd(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)))
}

func TestApply(t *testing.T) {
	// L1-normalized rows: {.25 .75 0} {.5 0 .5} {0 0 0} {.5 .5 0}.
	l1 := [][]float64{{.25, .75, 0}, {.5, 0, .5}, {0, 0, 0}, {.5, .5, 0}}
	// L2-normalized rows: {1 3 0}/√10 {2 0 2}/√8 {0 0 0} {4 4 0}/√32.
	r10, r8, r32 := 1/math.Sqrt(10), 1/math.Sqrt(8), 1/math.Sqrt(32)
	l2 := [][]float64{{r10, 3 * r10, 0}, {2 * r8, 0, 2 * r8}, {0, 0, 0}, {4 * r32, 4 * r32, 0}}
	tests := []struct {
		l1, l2, scale bool
		want          func(i, j int) float64
	}{
		{false, true, false, func(i, j int) float64 { return l2[i][j] }},
		{false, true, true, func(i, j int) float64 {
			col := []float64{l2[0][j], l2[1][j], l2[2][j], l2[3][j]}
			return l2[i][j] / sd(col)
		}},
		{true, false, false, func(i, j int) float64 { return l1[i][j] }},
		{true, false, true, func(i, j int) float64 {
			col := []float64{l1[0][j], l1[1][j], l1[2][j], l1[3][j]}
			return l1[i][j] / sd(col)
		}},
		{false, false, true, func(i, j int) float64 {
			raw := counts(false).X
			col := []float64{raw.At(0, j), raw.At(1, j), raw.At(2, j), raw.At(3, j)}
			return raw.At(i, j) / sd(col)
		}},
	}
	tr, err := datasets.LookupTransform("normalize")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		for _, sparse := range []bool{false, true} {
			in := counts(sparse)
			out, err := tr.Apply(context.Background(), datasets.Env{}, in, param.Values{"l1": tt.l1, "l2": tt.l2, "scale": tt.scale})
			if err != nil {
				t.Fatal(err)
			}
			if _, isCSR := out.X.(*matrix.CSR); isCSR != sparse {
				t.Errorf("l1=%v scale=%v: sparse input %v gave %T", tt.l1, tt.scale, sparse, out.X)
			}
			for i := range 4 {
				for j := range 3 {
					if got, want := out.X.At(i, j), tt.want(i, j); math.Abs(got-want) > 1e-12 {
						t.Errorf("l1=%v l2=%v scale=%v sparse=%v: x[%d][%d] = %v; want %v", tt.l1, tt.l2, tt.scale, sparse, i, j, got, want)
					}
				}
			}
			if in.X.At(0, 1) != 3 {
				t.Error("input modified")
			}
		}
	}
}

// TestFit fits on two rows and applies to all: the deviations are the
// fitted rows'.
func TestFit(t *testing.T) {
	tr, _ := datasets.LookupTransform("normalize")
	d := counts(true)
	train := d.Subset([]int{0, 1})
	f, err := tr.Fit(context.Background(), datasets.Env{}, train, param.Values{"l1": true, "scale": true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Transform(d)
	if err != nil {
		t.Fatal(err)
	}
	// Column 0 over the training rows: .25, .5 → sd .125.
	if got := out.X.At(3, 0); math.Abs(got-0.5/0.125) > 1e-12 {
		t.Errorf("x[3][0] = %v; want %v", got, 0.5/0.125)
	}
	// Column 2 is 0, .5 on the training rows; row 2 is all zero.
	if got := out.X.At(2, 2); got != 0 {
		t.Errorf("zero row: %v", got)
	}
	wide := &datasets.Dataset{Name: "w", X: matrix.NewDense(1, 5, nil), Y: []float64{0}}
	if _, err := f.Transform(wide); err == nil {
		t.Error("applying to a dataset with other columns: no error")
	}
	s := normalize.Fit(matrix.NewDense(2, 1, []float64{3, 3}), false, true)
	if s.Scale[0] != 1 {
		t.Errorf("constant column scaled by %v; want 1", s.Scale[0])
	}
}

// TestL1AndL2 checks that a row cannot be divided by both norms: the
// transform's validation names l2 and says what is wanted.
func TestL1AndL2(t *testing.T) {
	tr, err := datasets.LookupTransform("normalize")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Validate == nil {
		t.Fatal("normalize declares no Validate hook")
	}
	err = tr.Validate(param.Values{"l1": true, "l2": true, "scale": true})
	if err == nil || !strings.Contains(err.Error(), "want l1: false with l2: true") {
		t.Errorf("l1 and l2: err = %v; want the l2 error", err)
	}
	if err := tr.Validate(param.Values{"l1": false, "l2": true, "scale": false}); err != nil {
		t.Errorf("l2 alone: %v", err)
	}
}
