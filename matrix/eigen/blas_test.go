package eigen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// randSlice returns n Gaussian numbers.
func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// sameBits reports the first index where got and want differ bit for bit,
// or −1.
func sameBits(got, want []float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i
		}
	}
	return -1
}

// TestSymvUpperMatchesGonum checks symvUpper against gonum's Dsymv bit for
// bit, with unit and strided vectors, padded rows, several alpha and beta
// and worker counts, at sizes on both sides of the parallel threshold.
func TestSymvUpperMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 17, 100, 400, 701} {
		for _, inc := range [][2]int{{1, 1}, {3, 1}, {1, 4}, {5, 2}} {
			for _, ab := range [][2]float64{{1, 0}, {-0.7, 1}, {1.3, 0.5}, {0, 0.5}} {
				incX, incY := inc[0], inc[1]
				alpha, beta := ab[0], ab[1]
				lda := n + 3
				a := randSlice(r, max(1, n*lda))
				x := randSlice(r, max(1, n*incX))
				y0 := randSlice(r, max(1, n*incY))
				want := append([]float64(nil), y0...)
				gonum.Implementation{}.Dsymv(blas.Upper, n, alpha, a, lda, x, incX, beta, want, incY)
				for _, workers := range []int{1, 2, 3, 5} {
					got := append([]float64(nil), y0...)
					symvUpper(n, alpha, a, lda, x, incX, beta, got, incY, make([]float64, 2*n), workers)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("n=%d inc=%v alpha=%v beta=%v workers=%d: y[%d] = %v, gonum %v",
							n, inc, alpha, beta, workers, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestSyr2kUpperMatchesGonum checks syr2kUpper against gonum's
// Dsyr2k(Upper, NoTrans) bit for bit (the whole of C, so that nothing
// outside the upper triangle is touched), with padded rows, several alpha,
// beta, k and worker counts.
func TestSyr2kUpperMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 60, 200, 333} {
		for _, k := range []int{1, 7, 32} {
			for _, ab := range [][2]float64{{-1, 1}, {0.6, 0}, {-1.1, 0.3}, {0, 2}} {
				alpha, beta := ab[0], ab[1]
				lda, ldb, ldc := k+2, k+1, n+5
				a := randSlice(r, max(1, n*lda))
				b := randSlice(r, max(1, n*ldb))
				c0 := randSlice(r, max(1, n*ldc))
				want := append([]float64(nil), c0...)
				gonum.Implementation{}.Dsyr2k(blas.Upper, blas.NoTrans, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
				for _, workers := range []int{1, 2, 3, 7} {
					got := append([]float64(nil), c0...)
					syr2kUpper(n, k, alpha, a, lda, b, ldb, beta, got, ldc, workers)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("n=%d k=%d alpha=%v beta=%v workers=%d: c[%d] = %v, gonum %v",
							n, k, alpha, beta, workers, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestSytrdMatchesGonum checks sytrd against gonum's Dsytrd(Upper) bit for
// bit (a, d, e and tau), at sizes where Dsytrd takes its blocked path
// (Dlatrd and Dsyr2k on all but the first kk ≤ nx columns), with a
// workspace that limits the block size to 5 and with one too small for
// blocking.
func TestSytrdMatchesGonum(t *testing.T) {
	impl := lapackgonum.Implementation{}
	sizes := []int{2, 32, 33, 64, 100, 300, 700}
	if testing.Short() {
		sizes = sizes[:len(sizes)-1]
	}
	for _, n := range sizes {
		nb := impl.Ilaenv(1, "DSYTRD", "U", n, -1, -1, -1)
		nx := max(nb, impl.Ilaenv(3, "DSYTRD", "U", n, -1, -1, -1))
		blocked := 1 < nb && nb < n && nx < n
		if n >= 64 && !blocked {
			t.Fatalf("n=%d: Dsytrd would not block (nb=%d, nx=%d)", n, nb, nx)
		}
		for _, lwork := range []int{n * nb, 5 * n, 1} {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("n=%d/lwork=%d/workers=%d", n, lwork, workers), func(t *testing.T) {
					a0 := make([]float64, n*n)
					sym := randomSym(n, 0, uint64(n))
					for i := 0; i < n; i++ {
						for j := i; j < n; j++ {
							a0[i*n+j] = sym.At(i, j)
						}
					}
					wantA := append([]float64(nil), a0...)
					wantD, wantE, wantTau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
					impl.Dsytrd(blas.Upper, n, wantA, n, wantD, wantE, wantTau, make([]float64, lwork), lwork)

					gotA := append([]float64(nil), a0...)
					gotD, gotE, gotTau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
					sytrd(n, gotA, n, gotD, gotE, gotTau, make([]float64, lwork), lwork, workers)
					for _, c := range []struct {
						name      string
						got, want []float64
					}{{"a", gotA, wantA}, {"d", gotD, wantD}, {"e", gotE, wantE}, {"tau", gotTau, wantTau}} {
						if i := sameBits(c.got, c.want); i >= 0 {
							t.Fatalf("%s[%d] = %v, gonum %v", c.name, i, c.got[i], c.want[i])
						}
					}
				})
			}
		}
	}
}

// BenchmarkSytrd compares sytrd with gonum's Dsytrd.
func BenchmarkSytrd(b *testing.B) {
	impl := lapackgonum.Implementation{}
	for _, n := range []int{1000, 2000} {
		sym := randomSym(n, 0, 1)
		a0 := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				a0[i*n+j] = sym.At(i, j)
			}
		}
		a := make([]float64, n*n)
		d, e, tau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
		lwork := 32 * n
		work := make([]float64, lwork)
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			for range b.N {
				copy(a, a0)
				impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, lwork)
			}
		})
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", n, w), func(b *testing.B) {
				for range b.N {
					copy(a, a0)
					sytrd(n, a, n, d, e, tau, work, lwork, w)
				}
			})
		}
	}
}
