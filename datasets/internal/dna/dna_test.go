package dna

import (
	"reflect"
	"strings"
	"testing"
)

func TestOneHot(t *testing.T) {
	tests := []struct {
		seq  string
		want []float64
	}{
		{"A", []float64{1, 0, 0, 0}},
		{"c", []float64{0, 1, 0, 0}},
		{"GT", []float64{0, 0, 1, 0, 0, 0, 0, 1}},
		{"N", []float64{0.25, 0.25, 0.25, 0.25}},
		{"D", []float64{1.0 / 3, 0, 1.0 / 3, 1.0 / 3}},
		{"R", []float64{0.5, 0, 0.5, 0}},
		{"S", []float64{0, 0.5, 0.5, 0}},
	}
	for _, tc := range tests {
		got := make([]float64, 4*len(tc.seq))
		if err := OneHot(got, tc.seq); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("OneHot(%q) = %v, want %v", tc.seq, got, tc.want)
		}
	}
	err := OneHot(make([]float64, 12), "ACX")
	if err == nil || !strings.Contains(err.Error(), `position 3: 'X' is not a nucleotide code`) {
		t.Errorf("error %v, want position 3: 'X'", err)
	}
}

func TestAmbiguousAndNames(t *testing.T) {
	if Ambiguous("ACGTacgt") || !Ambiguous("ACNT") {
		t.Error("Ambiguous is wrong")
	}
	if got := FeatureNames(10)[:5]; !reflect.DeepEqual(got, []string{"p01=A", "p01=C", "p01=G", "p01=T", "p02=A"}) {
		t.Errorf("FeatureNames = %q", got)
	}
}
