package standardize

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// train has a column with mean 2 and population sd 1 (1, 3, 1, 3), a
// constant column (5), and a column with a large offset (1e6 + 0, 2, 4, 6:
// mean 1e6+3, sd √5).
func train() *datasets.Dataset {
	return &datasets.Dataset{Name: "t", X: matrix.NewDense(4, 3, []float64{
		1, 5, 1e6,
		3, 5, 1e6 + 2,
		1, 5, 1e6 + 4,
		3, 5, 1e6 + 6,
	})}
}

func TestFitClosedForm(t *testing.T) {
	s, err := Fit(context.Background(), train(), true, true)
	if err != nil {
		t.Fatal(err)
	}
	wantMean := []float64{2, 5, 1e6 + 3}
	wantScale := []float64{1, 1, 1 / math.Sqrt(5)}
	for j := range wantMean {
		if math.Abs(s.Mean[j]-wantMean[j]) > 1e-9 {
			t.Errorf("mean[%d] = %g, want %g", j, s.Mean[j], wantMean[j])
		}
		if math.Abs(s.Scale[j]-wantScale[j]) > 1e-12 {
			t.Errorf("scale[%d] = %g, want %g", j, s.Scale[j], wantScale[j])
		}
	}
	// Applied to the training rows: mean 0, sd 1 (the constant column 0).
	out, err := s.Transform(train())
	if err != nil {
		t.Fatal(err)
	}
	n, c := out.X.Dims()
	for j := 0; j < c; j++ {
		var sum, sq float64
		for i := 0; i < n; i++ {
			v := out.X.At(i, j)
			sum += v
			sq += v * v
		}
		wantSq := float64(n)
		if j == 1 {
			wantSq = 0
		}
		if math.Abs(sum) > 1e-9 || math.Abs(sq-wantSq) > 1e-9 {
			t.Errorf("column %d: sum %g, sum of squares %g, want 0 and %g", j, sum, sq, wantSq)
		}
	}
}

// TestTestRowsUseTrainStatistics applies the training statistics to other
// rows: the test rows' own mean and deviation play no part.
func TestTestRowsUseTrainStatistics(t *testing.T) {
	s, err := Fit(context.Background(), train(), true, true)
	if err != nil {
		t.Fatal(err)
	}
	test := &datasets.Dataset{Name: "test", X: matrix.NewDense(2, 3, []float64{10, 5, 1e6 + 3, 10, 7, 1e6 + 3 + math.Sqrt(5)}), Y: []float64{0, 1}}
	out, err := s.Transform(test)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{8, 0, 0, 8, 2, 1}
	for k, w := range want {
		if got := out.X.At(k/3, k%3); math.Abs(got-w) > 1e-9 {
			t.Errorf("row %d column %d: %g, want %g", k/3, k%3, got, w)
		}
	}
	if out.Y[1] != 1 || test.X.At(0, 0) != 10 {
		t.Error("labels changed or input modified")
	}
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		name          string
		center, scale bool
		want          float64 // row 1, column 0 (value 3; mean 2, sd 1) and column 2 (1e6+2)
		want2         float64
	}{
		{"center only", true, false, 1, -1},
		{"scale only", false, true, 3, (1e6 + 2) / math.Sqrt(5)},
		{"neither", false, false, 3, 1e6 + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Fit(context.Background(), train(), tc.center, tc.scale)
			if err != nil {
				t.Fatal(err)
			}
			out, err := s.Transform(train())
			if err != nil {
				t.Fatal(err)
			}
			if got := out.X.At(1, 0); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("x[1][0] = %g, want %g", got, tc.want)
			}
			if got := out.X.At(1, 2); math.Abs(got-tc.want2) > 1e-6 {
				t.Errorf("x[1][2] = %g, want %g", got, tc.want2)
			}
		})
	}
}

func TestSparse(t *testing.T) {
	// Column 0: 0, 2, 0, 2 (mean 1, sd 1); column 1: all zero; column 2:
	// 0, 0, 0, 4 (mean 1, sd √3).
	b := matrix.NewBuilder(3)
	for _, row := range [][]float64{{0, 0, 0}, {2, 0, 0}, {0, 0, 0}, {2, 0, 4}} {
		for j, v := range row {
			if v != 0 {
				b.Add(j, v)
			}
		}
		b.EndRow()
	}
	d := &datasets.Dataset{Name: "sp", X: b.Build()}
	if _, err := Fit(context.Background(), d, true, true); err == nil || !strings.Contains(err.Error(), "scale only") {
		t.Fatalf("centring sparse data: error %v, want one saying to scale only", err)
	}
	// Through the plugin the default (center: true) scales sparse data
	// only.
	tr, err := datasets.LookupTransform("standardize")
	if err != nil {
		t.Fatal(err)
	}
	f, err := tr.Fit(context.Background(), datasets.Env{}, d, param.Defaults(tr.Params))
	if err != nil {
		t.Fatal(err)
	}
	if sc := f.(*Scaler); sc.Mean != nil || sc.Scale == nil {
		t.Errorf("default on sparse data: mean %v, scale %v; want scaling only", sc.Mean, sc.Scale)
	}
	s, err := Fit(context.Background(), d, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 1, 1 / math.Sqrt(3)}; math.Abs(s.Scale[0]-want[0]) > 1e-12 || s.Scale[1] != 1 || math.Abs(s.Scale[2]-want[2]) > 1e-12 {
		t.Errorf("scale %v, want %v", s.Scale, want)
	}
	out, err := s.Transform(d)
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := out.X.(*matrix.CSR)
	if !ok {
		t.Fatalf("output is %T, want sparse", out.X)
	}
	if sp.NNZ() != 3 || math.Abs(out.X.At(3, 2)-4/math.Sqrt(3)) > 1e-12 || out.X.At(1, 0) != 2 {
		t.Errorf("scaled: nnz %d, x[3][2] = %g, x[1][0] = %g", sp.NNZ(), out.X.At(3, 2), out.X.At(1, 0))
	}
	if d.X.At(3, 2) != 4 {
		t.Error("input modified")
	}
	// A scaler fitted with centring refuses sparse rows.
	dense, err := Fit(context.Background(), &datasets.Dataset{X: matrix.ToDense(d.X)}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dense.Transform(d); err == nil {
		t.Error("centring scaler applied to sparse rows: no error")
	}
}

func TestErrors(t *testing.T) {
	s, err := Fit(context.Background(), train(), true, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Transform(&datasets.Dataset{Name: "narrow", X: matrix.NewDense(1, 2, nil)}); err == nil || !strings.Contains(err.Error(), "fitted on 3") {
		t.Errorf("column mismatch: error %v", err)
	}
	if _, err := Fit(context.Background(), &datasets.Dataset{Name: "empty", X: matrix.NewDense(0, 2, nil)}, true, true); err == nil {
		t.Error("no rows: no error")
	}
}

// TestRegistered fits through the registry as the runner does (fit:
// train), with the declared defaults.
func TestRegistered(t *testing.T) {
	tr, err := datasets.LookupTransform("standardize")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Apply != nil || tr.Fit == nil {
		t.Error("standardize must be fitted per trial only")
	}
	f, err := tr.Fit(context.Background(), datasets.Env{}, train(), param.Defaults(tr.Params))
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Transform(train())
	if err != nil {
		t.Fatal(err)
	}
	if got := out.X.At(0, 0); got != -1 {
		t.Errorf("x[0][0] = %g, want -1", got)
	}
	if m := tr.Memory(4, 3, 12, nil); m < 8*12 {
		t.Errorf("memory estimate %d below the copy", m)
	}
}
