package datasets_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

type typedLoaderParams struct {
	File  string   `param:"file" doc:"the file"`
	Rows  int      `param:"rows" range:"[1, +inf)" default:"3" doc:"rows"`
	Extra []string `param:"extra" default:"[]" doc:"extra files"`
}

type typedTransformParams struct {
	Scale float64 `param:"scale" range:"(0, +inf)" default:"2" doc:"factor"`
}

// TestTypedLoader: a TypedLoader's declarations come from its struct,
// and Load, Validate and Files receive the values as the struct (a
// missing value zero for Validate and Files).
func TestTypedLoader(t *testing.T) {
	var got typedLoaderParams
	l := datasets.TypedLoader[typedLoaderParams]{
		Doc: "a test loader",
		Load: func(_ context.Context, _ datasets.Env, p typedLoaderParams) (*datasets.Dataset, error) {
			got = p
			return &datasets.Dataset{Name: p.File, X: matrix.NewDense(p.Rows, 1, make([]float64, p.Rows)), Y: make([]float64, p.Rows)}, nil
		},
		Validate: func(p typedLoaderParams) error {
			if p.File == "" {
				return param.Invalid("file", "empty")
			}
			return nil
		},
		Files:  func(p typedLoaderParams) []string { return append([]string{p.File}, p.Extra...) },
		Memory: func(env datasets.Env, p typedLoaderParams) int64 { return int64(len(env.DataDir) * p.Rows) },
	}.Loader()
	if !reflect.DeepEqual(l.Params, param.Of[typedLoaderParams]().Params) || l.Doc != "a test loader" {
		t.Fatalf("Loader: params %v, doc %q", param.Names(l.Params), l.Doc)
	}
	d, err := l.Load(context.Background(), datasets.Env{}, param.Values{"file": "a.csv", "rows": 2})
	if err != nil || d.Rows() != 2 || got.File != "a.csv" || got.Extra == nil {
		t.Errorf("Load = %v, %v; received %+v", d, err, got)
	}
	if _, err := l.Load(context.Background(), datasets.Env{}, param.Values{"rows": 2}); err == nil {
		t.Error("Load without the required file: no error")
	}
	var inv *param.InvalidError
	if err := l.Validate(param.Values{"rows": 2}); !errors.As(err, &inv) || inv.Param != "file" {
		t.Errorf("Validate without file = %v; want the hook's error on file", err)
	}
	if got := l.Files(param.Values{"file": "a.csv", "extra": []string{"b"}}); !reflect.DeepEqual(got, []string{"a.csv", "b"}) {
		t.Errorf("Files = %v", got)
	}
	if got := l.Memory(datasets.Env{DataDir: "data"}, param.Values{"file": "a.csv", "rows": 5}); got != 20 {
		t.Errorf("Memory = %d, want 4 × 5", got)
	}
}

// TestTypedTransform: a TypedTransform keeps its flags and hands Apply,
// Fit, Memory and DataMemory the values as the struct; MemoryOf prefers
// DataMemory.
func TestTypedTransform(t *testing.T) {
	typed := datasets.TypedTransform[typedTransformParams]{
		Doc: "a test transform",
		Apply: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, p typedTransformParams) (*datasets.Dataset, error) {
			out := *d
			out.Name = d.Name + "×" + param.Format(p.Scale)
			return &out, nil
		},
		Memory:     func(rows, cols, nnz int, p typedTransformParams) int64 { return int64(float64(rows*cols) * p.Scale) },
		Supervised: true, Rows: true, Version: 3,
	}
	tr := typed.Transform()
	typed.DataMemory = func(d *datasets.Dataset, p typedTransformParams) int64 { return int64(float64(len(d.Text)) * p.Scale) }
	dataTr := typed.Transform()
	if tr.Fit != nil || tr.Validate != nil || !tr.Supervised || !tr.Rows || tr.Version != 3 {
		t.Errorf("Transform: %+v", tr)
	}
	d, err := tr.Apply(context.Background(), datasets.Env{}, &datasets.Dataset{Name: "d"}, param.Values{"scale": 4.0})
	if err != nil || d.Name != "d×4" {
		t.Errorf("Apply = %v, %v", d, err)
	}
	if _, err := tr.Apply(context.Background(), datasets.Env{}, &datasets.Dataset{}, param.Values{"scale": -1.0}); err == nil {
		t.Error("Apply with scale -1: no error")
	}
	if got := tr.Memory(10, 2, 20, param.Defaults(tr.Params)); got != 40 {
		t.Errorf("Memory at the default scale 2 = %d, want 40", got)
	}
	docs := &datasets.Dataset{X: matrix.NewDense(3, 2, make([]float64, 6)), Text: []string{"a", "b", "c"}}
	for _, c := range []struct {
		tr   *datasets.Transform
		want int64
	}{{tr, 12}, {dataTr, 6}, {&datasets.Transform{}, 0}} {
		if got, ok := c.tr.MemoryOf(docs, param.Defaults(tr.Params)); got != c.want || ok != (c.want > 0) {
			t.Errorf("MemoryOf = %d, %t; want %d", got, ok, c.want)
		}
	}
}
