package csv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

// loadGiven loads the csv plugin with params p from a data directory
// holding files.
func loadGiven(t *testing.T, files map[string]string, p map[string]any) (*datasets.Dataset, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := datasets.Lookup("csv")
	if err != nil {
		t.Fatal(err)
	}
	v := param.Defaults(l.Params)
	for k, x := range p {
		decl, ok := param.Find(l.Params, k)
		if !ok {
			t.Fatalf("csv has no param %q", k)
		}
		if v[k], err = decl.Convert(x); err != nil {
			t.Fatal(err)
		}
	}
	return l.Load(context.Background(), datasets.Env{DataDir: dir}, v)
}

// TestTestFile: test_file's rows follow the training rows and are the
// test part of the given split; the classes and the categorical dummies
// are those of both tables, the rows dropped are dropped from the split
// too, and an error in the test table names its file and line.
func TestTestFile(t *testing.T) {
	tables := map[string]string{
		"train.csv": "color,x,y\nred,1,a\nblue,2,b\nred,?,a\n",
		"test.csv":  "color,x,y\ngreen,3,c\nred,?,b\nblue,4,a\n",
	}
	d, err := loadGiven(t, tables, map[string]any{"file": "train.csv", "test_file": "test.csv", "label": "y", "categorical": []any{"color"}, "missing": "drop-rows"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"color=blue", "color=green", "color=red", "x"}; !reflect.DeepEqual(d.Features, want) {
		t.Errorf("features %v, want %v", d.Features, want)
	}
	if want := [][]float64{{0, 0, 1, 1}, {1, 0, 0, 2}, {0, 1, 0, 3}, {1, 0, 0, 4}}; !reflect.DeepEqual(dense(d), want) {
		t.Errorf("X = %v, want %v", dense(d), want)
	}
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(d.Classes, want) {
		t.Errorf("classes %v, want %v", d.Classes, want)
	}
	if want := []float64{0, 1, 2, 0}; !reflect.DeepEqual(d.Y, want) {
		t.Errorf("Y = %v, want %v", d.Y, want)
	}
	if want := []datasets.Part{datasets.SplitTrain, datasets.SplitTrain, datasets.SplitTest, datasets.SplitTest}; !reflect.DeepEqual(d.Split, want) {
		t.Errorf("Split = %v, want %v", d.Split, want)
	}

	// Without test_file the same table has no split.
	d, err = loadGiven(t, tables, map[string]any{"file": "train.csv", "label": "y", "categorical": []any{"color"}, "missing": "drop-rows"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Split != nil || d.Rows() != 2 {
		t.Errorf("one table: %d rows, split %v; want 2 rows, no split", d.Rows(), d.Split)
	}

	for _, c := range []struct {
		name string
		test string
		p    map[string]any
		want string
	}{
		{"other header", "colour,x,y\nred,1,a\n", nil, "test.csv:1: header colour,x,y, want the columns of "},
		{"bad number", "color,x,y\nred,1,a\nred,1e999,b\n", nil, "test.csv:3: column \"x\""},
		{"missing value", "color,x,y\nred,?,a\n", nil, "test.csv:2: column \"x\": missing value"},
		{"header only", "color,x,y\n", nil, "test.csv: no data rows after the header line"},
		{"fields", "color,x,y\nred,1\n", nil, "test.csv:2: 2 fields, want 3"},
		{"one class in all", "color,x,y\nred,1,a\n", map[string]any{"classes": []any{"a"}}, "train.csv and "},
	} {
		p := map[string]any{"file": "train.csv", "test_file": "test.csv", "label": "y", "categorical": []any{"color"}}
		for k, v := range c.p {
			p[k] = v
		}
		_, err := loadGiven(t, map[string]string{"train.csv": "color,x,y\nred,1,a\nblue,2,b\n", "test.csv": c.test}, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}

	_, err = loadGiven(t, tables, map[string]any{"file": "train.csv", "test_file": "nope.csv", "label": "y"})
	var mf *datasets.MissingFileError
	if !errors.As(err, &mf) || !strings.HasSuffix(mf.Path, "nope.csv") {
		t.Errorf("error %v, want a MissingFileError naming nope.csv", err)
	}
}

// TestTestFileColumns: with columns given and no header, both tables are
// read with those names, and the test table's rows need not hold every
// class.
func TestTestFileColumns(t *testing.T) {
	d, err := loadGiven(t, map[string]string{"tr.data": "1 2 0\n3 4 1\n", "ts.data": "5 6 1\n"},
		map[string]any{"file": "tr.data", "test_file": "ts.data", "header": false, "sep": "whitespace", "columns": []any{"a", "b", "c"}, "label": "c", "task": "classification"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{1, 2}, {3, 4}, {5, 6}}; !reflect.DeepEqual(dense(d), want) {
		t.Errorf("X = %v, want %v", dense(d), want)
	}
	if want := []datasets.Part{datasets.SplitTrain, datasets.SplitTrain, datasets.SplitTest}; !reflect.DeepEqual(d.Split, want) || !reflect.DeepEqual(d.Y, []float64{0, 1, 1}) {
		t.Errorf("Split %v Y %v", d.Split, d.Y)
	}
}
