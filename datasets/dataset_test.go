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
