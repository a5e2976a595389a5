package conformance_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/memtest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// memoryProblem returns a two-class problem of n training rows (and n/2 to
// predict) over d columns with about nnz non-zeros per row, dense or
// sparse: wide and sparse is the shape of a LIBSVM file with one large
// index, where the per-column allocations dominate a fit.
// With regression the targets are the noisy linear scores.
func memoryProblem(n, d, nnz int, dense, regression bool) (train, test *datasets.Dataset) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	rows := func(n int) *datasets.Dataset {
		ds := &datasets.Dataset{Name: "memory", Classes: []string{"neg", "pos"}}
		b := matrix.NewBuilder(d)
		for range n {
			s := 0.3 * rng.NormFloat64()
			seen := map[int]bool{}
			for range nnz {
				j := rng.IntN(d)
				if seen[j] {
					continue
				}
				seen[j] = true
			}
			for _, j := range slices.Sorted(maps.Keys(seen)) {
				v := rng.NormFloat64()
				s += w[j] * v
				b.Add(j, v)
			}
			b.EndRow()
			y := s
			if !regression {
				y = 0
				if s > 0 {
					y = 1
				}
			}
			ds.Y = append(ds.Y, y)
		}
		var X matrix.Matrix = b.Build()
		if dense {
			X = matrix.ToDense(X)
		}
		ds.X = X
		ds.Graphs = map[string]*matrix.CSR{"feature": chain(d)}
		if regression {
			ds.Classes = nil
		}
		if err := ds.Validate(); err != nil {
			panic(err)
		}
		return ds
	}
	train, test = rows(n), rows(n/2)
	if !regression {
		// Both classes occur.
		train.Y[0], train.Y[1] = 0, 1
	}
	return train, test
}

// TestMemoryEstimates checks methods' memory estimates
// (methods.Plugin.Memory, which the runner checks against --mem-limit
// before a fit) against what a fit and a prediction really allocate: never
// below it (below their live peak for a solver that allocates at every
// step), so that a fit the estimate lets through does not exhaust memory,
// and within 20 times it, so that a fit that would fit is not refused.
// The problems are wide, as the per-column allocations that a huge LIBSVM
// index multiplies, and tall, as the per-row ones of kernels.
func TestMemoryEstimates(t *testing.T) {
	// A live peak above the estimate is measured again, up to peakRuns
	// times in all (memtest.LeastPeak: the measurement errs upwards only,
	// on a loaded machine).
	const peakRuns = 4
	cases := []struct {
		method string
		params map[string]any
		n, d   int
		nnz    int
		dense  bool
		reg    bool // regression
		// steps marks a method that allocates afresh at every solver
		// step (or fit of a search): it is held to its live peak, not
		// to all it allocates.
		steps bool
	}{
		{method: "logreg-l2", n: 60, d: 20000, nnz: 8},
		{method: "logreg-l2", params: map[string]any{"solver": "tron"}, n: 60, d: 20000, nnz: 8},
		{method: "logreg-l1", n: 60, d: 20000, nnz: 8},
		{method: "command", params: methodParams["command"], n: 60, d: 20000, nnz: 8},
		{method: "command", params: map[string]any{"format": "csv", "train": methodParams["command"]["train"], "predict": methodParams["command"]["predict"]}, n: 60, d: 2000, nnz: 8},
		{method: "logreg-l1", n: 60, d: 2000, nnz: 2000, dense: true},
		{method: "logreg-en", n: 60, d: 20000, nnz: 8},
		{method: "logreg-en", params: map[string]any{"alpha": 0.0, "nlambda": 20}, n: 60, d: 20000, nnz: 8},
		{method: "ridge", n: 60, d: 20000, nnz: 8, reg: true},
		{method: "ridge", n: 200, d: 50, nnz: 50, dense: true, reg: true},
		{method: "lasso", n: 200, d: 300, nnz: 300, dense: true, reg: true},
		{method: "group-lasso", n: 200, d: 100, nnz: 100, dense: true, reg: true},
		{method: "hp", n: 200, d: 100, nnz: 100, dense: true, reg: true, steps: true},
		{method: "svm", n: 60, d: 20000, nnz: 8},
		// More than 2^20 columns absent from the training rows: the
		// linear models keep weights for those alone
		// (methods.CompactColumns), so memory follows the non-zeros.
		{method: "logreg-l2", n: 60, d: 1<<20 + 500, nnz: 8},
		{method: "logreg-l1", n: 60, d: 1<<20 + 500, nnz: 8},
		{method: "logreg-en", n: 60, d: 1<<20 + 500, nnz: 8},
		{method: "svm", n: 60, d: 1<<20 + 500, nnz: 8},
		{method: "svm", n: 400, d: 20, nnz: 20, dense: true}, // the linear solver's interior-point start
		{method: "svm", params: map[string]any{"kernel": "rbf"}, n: 400, d: 20, nnz: 20, dense: true},
		// A cache of 0.05 MB (2.6 columns of 2,500 rows) under the Gram
		// matrix's 100 MB: columns on demand, shrinking; the cache drops
		// and allocates columns as it goes (held to its live peak).
		{method: "svm", params: map[string]any{"kernel": "rbf", "cache_mb": 0.05}, n: 2500, d: 20, nnz: 20, dense: true, steps: true},
		{method: "med", n: 200, d: 20, nnz: 20, dense: true},
		// Projected Newton allocates its systems afresh every pass (held
		// to its live peak).
		{method: "med", params: map[string]any{"select": "kernels", "kernels": []string{"linear", "rbf:1"}, "rho": 0.01}, n: 200, d: 20, nnz: 20, dense: true, steps: true},
		// Kernel columns through a cache far smaller than the Gram matrices.
		{method: "med", params: map[string]any{"select": "kernels", "kernels": []string{"linear", "rbf:1"}, "cache_mb": 0.05}, n: 600, d: 20, nnz: 20, dense: true, steps: true},
		{method: "lgc", n: 200, d: 20, nnz: 20, dense: true, steps: true},
		{method: "pcr", n: 60, d: 20000, nnz: 8},
		{method: "ddr", params: map[string]any{"k": 20}, n: 100, d: 200, nnz: 200, dense: true, steps: true},
		{method: "ee", params: map[string]any{"k": 20}, n: 100, d: 200, nnz: 200, dense: true, steps: true},
		// incr's first fit takes k columns: all of them here.
		{method: "incr", params: map[string]any{"k": 200}, n: 100, d: 200, nnz: 200, dense: true},
		{method: "fnr", n: 60, d: 20000, nnz: 8, steps: true},
		{method: "laplacian", n: 60, d: 20000, nnz: 8, steps: true},
		{method: "normalized-laplacian", n: 60, d: 20000, nnz: 8, steps: true},
		{method: "lle-lr", n: 60, d: 400, nnz: 8, steps: true},
		{method: "kernel-hp", n: 100, d: 1, nnz: 1, dense: true, reg: true},
		{method: "pca-pair", n: 100, d: 300, nnz: 10, steps: true},
		{method: "pca-pair", n: 200, d: 40, nnz: 40, dense: true, steps: true},
	}
	// Every method declares an estimate and is measured here.
	measured := map[string]bool{}
	for _, c := range cases {
		measured[c.method] = true
	}
	for _, name := range methods.Names() {
		if pl, _ := methods.Lookup(name); pl.Memory == nil {
			t.Errorf("method %s declares no memory estimate (methods.Plugin.Memory)", name)
		}
		if !measured[name] {
			t.Errorf("method %s is not measured by TestMemoryEstimates: add a case", name)
		}
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%dx%d", c.method, c.n, c.d)
		if len(c.params) > 0 {
			name = fmt.Sprintf("%s%v/%dx%d", c.method, c.params, c.n, c.d)
		}
		t.Run(name, func(t *testing.T) {
			pl, err := methods.Lookup(c.method)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Memory == nil {
				t.Fatalf("%s declares no memory estimate", c.method)
			}
			p := resolve(t, "method "+c.method, pl.Params, c.params)
			train, test := memoryProblem(c.n, c.d, c.nnz, c.dense, c.reg)
			m, err := pl.New(p)
			if err != nil {
				t.Fatal(err)
			}
			// One fit and prediction first, unmeasured: what the
			// process sets up once (gonum's pools, lazily built tables)
			// is no part of a fit's memory, and counted on a first fit
			// alone it made the live peak vary between runs (hp's 0.4
			// to 2.5 MB).
			if model, err := m.Fit(context.Background(), train, &methods.Env{Seed: seed, Memo: new(methods.Memo)}); err == nil {
				model.Predict(test.X)
			}
			var fitErr error
			est := pl.MemoryOf(methods.ShapeOf(train, test.Rows()), p)
			total, peak := memtest.LeastPeak(func() {
				model, err := m.Fit(context.Background(), train, &methods.Env{Seed: seed, Memo: new(methods.Memo)})
				if err != nil {
					fitErr = err
					return
				}
				model.Predict(test.X)
			}, est, peakRuns)
			if fitErr != nil {
				t.Fatal(fitErr)
			}
			t.Logf("estimate %d bytes; live peak %d (%.1f×), allocated in all %d (%.1f×)", est,
				peak, float64(est)/float64(peak), total, float64(est)/float64(total))
			if c.steps && est < peak {
				t.Errorf("estimate %d bytes is below the live peak of %d the fit and prediction reached", est, peak)
			}
			if !c.steps && est < total {
				t.Errorf("estimate %d bytes is below the %d the fit and prediction allocated", est, total)
			}
			if est > 20*total {
				t.Errorf("estimate %d bytes is over 20 times the %d the fit and prediction allocated", est, total)
			}
		})
	}
}
