package libsvm

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

func dense(m matrix.Matrix) [][]float64 { return datatest.Rows(m) }

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		o       Options
		x       [][]float64
		y       []float64
		classes []string
	}{
		{"binary ±1, comments, qid, blank lines", "# c\n+1 1:0.5 3:2 # x\n-1 qid:7 2:-1\n\n1 1:1 2:0\n", Options{},
			[][]float64{{0.5, 0, 2}, {0, -1, 0}, {1, 0, 0}}, []float64{1, 0, 1}, []string{"-1", "1"}},
		{"multi-class sorted numerically; features pads columns", "10 1:1\n2 2:1\n3\n", Options{Features: 4},
			[][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}}, []float64{2, 0, 1}, []string{"2", "3", "10"}},
		{"real labels → regression", "1.5 1:1\n-2 2:3\n", Options{},
			[][]float64{{1, 0}, {0, 3}}, []float64{1.5, -2}, nil},
		{"integer labels forced to regression", "3 1:1\n7 2:3\n", Options{Task: TaskRegression},
			[][]float64{{1, 0}, {0, 3}}, []float64{3, 7}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(strings.NewReader(tc.in), "t.svm", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := d.X.(*matrix.CSR); !ok {
				t.Errorf("X is %T, want *matrix.CSR", d.X)
			}
			if got := dense(d.X); !reflect.DeepEqual(got, tc.x) {
				t.Errorf("X = %v, want %v", got, tc.x)
			}
			if !reflect.DeepEqual(d.Y, tc.y) || !reflect.DeepEqual(d.Classes, tc.classes) {
				t.Errorf("Y, Classes = %v %q, want %v %q", d.Y, d.Classes, tc.y, tc.classes)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad label", "1 1:1\nfoo 1:2\n", `t.svm:2: label "foo" is not a number`},
		{"no colon", "1 1:1\n1 2\n", `t.svm:2: "2": want index:value`},
		{"zero index", "1 0:1\n", `t.svm:1: "0:1": index "0" is not a positive integer (indices are 1-based)`},
		{"decreasing", "1 1:1\n\n1 3:1 2:1\n", `t.svm:3: "2:1": index 2 after 3`},
		{"duplicate", "1 3:1 3:1\n", `t.svm:1: "3:1": index 3 after 3`},
		{"bad value", "1 1:x\n", `t.svm:1: "1:x": value "x" is not a number`},
		{"nan value", "1 1:NaN\n", `t.svm:1: "1:NaN": value "NaN"`},
		{"empty", "# only a comment\n", "t.svm: no examples"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "t.svm", Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	_, err := Read(strings.NewReader("1 1:1\n1 5:1\n"), "t.svm", Options{Features: 4})
	if err == nil || !strings.Contains(err.Error(), "t.svm:2: index 5 exceeds features = 4") {
		t.Errorf("error %v, want t.svm:2: index 5 exceeds features = 4", err)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, c = 40, 9
	x := matrix.NewDense(n, c, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			if r.Float64() < 0.4 {
				x.Set(i, j, r.NormFloat64()*math.Pow(10, float64(r.IntN(20)-10)))
			}
		}
		y[i] = r.NormFloat64()
	}
	x.Set(0, c-1, 1) // make the last column appear
	for _, m := range []matrix.Matrix{x, matrix.ToCSR(x)} {
		var buf bytes.Buffer
		if err := Write(&buf, m, y); err != nil {
			t.Fatal(err)
		}
		d, err := Read(&buf, "roundtrip", Options{Task: TaskRegression})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(dense(d.X), dense(x)) || !reflect.DeepEqual(d.Y, y) {
			t.Errorf("%T: read(write(x)) != x", m)
		}
	}
}

func TestWriteFormat(t *testing.T) {
	var buf bytes.Buffer
	x := matrix.NewDense(2, 3, []float64{0, 1.5, 0, -2, 0, 1e-20})
	if err := Write(&buf, x, []float64{1, -1}); err != nil {
		t.Fatal(err)
	}
	if want := "1 2:1.5\n-1 1:-2 3:1e-20\n"; buf.String() != want {
		t.Errorf("Write = %q, want %q", buf.String(), want)
	}
}

func loadPlugin(t *testing.T, p map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	l, err := datasets.Lookup("libsvm")
	if err != nil {
		t.Fatal(err)
	}
	v := param.Defaults(l.Params)
	for k, x := range p {
		decl, _ := param.Find(l.Params, k)
		if v[k], err = decl.Convert(x); err != nil {
			t.Fatal(err)
		}
	}
	return l.Load(context.Background(), datasets.Env{DataDir: "testdata"}, v)
}

func TestPlugin(t *testing.T) {
	d, err := loadPlugin(t, map[string]any{"file": "train.txt.gz", "test_file": "test.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.5, 0, 2, 0}, {0, -1, 0, 0}, {1e-3, 0, 0, 7}, {0, 0, 0, 1}, {2, 0, 0, 0}}
	if !reflect.DeepEqual(dense(d.X), want) {
		t.Errorf("X = %v, want %v", dense(d.X), want)
	}
	if wantSplit := []datasets.Part{0, 0, 0, 1, 1}; !reflect.DeepEqual(d.Split, wantSplit) {
		t.Errorf("Split = %v, want %v", d.Split, wantSplit)
	}
	if !reflect.DeepEqual(d.Y, []float64{1, 0, 1, 0, 1}) {
		t.Errorf("Y = %v", d.Y)
	}
	_, err = loadPlugin(t, map[string]any{"file": "train.txt", "test_file": "nope.txt"})
	var mf *datasets.MissingFileError
	if !errors.As(err, &mf) || !strings.HasSuffix(mf.Path, "testdata/nope.txt") {
		t.Errorf("error %v, want a MissingFileError naming testdata/nope.txt", err)
	}
	_, err = loadPlugin(t, map[string]any{"file": "train.txt", "features": 3})
	if err == nil || !strings.Contains(err.Error(), "testdata/train.txt:5: index 4 exceeds features = 3") {
		t.Errorf("error %v, want testdata/train.txt:5: index 4 exceeds", err)
	}
}

// TestNextField: the fields nextField finds are those of strings.Fields,
// with ASCII and Unicode white space.
func TestNextField(t *testing.T) {
	for _, s := range []string{"", "   ", "1 2:3", "\t+1\v 2:0.5\f3:1\r", "1\u00a02:3 4:5", "\u20281 2:3\u3000", "a\u0085b", "x\xffy z", "é 1:2"} {
		var got []string
		for f, rest := nextField(s); f != ""; f, rest = nextField(rest) {
			got = append(got, f)
		}
		if want := strings.Fields(s); !slices.Equal(got, want) {
			t.Errorf("fields of %q: %q, want %q", s, got, want)
		}
	}
}

// TestDenseRows: rows more than DenseFill full are read into a dense
// matrix (the kernels' dense path), others into a CSR, with the same
// values (written back, the same text).
func TestDenseRows(t *testing.T) {
	for _, c := range []struct {
		text  string
		dense bool
	}{
		{"1 1:1 2:2 3:3\n-1 1:4 3:5\n", true},   // 5 of 6 cells
		{"1 1:1 2:2\n-1 3:4\n", false},          // 3 of 6: half is not more than half
		{"1 1:1 4:2\n-1 2:4\n", false},          // 3 of 8
		{"1 1:1 2:0 3:-2 4:2\n-1 2:4\n", false}, // 4 of 8: explicit zeros are not stored
	} {
		d, err := Read(strings.NewReader(c.text), "t.svm", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, dense := d.X.(*matrix.Dense); dense != c.dense {
			t.Errorf("%q: dense %t, want %t", c.text, dense, c.dense)
		}
		var b strings.Builder
		if err := Write(&b, d.X, []float64{1, -1}); err != nil {
			t.Fatal(err)
		}
		if want := strings.ReplaceAll(c.text, " 2:0", ""); b.String() != want {
			t.Errorf("%q read and written: %q", c.text, b.String())
		}
	}
}

// TestDenseTwoFiles: a training and a test file whose rows are dense
// load into one dense matrix, the test rows marked as the given split.
func TestDenseTwoFiles(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	if err := os.WriteFile(train, []byte("1 1:1 2:2\n-1 1:3 2:4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(test, []byte("1 2:5 3:6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load([]string{train, test}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	X, ok := d.X.(*matrix.Dense)
	if !ok {
		t.Fatalf("X is a %T, want *matrix.Dense", d.X)
	}
	want := [][]float64{{1, 2, 0}, {3, 4, 0}, {0, 5, 6}}
	for i, row := range want {
		for j, v := range row {
			if X.At(i, j) != v {
				t.Errorf("X(%d, %d) = %g, want %g", i, j, X.At(i, j), v)
			}
		}
	}
	if !slices.Equal(d.Split, []datasets.Part{datasets.SplitTrain, datasets.SplitTrain, datasets.SplitTest}) || !slices.Equal(d.Y, []float64{1, 0, 1}) {
		t.Errorf("split %v, y %v", d.Split, d.Y)
	}
}

// TestTaskChoices: the choices of task, literals in Params' tag, are the
// Task constants.
func TestTaskChoices(t *testing.T) {
	d, _ := param.Find(param.Of[Params]().Params, "task")
	if want := []string{TaskAuto, TaskClassification, TaskRegression}; !reflect.DeepEqual(d.Choices, want) || d.Default != TaskAuto {
		t.Errorf("task: choices %v default %v; want %v default %v", d.Choices, d.Default, want, TaskAuto)
	}
}
