package csv

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func dense(d *datasets.Dataset) [][]float64 {
	r, c := d.X.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = d.X.At(i, j)
		}
	}
	return out
}

// mean3 averages at run time, in the loader's summation order.
func mean3(a, b, c float64) float64 { return (a + b + c) / 3 }

func opts(f func(*Options)) Options {
	o := DefaultOptions()
	f(&o)
	return o
}

func TestRead(t *testing.T) {
	abalone := "M,0.4,0.3,15\nF,0.5,?,9\nI,0.3,0.2,7\nM,0.4,0.6,10\n"
	cols := []string{"sex", "length", "height", "rings"}
	tests := []struct {
		name     string
		in       string
		o        Options
		x        [][]float64
		y        []float64
		classes  []string
		features []string
		groups   []datasets.Group
		notes    int
	}{
		{
			name: "header, string labels → classification in sorted order",
			in:   "a,b,species\n1,2,virginica\n3,4,setosa\n5,6,virginica\n",
			o:    opts(func(o *Options) { o.Label = "species" }),
			x:    [][]float64{{1, 2}, {3, 4}, {5, 6}}, y: []float64{1, 0, 1},
			classes: []string{"setosa", "virginica"}, features: []string{"a", "b"},
		},
		{
			name: "numeric labels auto → regression; label by index -1",
			in:   "a,b,t\n1,2,0.5\n3,4,-1e3\n",
			o:    opts(func(o *Options) { o.Label = "-1" }),
			x:    [][]float64{{1, 2}, {3, 4}}, y: []float64{0.5, -1000}, features: []string{"a", "b"},
		},
		{
			name: "numeric class labels sort numerically, label by index 0",
			in:   "10,1\n2,2\n1,3\n",
			o: opts(func(o *Options) {
				o.Label, o.Header, o.Task = "0", false, TaskClassification
			}),
			x: [][]float64{{1}, {2}, {3}}, y: []float64{2, 1, 0},
			classes: []string{"1", "2", "10"}, features: []string{"x2"},
		},
		{
			name: "classes subset and order",
			in:   "v,c\n1,a\n2,b\n3,c\n4,a\n",
			o:    opts(func(o *Options) { o.Label, o.Classes = "c", []string{"c", "a"} }),
			x:    [][]float64{{1}, {3}, {4}}, y: []float64{1, 0, 1},
			classes: []string{"c", "a"}, features: []string{"v"},
		},
		{
			name: "categorical, groups in group_order, mean imputation",
			in:   abalone,
			o: opts(func(o *Options) {
				o.Header, o.Columns, o.Label = false, cols, "rings"
				o.Categorical, o.Missing = []string{"sex"}, MissingMean
				o.Groups = map[string]string{"size": "length, height"}
				o.GroupOrder = []string{"sex", "size"}
			}),
			x: [][]float64{
				{0, 0, 1, 0.4, 0.3},
				{1, 0, 0, 0.5, mean3(0.3, 0.2, 0.6)},
				{0, 1, 0, 0.3, 0.2},
				{0, 0, 1, 0.4, 0.6},
			},
			y:        []float64{15, 9, 7, 10},
			features: []string{"sex=F", "sex=I", "sex=M", "length", "height"},
			groups:   []datasets.Group{{Name: "sex", Columns: []int{0, 1, 2}}, {Name: "size", Columns: []int{3, 4}}},
			notes:    1,
		},
		{
			name: "default group order: categorical first, then declared by name; drop-rows; drop",
			in:   abalone,
			o: opts(func(o *Options) {
				o.Header, o.Columns, o.Label = false, cols, "rings"
				o.Categorical, o.Missing, o.Drop = []string{"sex"}, MissingDropRows, []string{"length"}
				o.Groups = map[string]string{"z": "height", "a": "height"}
			}),
			x:        [][]float64{{0, 1, 0.3}, {1, 0, 0.2}, {0, 1, 0.6}},
			y:        []float64{15, 7, 10},
			features: []string{"sex=I", "sex=M", "height"},
			groups: []datasets.Group{
				{Name: "sex", Columns: []int{0, 1}}, {Name: "a", Columns: []int{2}}, {Name: "z", Columns: []int{2}},
			},
		},
		{
			name: "categorical named in a declared group forms no group of its own; missing categorical imputed by dummy means",
			in:   "s,v,y\na,1,1\n?,2,2\nb,3,3\n",
			o: opts(func(o *Options) {
				o.Label, o.Categorical, o.Missing = "y", []string{"s"}, MissingMean
				o.Groups = map[string]string{"all": "s,v"}
			}),
			x:        [][]float64{{1, 0, 1}, {0.5, 0.5, 2}, {0, 1, 3}},
			y:        []float64{1, 2, 3},
			features: []string{"s=a", "s=b", "v"},
			groups:   []datasets.Group{{Name: "all", Columns: []int{0, 1, 2}}},
			notes:    1, // one note for the table, not one per dummy (issue 42)
		},
		{
			name: "whitespace separator, quoted fields",
			in:   "  1 2\t 3\n\n4  5 6\n",
			o:    opts(func(o *Options) { o.Header, o.Sep, o.Label = false, Whitespace, "x3" }),
			x:    [][]float64{{1, 2}, {4, 5}}, y: []float64{3, 6}, features: []string{"x1", "x2"},
		},
		{
			name: "quoted field with separator, semicolon",
			in:   "\"a;b\";y\n1;\"x;y\"\n2;z\n",
			o:    opts(func(o *Options) { o.Sep, o.Label = ";", "y" }),
			x:    [][]float64{{1}, {2}}, y: []float64{0, 1}, classes: []string{"x;y", "z"}, features: []string{"a;b"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(strings.NewReader(tc.in), "t.csv", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := dense(d); !reflect.DeepEqual(got, tc.x) {
				t.Errorf("X = %v, want %v", got, tc.x)
			}
			if !reflect.DeepEqual(d.Y, tc.y) {
				t.Errorf("Y = %v, want %v", d.Y, tc.y)
			}
			if !reflect.DeepEqual(d.Classes, tc.classes) {
				t.Errorf("Classes = %q, want %q", d.Classes, tc.classes)
			}
			if !reflect.DeepEqual(d.Features, tc.features) {
				t.Errorf("Features = %q, want %q", d.Features, tc.features)
			}
			if !reflect.DeepEqual(d.Groups, tc.groups) {
				t.Errorf("Groups = %v, want %v", d.Groups, tc.groups)
			}
			if len(d.Notes) != tc.notes {
				t.Errorf("Notes = %q, want %d", d.Notes, tc.notes)
			}
			if _, ok := d.X.(*matrix.Dense); !ok {
				t.Errorf("X is %T, want *matrix.Dense", d.X)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	base := func(f func(*Options)) Options { return opts(func(o *Options) { o.Label = "y"; f(o) }) }
	none := func(*Options) {}
	tests := []struct {
		name, in string
		o        Options
		want     string
	}{
		{"ragged row", "a,y\n1,2\n3\n", base(none), "t.csv:3: 1 fields, want 2"},
		{"bad quote", "a,y\n1,2\n\"3,4\n", base(none), "t.csv:3:"},
		{"not a number", "a,y\n1,2\nx,3\n", base(none), `t.csv:3: column "a": "x" is not a number`},
		{"infinite", "a,y\n1,2\n+Inf,3\n", base(none), `t.csv:3: column "a": "+Inf": infinite values are not allowed`},
		{"missing feature, policy error", "a,y\n1,2\n?,3\n", base(none), `t.csv:3: column "a": missing value "?" (set missing`},
		{"empty feature, policy error", "a,b,y\n1,,2\n", base(none), `t.csv:2: column "b": missing value ""`},
		{"missing label", "a,y\n1,2\n3,?\n", base(func(o *Options) { o.Missing = MissingMean }), `t.csv:3: label column "y": missing value`},
		{"regression label not a number", "a,y\n1,2\n3,b\n", base(func(o *Options) { o.Task = TaskRegression }), `t.csv:3: label column "y": "b" is not a number`},
		{"unknown label", "a,y\n1,2\n", opts(func(o *Options) { o.Label = "z" }), `t.csv: label column "z" not found; columns: a, y`},
		{"label index out of range", "a,y\n1,2\n", opts(func(o *Options) { o.Label = "5" }), "index 5 out of range for 2 columns"},
		{"unknown drop", "a,y\n1,2\n", base(func(o *Options) { o.Drop = []string{"q"} }), `drop[0]: column "q" not found in t.csv`},
		{"drop the label", "a,y\n1,2\n", base(func(o *Options) { o.Drop = []string{"y"} }), `drop[0]: column "y" of t.csv is the label`},
		{"unknown categorical", "a,y\n1,2\n", base(func(o *Options) { o.Categorical = []string{"q"} }), `categorical[0]: column "q" not found`},
		{"absent class", "a,y\n1,u\n", base(func(o *Options) { o.Classes = []string{"u", "v"} }), `class "v" has no rows; labels present: u`},
		{"classes on regression", "a,y\n1,2\n", base(func(o *Options) { o.Task, o.Classes = TaskRegression, []string{"2"} }), "classes given for a regression task"},
		{"unknown group column", "a,y\n1,2\n", base(func(o *Options) { o.Groups = map[string]string{"g": "a,q"} }), `t.csv: groups.g: column "q" not found`},
		{"group_order incomplete", "a,b,y\n1,2,3\n", base(func(o *Options) {
			o.Groups = map[string]string{"g": "a", "h": "b"}
			o.GroupOrder = []string{"g"}
		}), "group_order leaves out groups h"},
		{"group_order unknown", "a,y\n1,2\n", base(func(o *Options) { o.GroupOrder = []string{"g"} }), `group_order: no group "g"`},
		{"duplicate column", "a,a,y\n1,2,3\n", base(none), `t.csv:1: column name "a" appears twice`},
		{"empty", "", base(none), "t.csv: empty file, want a header line"},
		{"header only", "a,y\n", base(none), "t.csv: no data rows"},
		{"bad separator", "a,y\n", base(func(o *Options) { o.Sep = "::" }), `separator "::"`},
		{"all missing, mean", "a,b,y\n?,1,2\n?,2,3\n", base(func(o *Options) { o.Missing = MissingMean }), `column "a": every value is missing`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "t.csv", tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func load(t *testing.T, dir string, p map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	return datatest.TryLoad(t, "csv", dir, p)
}

func TestPluginGzipAndMissingFile(t *testing.T) {
	p := map[string]any{
		"header": false, "label": "rings", "missing": "mean", "categorical": []any{"sex"},
		"columns": []any{"sex", "length", "diameter", "rings"},
	}
	plain, err := load(t, "testdata", map[string]any{"file": "tiny.data", "header": p["header"], "label": p["label"], "missing": p["missing"], "categorical": p["categorical"], "columns": p["columns"]})
	if err != nil {
		t.Fatal(err)
	}
	p["file"] = "tiny.data.gz"
	gz, err := load(t, "testdata", p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dense(plain), dense(gz)) || !reflect.DeepEqual(plain.Y, gz.Y) {
		t.Errorf("gzip copy reads differently")
	}
	if plain.Rows() != 4 || plain.Cols() != 5 || plain.IsClassification() {
		t.Errorf("got %d×%d classification=%v, want 4×5 regression", plain.Rows(), plain.Cols(), plain.IsClassification())
	}
	p["file"] = "nope.csv"
	_, err = load(t, "testdata", p)
	var mf *datasets.MissingFileError
	if !errors.As(err, &mf) || mf.Path != filepath.Join("testdata", "nope.csv") {
		t.Errorf("error %v, want a MissingFileError for testdata/nope.csv", err)
	}
	p["file"], p["missing"] = "tiny.data.gz", "error"
	_, err = load(t, "testdata", p)
	if err == nil || !strings.Contains(err.Error(), "tiny.data.gz:2:") {
		t.Errorf("error %v, want one at tiny.data.gz:2", err)
	}
}

// paperData returns the paper data directory or skips the test.
func paperData(t *testing.T, file string) string {
	t.Helper()
	return datatest.Paper(t, file)
}

func TestRealAbalone(t *testing.T) {
	dir := paperData(t, "uci/abalone/abalone.data")
	d, err := load(t, dir, map[string]any{
		"file": "uci/abalone/abalone.data", "header": false, "label": "rings", "task": "regression",
		"columns":     []any{"sex", "length", "diameter", "height", "whole", "shucked", "viscera", "shell", "rings"},
		"categorical": []any{"sex"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 4177 || d.Cols() != 10 {
		t.Fatalf("abalone is %d×%d, want 4177×10", d.Rows(), d.Cols())
	}
	counts := map[string]float64{}
	for i := 0; i < d.Rows(); i++ {
		for j, s := range []string{"F", "I", "M"} {
			counts[s] += d.X.At(i, j)
		}
	}
	if want := map[string]float64{"M": 1528, "F": 1307, "I": 1342}; !reflect.DeepEqual(counts, want) {
		t.Errorf("sex counts %v, want %v", counts, want)
	}
}
