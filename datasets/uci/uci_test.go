package uci

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
)

func load(t *testing.T, dir, name string, p map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	return datatest.TryLoad(t, name, dir, p)
}

func row(d *datasets.Dataset, i int) []float64 {
	out := make([]float64, d.Cols())
	for j := range out {
		out[j] = d.X.At(i, j)
	}
	return out
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSplice(t *testing.T) {
	d, err := load(t, "testdata", "uci-splice", map[string]any{"file": "splice.data", "classes": []any{"IE", "EI"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 2 || d.Cols() != 240 || !reflect.DeepEqual(d.Classes, []string{"IE", "EI"}) || !reflect.DeepEqual(d.Y, []float64{1, 0}) {
		t.Fatalf("got %d×%d %q %v", d.Rows(), d.Cols(), d.Classes, d.Y)
	}
	ie := row(d, 1)
	for _, c := range []struct {
		pos  int
		want []float64
	}{
		{0, []float64{0.25, 0.25, 0.25, 0.25}},        // N
		{1, []float64{1, 0, 0, 0}},                    // A
		{15, []float64{1.0 / 3, 0, 1.0 / 3, 1.0 / 3}}, // D
		{59, []float64{0.5, 0, 0.5, 0}},               // R
	} {
		if got := ie[4*c.pos : 4*c.pos+4]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("position %d: %v, want %v", c.pos+1, got, c.want)
		}
	}
	if d.Stats["ambiguous_rows"] != 1 {
		t.Errorf("ambiguous_rows = %v, want 1", d.Stats["ambiguous_rows"])
	}
	all, err := load(t, "testdata", "uci-splice", map[string]any{"file": "splice.data"})
	if err != nil {
		t.Fatal(err)
	}
	if got := row(all, 2)[:4]; !reflect.DeepEqual(got, []float64{0, 0.5, 0.5, 0}) { // S
		t.Errorf("S = %v", got)
	}
}

func TestSpliceErrors(t *testing.T) {
	good := "EI, X, " + strings.Repeat("A", 60) + "\n"
	tests := []struct{ name, in, want string }{
		{"fields", good + "EI, X\n", ":2: 2 fields, want 3"},
		{"length", good + "IE, X, ACGT\n", ":2: sequence of 4 letters, want 60"},
		{"letter", good + "IE, X, " + strings.Repeat("A", 59) + "Z\n", `:2: position 60: 'Z' is not a nucleotide code`},
		{"class", good + "XX, X, " + strings.Repeat("A", 60) + "\n", `:2: class "XX", want EI, IE or N`},
		{"absent", good, `class "IE" has no rows`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, "splice.data", tc.in)
			_, err := LoadSplice(p, []string{"EI", "IE"})
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %s…%s", err, p, tc.want)
			}
		})
	}
}

func TestAbalone(t *testing.T) {
	d, err := load(t, "testdata", "abalone", map[string]any{"file": "abalone.data"})
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []datasets.Group{{Name: "sex", Columns: []int{0, 1, 2}}, {Name: "size", Columns: []int{3, 4, 5}}, {Name: "weight", Columns: []int{6, 7, 8, 9}}}
	if !reflect.DeepEqual(d.Groups, wantGroups) {
		t.Errorf("groups %v, want %v", d.Groups, wantGroups)
	}
	if got, want := row(d, 1), []float64{1, 0, 0, 0.53, 0.42, 0.135, 0.677, 0.2565, 0.1415, 0.21}; !reflect.DeepEqual(got, want) {
		t.Errorf("row 1 = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(d.Y, []float64{15, 9, 7}) || d.IsClassification() {
		t.Errorf("Y = %v", d.Y)
	}
}

func TestDermatology(t *testing.T) {
	d, err := load(t, "testdata", "dermatology", map[string]any{"file": "dermatology.data"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 3 || d.Cols() != 34 || d.Features[33] != "age" || d.Classes[2] != "lichen planus" {
		t.Fatalf("%d×%d %q", d.Rows(), d.Cols(), d.Features)
	}
	if got := d.X.At(1, 33); got != 40 || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], ": age (1, mean 40)") {
		t.Errorf("imputed age %v, notes %q; want 40 and a note", got, d.Notes)
	}
	if !reflect.DeepEqual(d.Y, []float64{1, 0, 2}) {
		t.Errorf("Y = %v", d.Y)
	}
	d, err = load(t, "testdata", "dermatology", map[string]any{"file": "dermatology.data", "drop": []any{"age"}})
	if err != nil || d.Cols() != 33 || len(d.Notes) != 0 {
		t.Fatalf("drop age: %v, %d columns, notes %q", err, d.Cols(), d.Notes)
	}
	_, err = load(t, "testdata", "dermatology", map[string]any{"file": "dermatology.data", "missing": "error"})
	if err == nil || !strings.Contains(err.Error(), `dermatology.data:2: column "age": missing value "?"`) {
		t.Errorf("error %v, want dermatology.data:2: column \"age\"", err)
	}
}

func TestDelve(t *testing.T) {
	d, err := load(t, "testdata", "delve-house-16l", map[string]any{})
	if err == nil {
		t.Fatal("default path found in testdata")
	}
	d, err = load(t, "testdata", "delve-house-16l", map[string]any{"file": "Prototask.data.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Features, []string{"a4", "a5"}) || !reflect.DeepEqual(d.Y, []float64{130600, 40500}) || !reflect.DeepEqual(row(d, 1), []float64{415, 597}) {
		t.Errorf("got %q %v %v", d.Features, d.Y, row(d, 1))
	}
	if d.Stats["delve.test_set_size"] != 1 {
		t.Errorf("stats %v", d.Stats)
	}
	for _, tc := range []struct{ spec, want string }{
		{"Inputs: 4 x\nTargets: 1\n", `:1: Inputs: "x" is not an attribute number`},
		{"Inputs: 4\n", "want an Inputs line and a Targets line with one attribute, got 1 inputs and 0 targets"},
	} {
		p := write(t, "Prototask.spec", tc.spec)
		_, err := LoadDelve("testdata/Prototask.data.gz", p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %s…%s", err, p, tc.want)
		}
	}
	p := write(t, "Prototask.data", "1 2 3\n4 5\n")
	_, err = LoadDelve(p, "testdata/Prototask.spec")
	if err == nil || !strings.Contains(err.Error(), p+":2: 2 fields, want 3") {
		t.Errorf("error %v, want %s:2: 2 fields, want 3", err, p)
	}
}

func TestIsolet(t *testing.T) {
	line := func(label string, v float64) string {
		f := strconv.FormatFloat(v, 'f', 4, 64)
		return strings.Repeat(f+",", IsoletFeatures) + label + "\n"
	}
	train := write(t, "train.csv", line("1", 0.5)+line("26", -1))
	test := write(t, "test.csv", line("3", 0.25))
	d, err := LoadIsolet(train, test)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 3 || d.Cols() != IsoletFeatures || len(d.Classes) != 26 || d.Classes[25] != "Z" {
		t.Fatalf("%d×%d classes %q", d.Rows(), d.Cols(), d.Classes)
	}
	if !reflect.DeepEqual(d.Y, []float64{0, 25, 2}) || !reflect.DeepEqual(d.Split, []datasets.Part{0, 0, 1}) {
		t.Errorf("Y %v split %v", d.Y, d.Split)
	}
	if d.X.At(2, 616) != 0.25 || d.X.At(1, 0) != -1 {
		t.Errorf("values %v %v", d.X.At(2, 616), d.X.At(1, 0))
	}
	bad := write(t, "bad.csv", line("1", 0)+line("27", 0))
	if _, err := LoadIsolet(train, bad); err == nil || !strings.Contains(err.Error(), `bad.csv: class "27", want a class number 1–26`) {
		t.Errorf("label 27: error %v", err)
	}
	short := write(t, "short.csv", line("1", 0)+"0.1,2\n")
	if _, err := LoadIsolet(short, test); err == nil || !strings.Contains(err.Error(), "short.csv:2: 2 fields, want 618") {
		t.Errorf("short row: error %v", err)
	}
}

func TestMissingFile(t *testing.T) {
	for _, name := range []string{"uci-splice", "isolet", "dermatology", "abalone", "delve-house-16l"} {
		_, err := load(t, t.TempDir(), name, nil)
		var mf *datasets.MissingFileError
		if !errors.As(err, &mf) || !strings.Contains(mf.Source, "DELVE") && !strings.Contains(mf.Source, "UCI") {
			t.Errorf("%s: error %v, want a MissingFileError with its source", name, err)
		}
	}
}

func paperData(t *testing.T, file string) string {
	t.Helper()
	return datatest.Paper(t, file)
}

func TestRealFiles(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		params     map[string]any
		rows, cols int
		counts     []int
		test       int
	}{
		{"uci-splice", "uci/splice/splice.data", map[string]any{"classes": []any{"EI", "IE"}}, 1535, 240, []int{767, 768}, 0},
		{"uci-splice", "uci/splice/splice.data", nil, 3190, 240, []int{767, 768, 1655}, 0},
		{"dermatology", "uci/dermatology/dermatology.data", nil, 366, 34, []int{112, 61, 72, 49, 52, 20}, 0},
		{"dermatology", "uci/dermatology/dermatology.data", map[string]any{"drop": []any{"age"}}, 366, 33, nil, 0},
		{"dermatology", "uci/dermatology/dermatology.data", map[string]any{"missing": "drop-rows"}, 358, 34, nil, 0},
		{"abalone", "uci/abalone/abalone.data", nil, 4177, 10, nil, 0},
		{"delve-house-16l", "delve/house-price-16L/Prototask.data.gz", nil, 22784, 16, nil, 0},
		{"isolet", "uci/isolet/isolet5.csv.gz", nil, 6238 + 1559, 617, nil, 1559},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "isolet" && testing.Short() {
				t.Skip("isolet: 10 MB of text, skipped in -short")
			}
			dir := paperData(t, tc.file)
			d, err := load(t, dir, tc.name, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows() != tc.rows || d.Cols() != tc.cols {
				t.Errorf("%d×%d, want %d×%d", d.Rows(), d.Cols(), tc.rows, tc.cols)
			}
			if tc.counts != nil && !reflect.DeepEqual(d.ClassCounts(), tc.counts) {
				t.Errorf("class counts %v, want %v", d.ClassCounts(), tc.counts)
			}
			if _, test := d.SplitRows(); len(test) != tc.test {
				t.Errorf("%d test rows, want %d", len(test), tc.test)
			}
			if tc.name == "delve-house-16l" {
				s := 0.0
				for _, y := range d.Y {
					s += y
				}
				if m := s / float64(len(d.Y)); math.Abs(m-50074) > 1 {
					t.Errorf("mean price %v, want about 50074", m)
				}
			}
			if tc.name == "isolet" {
				tr, ts := d.SplitRows()
				if got := d.X.At(ts[0], 0); got != -0.208 {
					t.Errorf("first isolet5 row starts %v, want -0.2080", got)
				}
				count := func(rows []int, class int) (n int) {
					for _, i := range rows {
						if d.Label(i) == class {
							n++
						}
					}
					return n
				}
				if f, m := count(tr, 5), count(ts, 12); f != 238 || m != 59 {
					t.Errorf("train F = %d, test M = %d; want 238 and 59", f, m)
				}
			}
		})
	}
}
