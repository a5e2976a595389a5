package uci

import (
	"reflect"
	"testing"

	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/param"
)

// TestDermatologyMissing: the choices and default of dermatology's
// missing, literals in its tag, are csv's Missing constants.
func TestDermatologyMissing(t *testing.T) {
	d, _ := param.Find(param.Of[dermatologyParams]().Params, "missing")
	if want := []string{csv.MissingError, csv.MissingDropRows, csv.MissingMean}; !reflect.DeepEqual(d.Choices, want) || d.Default != csv.MissingMean {
		t.Errorf("missing: choices %v default %v; want %v default %v", d.Choices, d.Default, want, csv.MissingMean)
	}
}
