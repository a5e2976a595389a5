//go:build realdata

// Timing and sanity runs on the real 20 Newsgroups data, used to size the
// experiments' grids; not part of `go test` (run with -tags realdata).
package fnr_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	_ "github.com/repro-ml/repro/datasets/graph"
	_ "github.com/repro-ml/repro/datasets/text"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/fnr"
	_ "github.com/repro-ml/repro/methods/lgc"
	"github.com/repro-ml/repro/methods/logistic"
	_ "github.com/repro-ml/repro/methods/spectral"
	"github.com/repro-ml/repro/param"
)

func TestRealNewsgroupsTiming(t *testing.T) {
	dir := datatest.Paper(t, "20news-bydate.tar.gz")
	ctx := context.Background()
	env := datasets.Env{DataDir: dir, CacheDir: t.TempDir()}
	l, _ := datasets.Lookup("20news")
	p := param.Defaults(l.Params)
	p["min_df"] = 20
	start := time.Now()
	d, err := l.Load(ctx, env, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %d×%d nnz %d in %v", d.Rows(), d.Cols(), d.X.NNZ(), time.Since(start))
	tr, _ := datasets.LookupTransform("cooccurrence-graph")
	start = time.Now()
	d, err = tr.Apply(ctx, env, d, param.Defaults(tr.Params))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("graph: %v in %v", d.Stats, time.Since(start))
	trainRows, testRows := d.SplitRows()
	// Balanced sample of perClass per class from the training pool.
	r := rand.New(rand.NewPCG(1, 1))
	r.Shuffle(len(trainRows), func(i, j int) { trainRows[i], trainRows[j] = trainRows[j], trainRows[i] })
	test := d.Subset(testRows)
	for _, perClass := range []int{5, 25, 100} {
		cnt := make([]int, len(d.Classes))
		var rows []int
		for _, i := range trainRows {
			if c := d.Label(i); cnt[c] < perClass {
				cnt[c]++
				rows = append(rows, i)
			}
		}
		train := d.Subset(rows)
		for _, c := range []struct {
			name string
			p    map[string]any
		}{
			{"fnr", map[string]any{"alpha": 0.0, "beta": 0.01}},
			{"fnr", map[string]any{"alpha": 1.0, "beta": 0.01}},
			{"fnr", map[string]any{"alpha": 10.0, "beta": 0.1}},
			{"laplacian", map[string]any{"alpha": 1.0, "beta": 0.01}},
			{"normalized-laplacian", map[string]any{"alpha": 1.0, "beta": 0.01}},
			{"pcr", map[string]any{"C": 1.0}},
			{"lle-lr", map[string]any{"C": 1.0}},
			{"lgc", map[string]any{}},
		} {
			pl, _ := methods.Lookup(c.name)
			pv := param.Defaults(pl.Params)
			for k, v := range c.p {
				pv[k] = v
			}
			m, _ := pl.New(pv)
			start := time.Now()
			model, err := m.Fit(ctx, train, &methods.Env{Memo: &methods.Memo{}})
			if err != nil {
				t.Fatal(err)
			}
			fit := time.Since(start)
			pred := model.Predict(test.X)
			ok := 0
			for i := 0; i < test.Rows(); i++ {
				if pred.Label(i) == test.Label(i) {
					ok++
				}
			}
			info := ""
			if in, isI := model.(methods.Informer); isI {
				info = fmt.Sprintf("%+v", in.Info())
			}
			t.Logf("n=%d %s %v: acc %.3f fit %v total %v %s", len(rows), c.name, c.p, float64(ok)/float64(test.Rows()), fit, time.Since(start), info)
		}
	}
}

// BenchmarkRealEvalRatio: fnr vs ridge objective+gradient on the real
// by-date training matrix and co-occurrence graph (interleaved, ratio).
func BenchmarkRealEvalRatio(b *testing.B) {
	dir := datatest.Paper(b, "20news-bydate.tar.gz")
	ctx := context.Background()
	env := datasets.Env{DataDir: dir, CacheDir: b.TempDir()}
	l, _ := datasets.Lookup("20news")
	p := param.Defaults(l.Params)
	p["min_df"] = 20
	d, err := l.Load(ctx, env, p)
	if err != nil {
		b.Fatal(err)
	}
	tr, _ := datasets.LookupTransform("cooccurrence-graph")
	if d, err = tr.Apply(ctx, env, d, param.Defaults(tr.Params)); err != nil {
		b.Fatal(err)
	}
	rows, _ := d.SplitRows()
	train := d.Subset(rows)
	X := matrix.ToCSR(train.X)
	g := train.Graphs["feature"]
	ridge := &logistic.Problem{X: X, Y: train.Labels(), K: 20, D: g.C, Pen: logistic.Penalty{Ridge: 0.01}}
	net := &logistic.Problem{X: X, Y: train.Labels(), K: 20, D: g.C, Pen: logistic.Penalty{Ridge: 0.01, Terms: []logistic.Term{{B: fnr.NetworkResidual(g), Coef: 1}}}}
	x := make([]float64, ridge.NumParams())
	for i := range x {
		x[i] = 0.001 * float64(i%13-6)
	}
	grad := make([]float64, len(x))
	var tr0, tn time.Duration
	b.ReportMetric(float64(X.NNZ()), "nnz")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		ridge.Eval(x, grad)
		t1 := time.Now()
		net.Eval(x, grad)
		tn += time.Since(t1)
		tr0 += t1.Sub(t0)
	}
	b.ReportMetric(float64(tn)/float64(tr0), "fnr/ridge")
}
