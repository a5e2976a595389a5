package datasets

import (
	"strings"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// TestValidateNoColumns checks the backstop behind the loaders' own
// errors: a dataset without feature columns is invalid (issue 10, item 12).
func TestValidateNoColumns(t *testing.T) {
	for _, X := range []matrix.Matrix{matrix.NewDense(2, 0, nil), &matrix.CSR{R: 2, Ptr: []int{0, 0, 0}}} {
		d := &Dataset{Name: "labels", X: X, Y: []float64{0, 1}, Classes: []string{"a", "b"}}
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), `dataset "labels": no feature columns (2 rows of labels only)`) {
			t.Errorf("%T: Validate = %v", X, err)
		}
	}
	d := &Dataset{Name: "one", X: matrix.NewDense(2, 1, nil), Y: []float64{0, 1}, Classes: []string{"a", "b"}}
	if err := d.Validate(); err != nil {
		t.Errorf("one column: Validate = %v", err)
	}
}

func TestCheckClasses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		y       []float64
		classes []string
		want    string
	}{
		{"regression", []float64{1, 1}, nil, ""},
		{"two classes", []float64{0, 1, 1}, []string{"a", "b"}, ""},
		{"two of three classes", []float64{0, 2}, []string{"a", "b", "c"}, ""},
		{"one class", []float64{1, 1}, []string{"a", "b"}, `every row has class "b"; a classification dataset needs rows of at least two classes`},
		{"one class declared", []float64{0}, []string{"a"}, `every row has class "a"; a classification dataset needs rows of at least two classes`},
		{"no rows", nil, []string{"a", "b"}, "no rows; a classification dataset needs rows of at least two classes"},
	} {
		d := &Dataset{Y: tc.y, Classes: tc.classes}
		got := ""
		if err := d.CheckClasses(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
