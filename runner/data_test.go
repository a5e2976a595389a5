package runner

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// graphApplied counts the calls of the fake-graph transform's Apply.
var graphApplied atomic.Int64

func init() {
	datasets.RegisterTransform("fake-graph", &datasets.Transform{
		Doc: "links every feature to the next with weight w (test fixture; counts its calls)",
		Params: []param.Decl{
			{Name: "w", Type: param.Float, Default: 1.0, Doc: "edge weight"},
		},
		Version: 1,
		Apply: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, p param.Values) (*datasets.Dataset, error) {
			graphApplied.Add(1)
			c := d.Cols()
			b := matrix.NewBuilder(c)
			for j := 0; j < c; j++ {
				if j+1 < c {
					b.Add(j+1, p.Float("w"))
				}
				b.EndRow()
			}
			out := *d
			out.Graphs = map[string]*matrix.CSR{"feature": b.Build()}
			out.Stats = map[string]float64{"graph.edges": float64(c - 1)}
			out.Notes = append(append([]string(nil), d.Notes...), "a chain graph")
			return &out, nil
		},
	})
}

// TestTransformCache checks that a transform runs once per input content
// and params: a second load reads the cache (the same dataset, graphs,
// stats and notes), a change of params or of the input recomputes it.
func TestTransformCache(t *testing.T) {
	env := datasets.Env{CacheDir: t.TempDir()}
	ds := &spec.DatasetSpec{Name: "fake-blobs", ID: "b",
		Params:     param.Values{"n": 30, "d": 4, "classes": 2, "spread": 1.0, "given": false},
		Transforms: []spec.TransformSpec{{Name: "fake-graph", Params: param.Values{"w": 0.5}}}}
	load := func() *datasets.Dataset {
		t.Helper()
		d, err := LoadDataset(context.Background(), env, ds)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	before := graphApplied.Load()
	first := load()
	second := load()
	if n := graphApplied.Load() - before; n != 1 {
		t.Fatalf("Apply ran %d times for two loads of the same input, want 1", n)
	}
	if !reflect.DeepEqual(first.Graphs, second.Graphs) || !reflect.DeepEqual(first.Stats, second.Stats) ||
		!reflect.DeepEqual(first.Notes, second.Notes) || !reflect.DeepEqual(first.Y, second.Y) ||
		!reflect.DeepEqual(matrix.ToDense(first.X), matrix.ToDense(second.X)) {
		t.Error("the cached dataset differs from the computed one")
	}

	ds.Transforms[0].Params = param.Values{"w": 2.0} // other params
	if g := load().Graphs["feature"]; g.Val[0] != 2 {
		t.Errorf("edge weight %v after a param change, want 2", g.Val[0])
	}
	ds.Params["n"] = 40 // other input content
	load()
	if n := graphApplied.Load() - before; n != 3 {
		t.Errorf("Apply ran %d times, want 3 (one per distinct input and params)", n)
	}
}
