package linear

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/datasets/libsvm"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

var (
	benchOnce             sync.Once
	benchDense, benchCSR  *datasets.Dataset
	benchRegD, benchRegSp *datasets.Dataset
)

// benchData builds a 3000×240 dense binary problem (the size of the DNA
// splice data) and a 10000×20000 sparse one with 50 non-zeros per row (a
// bag-of-words problem), with labels from a noisy sparse linear rule, plus
// regression versions of both.
func benchData() {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(42, 1))
		benchDense = synthClass(42, 3000, 240, 2, 0.15, 0.5)
		benchRegD = synthReg(42, 3000, 240, 0.5)
		const n, d, nnz = 10000, 20000, 50
		beta := make([]float64, d)
		for j := range beta {
			if rng.Float64() < 0.05 {
				beta[j] = rng.NormFloat64()
			}
		}
		b := matrix.NewBuilder(d)
		y := make([]float64, n)
		t := make([]float64, n)
		for i := 0; i < n; i++ {
			s := 0.0
			for k := 0; k < nnz; k++ {
				j := rng.IntN(d)
				v := 1 + rng.Float64()
				b.Add(j, v)
				s += v * beta[j]
			}
			b.EndRow()
			t[i] = s + 0.3*rng.NormFloat64()
			if t[i] > 0 {
				y[i] = 1
			}
		}
		X := b.Build()
		benchCSR = &datasets.Dataset{Name: "sparse", X: X, Y: y, Classes: []string{"neg", "pos"}}
		benchRegSp = &datasets.Dataset{Name: "sparse-reg", X: X, Y: t}
	})
}

func benchFit(b *testing.B, name string, params map[string]any, data func() *datasets.Dataset) {
	benchData()
	d := data()
	m := newMethod(b, name, params)
	b.ResetTimer()
	for range b.N {
		if _, err := m.Fit(b.Context(), d, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogRegL2Dense(b *testing.B) {
	benchFit(b, "logreg-l2", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchDense })
}

func BenchmarkLogRegL2Sparse(b *testing.B) {
	benchFit(b, "logreg-l2", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchCSR })
}

func BenchmarkLogRegL1Dense(b *testing.B) {
	benchFit(b, "logreg-l1", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchDense })
}

func BenchmarkLogRegL1Sparse(b *testing.B) {
	benchFit(b, "logreg-l1", map[string]any{"C": 1.0}, func() *datasets.Dataset { return benchCSR })
}

func BenchmarkRidgeDense(b *testing.B) {
	benchFit(b, "ridge", map[string]any{"lambda": 1.0}, func() *datasets.Dataset { return benchRegD })
}

func BenchmarkRidgeSparse(b *testing.B) {
	benchFit(b, "ridge", map[string]any{"lambda": 1.0}, func() *datasets.Dataset { return benchRegSp })
}

// dnaTrain returns the first 2000 rows of the embedded DNA splice data
// (3 classes, 180 indicator bits, about 25% non-zero), the size of the
// bench/liblinear training set.
func dnaTrain(b testing.TB) *datasets.Dataset {
	d, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		b.Fatal(err)
	}
	return d.Subset(d.Indices()[:2000])
}

func BenchmarkLogRegL1DNA(b *testing.B) {
	d := dnaTrain(b)
	for _, C := range []float64{1, 10} {
		b.Run(fmt.Sprintf("C=%g", C), func(b *testing.B) {
			benchFit(b, "logreg-l1", map[string]any{"C": C}, func() *datasets.Dataset { return d })
		})
	}
}

func BenchmarkLogRegL2DNA(b *testing.B) {
	d := dnaTrain(b)
	for _, C := range []float64{1, 10} {
		b.Run(fmt.Sprintf("C=%g", C), func(b *testing.B) {
			benchFit(b, "logreg-l2", map[string]any{"C": C}, func() *datasets.Dataset { return d })
		})
	}
}

func BenchmarkLogRegL2Solvers(b *testing.B) {
	benchData()
	dna := dnaTrain(b)
	for _, data := range []*datasets.Dataset{dna, benchDense, benchCSR} {
		for _, C := range []float64{1, 10} {
			for _, solver := range []string{"tron", "lbfgs"} {
				b.Run(fmt.Sprintf("%s/C=%g/%s", data.Name, C, solver), func(b *testing.B) {
					benchFit(b, "logreg-l2", map[string]any{"C": C, "solver": solver}, func() *datasets.Dataset { return data })
				})
			}
		}
	}
}

// BenchmarkSparseKernels times the hot kernels of the linear solvers on
// the 10000 × 20000 sparse problem (500,000 non-zeros, 50 per row, columns
// drawn at random: the access pattern of bag-of-words data), each
// reported in ns per non-zero against its floor:
//
//   - floor: one pass over the non-zeros that reads every index and value
//     (Σ Val[k]·Ind[k]), the memory traffic every kernel must pay;
//   - Xw (CSR MulVec): a gather of w per non-zero, rows written once;
//   - XTv (CSR MulTransVec): a scatter into the result per non-zero;
//   - colGather, colScatter: logreg-l1's coordinate-descent pass over the
//     32-bit-indexed columns (gradient gather Σ x·dxd[i], update scatter
//     dxd[i] += z·x·D[i]);
//   - gram: one coordinate-descent step on the explicit model Hessian of
//     500 active columns (an axpy of length 500), in ns per step: it
//     replaces a gather and a scatter over the column, so it pays when
//     the active columns hold more than a few hundred non-zeros (frequent
//     words: 520 on average for the 318 active in 20 Newsgroups' first
//     one-vs-rest task, against 25 here).
func BenchmarkSparseKernels(b *testing.B) {
	benchData()
	X := benchCSR.X.(*matrix.CSR)
	n, d := X.Dims()
	nnz := float64(X.NNZ())
	w := make([]float64, d)
	v := make([]float64, n)
	for j := range w {
		w[j] = float64(j%7) - 3
	}
	for i := range v {
		v[i] = float64(i%5) - 2
	}
	z := make([]float64, n)
	g := make([]float64, d)
	perNNZ := func(b *testing.B, k float64) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*k), "ns/nnz")
	}
	b.Run("floor", func(b *testing.B) {
		var s0, s1, s2, s3 float64 // four chains: not bound by the add latency
		for range b.N {
			val, ind := X.Val, X.Ind[:len(X.Val)]
			k := 0
			for ; k+4 <= len(val); k += 4 {
				s0 += val[k] * float64(ind[k])
				s1 += val[k+1] * float64(ind[k+1])
				s2 += val[k+2] * float64(ind[k+2])
				s3 += val[k+3] * float64(ind[k+3])
			}
			for ; k < len(val); k++ {
				s0 += val[k] * float64(ind[k])
			}
		}
		perNNZ(b, nnz)
		sinkF = s0 + s1 + s2 + s3
	})
	b.Run("Xw", func(b *testing.B) {
		for range b.N {
			X.MulVec(z, w)
		}
		perNNZ(b, nnz)
	})
	b.Run("XTv", func(b *testing.B) {
		for range b.N {
			X.MulTransVec(g, v)
		}
		perNNZ(b, nnz)
	})
	cols := newColMajor(X)
	b.Run("colGather", func(b *testing.B) {
		s := 0.0
		for range b.N {
			for j := 0; j < d; j++ {
				ind, val := cols.col(j)
				for t, x := range val {
					s += x * v[ind[t]]
				}
			}
		}
		perNNZ(b, nnz)
		sinkF = s
	})
	b.Run("colScatter", func(b *testing.B) {
		for range b.N {
			for j := 0; j < d; j++ {
				ind, val := cols.col(j)
				for t, x := range val {
					i := ind[t]
					z[i] += 1e-9 * x * v[i]
				}
			}
		}
		perNNZ(b, nnz)
	})
	b.Run("gram", func(b *testing.B) {
		act := make([]int, 500)
		colNNZ := 0 // to compare with a column step: 2·(nnz/column)·(colGather+colScatter)/2
		for k := range act {
			act[k] = k * (d / 500)
			ind, _ := cols.col(act[k])
			colNNZ += len(ind)
		}
		D := make([]float64, n)
		for i := range D {
			D[i] = 0.2
		}
		gm := newModelGram(d)
		gm.mark(act, -1)
		gm.build(cols, D)
		b.ResetTimer()
		for range b.N {
			for _, j := range act {
				gm.step(j, 1e-9)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(act)), "ns/step")
		b.ReportMetric(float64(colNNZ)/float64(len(act)), "nnz/column")
	})
}

var sinkF float64

var (
	wideOnce  sync.Once
	wideDense *datasets.Dataset
)

// BenchmarkLogRegL1DenseWide is a dense, continuous, wide problem like
// Bilgic's full-pool fits on all principal components (Nova: 16,961 ×
// 3,181): 6,000 × 1,500, two classes, C = 1 with an intercept.
func BenchmarkLogRegL1DenseWide(b *testing.B) {
	wideOnce.Do(func() { wideDense = synthClass(11, 6000, 1500, 2, 0.08, 0) })
	benchFit(b, "logreg-l1", map[string]any{"C": 1.0, "intercept": true}, func() *datasets.Dataset { return wideDense })
}

// BenchmarkLogRegL1File fits logreg-l1 (C = 1, no intercept, as liblinear
// -s 6 -c 1) one-vs-rest on the LIBSVM file $REPRO_L1_BENCH (the 20
// Newsgroups training file that go run ./bench/liblinear -problem 20news
// -export DIR writes) at tol $REPRO_L1_TOL (default 1e-4), and reports the
// summed objective and outer iterations: the fit-only timing of issue 33.
func BenchmarkLogRegL1File(b *testing.B) {
	file := os.Getenv("REPRO_L1_BENCH")
	if file == "" {
		b.Skip("REPRO_L1_BENCH not set")
	}
	tol := 1e-4
	if s := os.Getenv("REPRO_L1_TOL"); s != "" {
		var err error
		if tol, err = strconv.ParseFloat(s, 64); err != nil {
			b.Fatalf("REPRO_L1_TOL: %v", err)
		}
	}
	ds, err := libsvm.Load([]string{file}, libsvm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m := newMethod(b, "logreg-l1", map[string]any{"C": 1.0, "intercept": false, "tol": tol})
	b.ResetTimer()
	var info methods.Info
	for range b.N {
		model, err := m.Fit(b.Context(), ds, nil)
		if err != nil {
			b.Fatal(err)
		}
		info = model.(methods.Informer).Info()
	}
	b.ReportMetric(info.Objective, "objective")
	b.ReportMetric(float64(info.Iterations), "iterations")
}

// BenchmarkLossResidency evaluates the logistic loss and its gradient
// (logisticLossCSR, one pass over the rows: what each L-BFGS iteration of
// logreg-l2 costs) on sparse matrices whose rows take from 6 to 96 MB
// (12 bytes per non-zero: an int32 index and a float64 value), with 20
// Newsgroups' shape (11,806 columns, 137 non-zeros per row, the columns
// drawn Zipf-like as words are). It reports ns per non-zero: flat while
// the rows stay in the last-level cache between passes, higher once they
// do not (the README's growth table, whose 1× file is 18.6 MB of rows).
//
//	go test ./methods/linear -run - -bench LossResidency -count 5
func BenchmarkLossResidency(b *testing.B) {
	for _, mb := range []int{6, 12, 18, 24, 32, 48, 64, 96} {
		X, y, w := zipfRows(mb)
		grad := make([]float64, X.C+1)
		nnz := len(X.Val)
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			for b.Loop() {
				logisticLossCSR(X, y, w, 0, grad)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nnz), "ns/nnz")
		})
	}
}

// BenchmarkDualResidency runs two epochs of dualCD (logreg-l2's dual
// start) on the rows of BenchmarkLossResidency at the README growth
// table's 1× and 8× sizes (18.6 and 149 MB of rows), in both of its
// orders — "uniform", a uniform random permutation of the rows, and
// "streams", streamOrder's runs (what dualCD uses above dualStreamBytes)
// — and reports ns per non-zero and epoch: the same at both sizes where
// reading the rows in that order costs no more once they no longer fit in
// the last-level cache.
//
//	go test ./methods/linear -run - -bench DualResidency -count 5
func BenchmarkDualResidency(b *testing.B) {
	defer func(v int64) { dualStreamBytes = v }(dualStreamBytes)
	for _, mb := range []int{18, 149} {
		X, y, _ := zipfRows(mb)
		nnz := len(X.Val)
		var dw dualWork
		w := make([]float64, X.C)
		never := func(int, float64, []float64) bool { return false }
		for _, order := range []string{"uniform", "streams"} {
			b.Run(fmt.Sprintf("%dMB/%s", mb, order), func(b *testing.B) {
				dualStreamBytes = 0
				if order == "uniform" {
					dualStreamBytes = math.MaxInt64
				}
				for b.Loop() {
					if _, _, err := dualCD(context.Background(), X, y, 1, 2, nil, w, &dw, never); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*nnz), "ns/nnz")
			})
		}
	}
}

// zipfRows returns a sparse matrix whose rows take about mb megabytes (12
// bytes per non-zero: an int32 index and a float64 value) with 20
// Newsgroups' shape (11,806 columns, 137 non-zeros per row, the columns
// drawn Zipf-like as words are), random ±1 labels and a small random w.
func zipfRows(mb int) (*matrix.CSR, []float64, []float64) {
	const d, perRow = 11806, 137
	n := mb << 20 / (12 * perRow)
	rng := rand.New(rand.NewPCG(7, uint64(mb)))
	zipf := rand.NewZipf(rng, 1.1, 1, d-1)
	bl := matrix.NewBuilder(d)
	y := make([]float64, n)
	seen := make(map[int]bool, perRow)
	for i := 0; i < n; i++ {
		clear(seen)
		for len(seen) < perRow {
			seen[int(zipf.Uint64())] = true
		}
		for _, j := range slices.Sorted(maps.Keys(seen)) {
			bl.Add(j, 1+rng.Float64())
		}
		bl.EndRow()
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = 0.01 * rng.NormFloat64()
	}
	return bl.Build(), y, w
}
