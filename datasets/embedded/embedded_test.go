package embedded

import (
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

func load(t *testing.T, name string, p map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	return datatest.TryLoad(t, name, "", p)
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name       string
		params     map[string]any
		rows, cols int
		classes    []string
		counts     []int
		firstRow   []float64
		firstY     float64
	}{
		{"iris", nil, 150, 4, []string{"setosa", "versicolor", "virginica"}, []int{50, 50, 50}, []float64{5.1, 3.5, 1.4, 0.2}, 0},
		{"mcycle", nil, 133, 1, nil, nil, []float64{2.4}, 0},
		{"diabetes", nil, 442, 10, nil, nil, []float64{59, 2, 32.1, 101, 157, 93.2, 38, 4, 4.8598, 87}, 151},
		{"dna-splice", nil, 3186, 180, []string{"ei", "ie", "n"}, []int{767, 765, 1654}, nil, 2},
		{"dna-splice", map[string]any{"classes": []any{"ei", "ie"}, "encoding": "onehot"}, 1532, 240, []string{"ei", "ie"}, []int{767, 765}, nil, -1},
		{"dna-splice", map[string]any{"classes": []any{"n", "ei"}}, 2421, 180, []string{"n", "ei"}, []int{1654, 767}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := load(t, tc.name, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows() != tc.rows || d.Cols() != tc.cols {
				t.Errorf("%d×%d, want %d×%d", d.Rows(), d.Cols(), tc.rows, tc.cols)
			}
			if !reflect.DeepEqual(d.Classes, tc.classes) {
				t.Errorf("classes %q, want %q", d.Classes, tc.classes)
			}
			if tc.counts != nil && !reflect.DeepEqual(d.ClassCounts(), tc.counts) {
				t.Errorf("class counts %v, want %v", d.ClassCounts(), tc.counts)
			}
			if tc.firstRow != nil {
				got := make([]float64, d.Cols())
				for j := range got {
					got[j] = d.X.At(0, j)
				}
				if !reflect.DeepEqual(got, tc.firstRow) || d.Y[0] != tc.firstY {
					t.Errorf("first row %v → %v, want %v → %v", got, d.Y[0], tc.firstRow, tc.firstY)
				}
			} else if tc.firstY >= 0 && d.Y[0] != tc.firstY {
				t.Errorf("first label %v, want %v", d.Y[0], tc.firstY)
			}
			if err := d.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestDNAEncodingsAgree checks, row by row, that the one-hot encoding
// rebuilt from the sequence column matches the given indicator bits
// (A=100, C=010, G=001, T=000).
func TestDNAEncodingsAgree(t *testing.T) {
	bits, err := DNASplice([]string{"ei", "ie", "n"}, EncodingBits)
	if err != nil {
		t.Fatal(err)
	}
	hot, err := DNASplice([]string{"ei", "ie", "n"}, EncodingOneHot)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(bits.Y, hot.Y) {
		t.Fatal("labels differ between encodings")
	}
	for i := 0; i < bits.Rows(); i++ {
		for p := 0; p < 60; p++ {
			for b := 0; b < 3; b++ { // A, C, G bits; T is 000
				if bits.X.At(i, 3*p+b) != hot.X.At(i, 4*p+b) {
					t.Fatalf("row %d position %d base %d: bit %v, one-hot %v", i, p, b, bits.X.At(i, 3*p+b), hot.X.At(i, 4*p+b))
				}
			}
			s := 0.0
			for b := 0; b < 4; b++ {
				s += hot.X.At(i, 4*p+b)
			}
			if s != 1 {
				t.Fatalf("row %d position %d: one-hot sums to %v", i, p, s)
			}
		}
	}
}

func TestDNAErrors(t *testing.T) {
	tests := []struct {
		classes  []string
		encoding string
		want     string
	}{
		{[]string{"ei", "x"}, EncodingBits, `class "x" has no rows`},
		{[]string{"ei", "ei"}, EncodingBits, `class "ei" listed twice`},
		{nil, EncodingBits, "no classes"},
		{[]string{"ei"}, "letters", `encoding "letters"`},
	}
	for _, tc := range tests {
		if _, err := DNASplice(tc.classes, tc.encoding); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DNASplice(%q, %q) error %v, want %q", tc.classes, tc.encoding, err, tc.want)
		}
	}
}

// TestEncodingChoices: the choices of dna-splice's encoding, literals in
// its tag, are the Encoding constants.
func TestEncodingChoices(t *testing.T) {
	d, _ := param.Find(param.Of[spliceParams]().Params, "encoding")
	if want := []string{EncodingBits, EncodingOneHot}; !reflect.DeepEqual(d.Choices, want) || d.Default != EncodingBits {
		t.Errorf("encoding: choices %v default %v; want %v default %v", d.Choices, d.Default, want, EncodingBits)
	}
}
