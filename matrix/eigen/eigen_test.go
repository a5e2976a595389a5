package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSym returns an n×n symmetric matrix: Gaussian entries, or with
// lowRank > 0 a sum of lowRank outer products (a rank-deficient
// covariance matrix, the kind PCA decomposes).
func randomSym(n, lowRank int, seed uint64) *mat.SymDense {
	r := rand.New(rand.NewPCG(seed, 7))
	a := mat.NewSymDense(n, nil)
	if lowRank == 0 {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				a.SetSym(i, j, r.NormFloat64())
			}
		}
		return a
	}
	x := make([]float64, n)
	for k := 0; k < lowRank; k++ {
		for i := range x {
			x[i] = r.NormFloat64()
		}
		a.SymRankOne(a, 1, mat.NewVecDense(n, x))
	}
	return a
}

// TestSymMatchesGonum checks that Sym computes exactly what mat.EigenSym
// does, bit for bit, serially and on several workers, including sizes
// where the sweeps run in parallel and where the tridiagonal reduction
// takes its blocked path (n > 32) with parallel products (the rank-2
// updates from n = 96, the largest matrix-vector products from n = 364).
func TestSymMatchesGonum(t *testing.T) {
	cases := []struct{ n, rank int }{
		{1, 0}, {2, 0}, {3, 0}, {17, 0}, {64, 0}, {64, 5}, {300, 0}, {300, 40},
		{700, 0}, {700, 60},
	}
	if testing.Short() {
		cases = cases[:len(cases)-2]
	}
	for _, tc := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("n=%d/rank=%d/workers=%d", tc.n, tc.rank, workers), func(t *testing.T) {
				a := randomSym(tc.n, tc.rank, uint64(tc.n))
				var e mat.EigenSym
				if !e.Factorize(a, true) {
					t.Fatal("gonum failed")
				}
				want := e.Values(nil)
				var wantV mat.Dense
				e.VectorsTo(&wantV)

				got, V, err := Sym(a, workers)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d values, want %d", len(got), len(want))
				}
				if i := sameBits(got, want); i >= 0 {
					t.Fatalf("value %d = %v, gonum %v", i, got[i], want[i])
				}
				if k := sameBits(V.RawMatrix().Data, wantV.RawMatrix().Data); k >= 0 {
					t.Fatalf("vector entry (%d,%d) = %v, gonum %v", k/tc.n, k%tc.n, V.At(k/tc.n, k%tc.n), wantV.At(k/tc.n, k%tc.n))
				}
			})
		}
	}
}

// TestSymResidual checks the decomposition itself: A·v = λ·v and VᵀV = I
// to rounding.
func TestSymResidual(t *testing.T) {
	const n = 200
	a := randomSym(n, 0, 3)
	vals, V, err := Sym(a, 2)
	if err != nil {
		t.Fatal(err)
	}
	var AV, VtV mat.Dense
	AV.Mul(a, V)
	VtV.Mul(V.T(), V)
	for j := 0; j < n; j++ {
		if j > 0 && vals[j] < vals[j-1] {
			t.Fatalf("values not ascending at %d: %v < %v", j, vals[j], vals[j-1])
		}
		for i := 0; i < n; i++ {
			if r := math.Abs(AV.At(i, j) - vals[j]*V.At(i, j)); r > 1e-11 {
				t.Fatalf("residual (%d,%d) = %g", i, j, r)
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if r := math.Abs(VtV.At(i, j) - want); r > 1e-12 {
				t.Fatalf("VᵀV (%d,%d) off by %g", i, j, r)
			}
		}
	}
}

// BenchmarkSym compares Sym with mat.EigenSym at sizes where gonum's
// column-pair rotations miss the cache (a 3,181-column covariance matrix
// is the Nova pool's PCA in bilgic2012's experiments).
func BenchmarkSym(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		a := randomSym(n, 0, 1)
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			for range b.N {
				var e mat.EigenSym
				if !e.Factorize(a, true) {
					b.Fatal("failed")
				}
			}
		})
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", n, w), func(b *testing.B) {
				for range b.N {
					if _, _, err := Sym(a, w); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
