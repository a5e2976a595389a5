package lsq_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/lsq"
)

// TestRSSMatchesResiduals checks the covariance form against the residuals
// computed row by row, and Coefficients against the predictions on the
// original scale.
func TestRSSMatchesResiduals(t *testing.T) {
	X := matrix.NewDense(5, 3, []float64{
		1, 2, 0,
		3, -1, 5,
		0, 4, 5,
		2, 2, 5,
		7, 0, 5, // column 2 is almost constant
	})
	y := []float64{1, -2, 3, 0.5, 4}
	beta := []float64{0.3, -1.2, 0.7}
	for _, c := range []struct{ standardize, intercept bool }{{false, false}, {false, true}, {true, true}, {true, false}} {
		ds, err := lsq.NewDesign(X, y, c.standardize, c.intercept)
		if err != nil {
			t.Fatal(err)
		}
		orig, b := ds.Coefficients(beta)
		want := 0.0
		for i := range y {
			f := b + X.RowDot(i, orig)
			want += (y[i] - f) * (y[i] - f)
		}
		if got := ds.RSS(beta); math.Abs(got-want) > 1e-9*(1+want) {
			t.Errorf("standardize=%t intercept=%t: RSS = %v, residuals give %v", c.standardize, c.intercept, got, want)
		}
	}
}

func TestNewDesignErrors(t *testing.T) {
	tests := []struct {
		name string
		X    matrix.Matrix
		y    []float64
		want string
	}{
		{"no rows", matrix.NewDense(0, 2, nil), nil, "empty design"},
		{"NaN in X", matrix.NewDense(2, 1, []float64{1, math.NaN()}), []float64{1, 2}, "non-finite"},
		{"Inf in y", matrix.NewDense(2, 1, []float64{1, 2}), []float64{1, math.Inf(1)}, "non-finite"},
	}
	for _, tt := range tests {
		_, err := lsq.NewDesign(tt.X, tt.y, true, true)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestGroups(t *testing.T) {
	X := matrix.NewDense(1, 4, nil)
	tests := []struct {
		name   string
		groups []datasets.Group
		want   string // groups as name:columns, or the error's start
	}{
		{"none", nil, "x0:[0] x1:[1] x2:[2] x3:[3]"},
		{"declared first", []datasets.Group{{Name: "g", Columns: []int{3, 1}}}, "g:[3 1] x0:[0] x2:[2]"},
		{"empty group dropped", []datasets.Group{{Name: "e"}, {Name: "g", Columns: []int{0}}}, "g:[0] x1:[1] x2:[2] x3:[3]"},
		{"overlap", []datasets.Group{{Name: "a", Columns: []int{0, 1}}, {Name: "b", Columns: []int{1}}}, `error: group "b": column x1 is already in another group`},
		{"out of range", []datasets.Group{{Name: "a", Columns: []int{4}}}, `error: group "a": column 4 out of range [0,4)`},
	}
	for _, tt := range tests {
		got, err := lsq.Groups(&datasets.Dataset{X: X, Groups: tt.groups})
		var s []string
		if err != nil {
			s = []string{"error: " + err.Error()}
		}
		for _, g := range got {
			s = append(s, fmt.Sprintf("%s:%v", g.Name, g.Columns))
		}
		if strings.Join(s, " ") != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, strings.Join(s, " "), tt.want)
		}
	}
}

func TestHPNorm(t *testing.T) {
	// Szafranski et al. 2007, Table 1, weight group: 11.989.
	got := lsq.HPNorm([]float64{4.370, -4.499, -1.110, 1.399})
	if math.Abs(got-11.989) > 0.01 {
		t.Errorf("HPNorm = %.4f, want 11.989", got)
	}
}

func ExampleNewDesign() {
	// y = 1 + 2x exactly: the covariance form has zero residual at the
	// standardized coefficient, which Coefficients maps back to 2 and 1.
	X := matrix.NewDense(4, 1, []float64{0, 1, 2, 3})
	y := []float64{1, 3, 5, 7}
	ds, _ := lsq.NewDesign(X, y, true, true)
	betaStd := []float64{2 * ds.Scale[0]}
	beta, b := ds.Coefficients(betaStd)
	fmt.Printf("RSS %.3g, beta %.3g, intercept %.3g\n", ds.RSS(betaStd), beta[0], b)
	// Output: RSS 0, beta 2, intercept 1
}
