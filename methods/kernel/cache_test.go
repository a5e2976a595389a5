package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// cacheProblems returns the same rows as a dense matrix, a CSR matrix, a
// CSR matrix far wider than its entries (the merge path) and, to exercise
// the generic path, a dense matrix behind another type.
func cacheProblems(n, d int, seed uint64) map[string]matrix.Matrix {
	rng := rand.New(rand.NewPCG(seed, 1))
	D := matrix.NewDense(n, d, nil)
	b := matrix.NewBuilder(d)
	w := matrix.NewBuilder(1 << 20)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if rng.IntN(3) > 0 {
				v := rng.NormFloat64()
				D.Set(i, j, v)
				b.Add(j, v)
				w.Add(j*1000, v)
			}
		}
		b.EndRow()
		w.EndRow()
	}
	return map[string]matrix.Matrix{"dense": D, "csr": b.Build(), "wide": w.Build(), "other": wrapped{D}}
}

type wrapped struct{ *matrix.Dense }

// TestCacheMatchesGram: columns from a cache of a few columns, asked for
// at random lengths between random swaps of positions (as a shrinking
// solver does), equal the Gram matrix's entries of the rows at those
// positions.
func TestCacheMatchesGram(t *testing.T) {
	const n = 40
	kernels := []struct {
		k    Kernel
		norm bool
	}{{Kernel{Kind: Linear}, false}, {Kernel{Kind: Poly, Degree: 3}, true}, {Kernel{Kind: RBF, Sigma: 2}, false}, {Kernel{Kind: RBF, Sigma: 0.7}, true}}
	for name, X := range cacheProblems(n, 7, 5) {
		for _, kc := range kernels {
			t.Run(fmt.Sprintf("%s/%s/norm=%v", name, kc.k, kc.norm), func(t *testing.T) {
				K := Gram(kc.k, X, kc.norm)
				c := NewCache(NewColumns(X, kc.k, kc.norm), 5*n*8) // five full columns
				cols := c.Columns()
				rng := rand.New(rand.NewPCG(9, 9))
				for step := 0; step < 2000; step++ {
					if rng.IntN(4) == 0 {
						c.Swap(rng.IntN(n), rng.IntN(n))
						continue
					}
					p, length := rng.IntN(n), 1+rng.IntN(n)
					col := c.Column(p, length)
					if len(col) != length {
						t.Fatalf("column of length %d, want %d", len(col), length)
					}
					i := cols.Row(p)
					if d := cols.Diag(p); math.Abs(d-K[i*n+i]) > 1e-12 {
						t.Fatalf("diag at position %d (row %d) = %v, want %v", p, i, d, K[i*n+i])
					}
					for q, v := range col {
						if want := K[i*n+cols.Row(q)]; math.Abs(v-want) > 1e-12*math.Max(1, math.Abs(want)) {
							t.Fatalf("step %d: k(pos %d, pos %d) = %v, want %v", step, p, q, v, want)
						}
					}
					if c.free < 0 {
						t.Fatalf("cache over its budget by %d floats", -c.free)
					}
				}
			})
		}
	}
}

// TestCacheReuses: a column asked for twice is computed once while it fits,
// and only the missing entries are computed when a longer one is asked.
func TestCacheReuses(t *testing.T) {
	X := cacheProblems(30, 4, 2)["dense"]
	c := NewCache(NewColumns(X, Kernel{Kind: RBF, Sigma: 1}, false), 1<<20)
	c.Column(3, 10)
	c.Column(3, 10)
	if got := c.Computed(); got != 10 {
		t.Errorf("computed %d entries, want 10", got)
	}
	c.Column(3, 30)
	if got := c.Computed(); got != 30 {
		t.Errorf("computed %d entries, want 30", got)
	}
	// A budget of two columns evicts the least recently used.
	c = NewCache(NewColumns(X, Kernel{Kind: RBF, Sigma: 1}, false), 0)
	c.Column(0, 30)
	c.Column(1, 30)
	c.Column(0, 30)
	c.Column(2, 30) // evicts 1
	c.Column(0, 30)
	if got := c.Computed(); got != 90 {
		t.Errorf("computed %d entries, want 90", got)
	}
}

// BenchmarkColumnRBF computes one RBF column of a dense ISOLET-sized
// training set (6238 × 617). Its floor is one multiply-add per stored
// entry of X (n·d); the metric ns/madd is the time per multiply-add.
func BenchmarkColumnRBF(b *testing.B) {
	const n, d = 6238, 617
	rng := rand.New(rand.NewPCG(1, 1))
	X := matrix.NewDense(n, d, nil)
	for i := range X.RawData() {
		X.RawData()[i] = rng.Float64()*2 - 1
	}
	cols := NewColumns(X, Kernel{Kind: RBF, Sigma: 15.8}, false)
	dst := make([]float64, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cols.Fill(i%n, dst, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*d), "ns/madd")
}

// BenchmarkColumnSparse computes one linear column of a sparse training
// set (20000 rows, 50 of 10000 columns set per row); the floor is one
// multiply-add per stored entry.
func BenchmarkColumnSparse(b *testing.B) {
	const n, d, per = 20000, 10000, 50
	rng := rand.New(rand.NewPCG(1, 1))
	bl := matrix.NewBuilder(d)
	for i := 0; i < n; i++ {
		for j := rng.IntN(d / per); j < d; j += 1 + rng.IntN(2*d/per) {
			bl.Add(j, rng.NormFloat64())
		}
		bl.EndRow()
	}
	X := bl.Build()
	cols := NewColumns(X, Kernel{Kind: Linear}, false)
	dst := make([]float64, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cols.Fill(i%n, dst, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(X.NNZ()), "ns/madd")
}

// TestFamilyMatchesGram: a Family's columns, read through a cache of two
// columns of inner products and through a cache holding them all, equal
// the Gram matrices of every kernel (to 1e-12), normalized or not, and
// its diagonal is the Gram matrices' diagonal.
func TestFamilyMatchesGram(t *testing.T) {
	X := matrix.NewDense(30, 5, nil)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range X.RawData() {
		X.RawData()[i] = rng.NormFloat64()
	}
	var ks []Kernel
	for _, s := range []string{"linear", "poly:2", "poly:3", "rbf:1", "rbf:0.3"} {
		k, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	for _, normalize := range []bool{false, true} {
		for _, bytes := range []int64{1, 1 << 20} {
			f := NewFamily(X, ks, normalize, bytes)
			for d, k := range ks {
				G := Gram(k, X, normalize)
				for _, tt := range rng.Perm(30) {
					col := f.Column(d, tt)
					for s, v := range col {
						if w := G[tt*30+s]; math.Abs(v-w) > 1e-12*(1+math.Abs(w)) {
							t.Fatalf("%v normalize=%v bytes=%d: K[%d][%d] = %g, Gram %g", k, normalize, bytes, tt, s, v, w)
						}
					}
					if w := G[tt*30+tt]; math.Abs(f.Diag(d, tt)-w) > 1e-12*(1+math.Abs(w)) {
						t.Fatalf("%v normalize=%v: diagonal %d = %g, Gram %g", k, normalize, tt, f.Diag(d, tt), w)
					}
				}
			}
		}
	}
}
