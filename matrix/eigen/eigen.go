// Package eigen provides the eigendecomposition of a dense symmetric matrix,
// computed as gonum's mat.EigenSym computes it (Householder reduction to
// tridiagonal form, then the implicit QL/QR iteration) but with the
// eigenvector rotations applied row by row and on several goroutines.
//
// gonum's Dsteqr hands each sweep of plane rotations to Dlasr, which walks
// the n×n row-major eigenvector matrix column pair by column pair: every
// rotation touches one element in each of n rows, a cache miss per row once
// the matrix outgrows the cache (from n ≈ 1,000), and that loop is most of
// the time of a large decomposition (42 of 51 seconds at n = 2,000 on the
// development machine). Applying a whole sweep to one row before the next
// streams each row through the cache once per sweep, and the rows are
// independent, so they are shared among workers. Every element undergoes
// the same floating-point operations in the same order as in gonum, so the
// result is identical to mat.EigenSym's, bit for bit.
//
// The reduction to tridiagonal form (gonum's Dsytrd) is the other large
// cost: its symmetric matrix-vector products (Dsymv, inside Dlatrd) and
// rank-2k updates (Dsyr2k) are done here on several goroutines too, again
// with every output element computed by gonum's operations in gonum's
// order (see sytrd.go and blas.go).
package eigen

import (
	"errors"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// ErrNoConvergence is returned when the QL/QR iteration does not converge
// (gonum's EigenSym reports the same by returning false).
var ErrNoConvergence = errors.New("eigen: the QL/QR iteration did not converge")

// Sym returns the eigenvalues of the symmetric matrix a in ascending order
// and, as the columns of vectors, its orthonormal eigenvectors, the same
// values and vectors mat.EigenSym computes. It uses up to workers
// goroutines (GOMAXPROCS when workers ≤ 0). a is not modified.
func Sym(a mat.Symmetric, workers int) (values []float64, vectors *mat.Dense, err error) {
	n := a.SymmetricDim()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if n == 0 {
		return nil, &mat.Dense{}, nil
	}
	// The upper triangle, row-major, as mat.EigenSym passes it to Dsyev.
	z := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			z[i*n+j] = a.At(i, j)
		}
	}
	w := make([]float64, n)
	if !syev(n, z, w, workers) {
		return nil, nil, ErrNoConvergence
	}
	return w, mat.NewDense(n, n, z), nil
}

// Machine constants as gonum's lapack uses them.
const (
	dlamchE = 0x1p-53
	dlamchP = 0x1p-52
	dlamchS = 0x1p-1022
)

// syev is gonum's Dsyev for jobz = EVCompute and uplo = Upper, with Dsytrd
// replaced by sytrd and Dsteqr by steqr: on return w holds the eigenvalues
// and the n×n a the eigenvectors in its columns.
func syev(n int, a, w []float64, workers int) bool {
	impl := gonum.Implementation{}
	if n == 1 {
		w[0] = a[0]
		a[0] = 1
		return true
	}
	nb := impl.Ilaenv(1, "DSYTRD", "U", n, -1, -1, -1)
	lwork := max(1, (nb+2)*n)
	work := make([]float64, lwork)

	safmin := dlamchS
	eps := dlamchP
	smlnum := safmin / eps
	bignum := 1 / smlnum
	rmin := math.Sqrt(smlnum)
	rmax := math.Sqrt(bignum)

	anrm := impl.Dlansy(lapack.MaxAbs, blas.Upper, n, a, n, work)
	scaled := false
	var sigma float64
	if anrm > 0 && anrm < rmin {
		scaled = true
		sigma = rmin / anrm
	} else if anrm > rmax {
		scaled = true
		sigma = rmax / anrm
	}
	if scaled {
		impl.Dlascl(lapack.UpperTri, 0, 0, 1, sigma, n, n, a, n)
	}
	var inde int
	indtau := inde + n
	indwork := indtau + n
	llwork := lwork - indwork
	sytrd(n, a, n, w, work[inde:], work[indtau:], work[indwork:], llwork, workers)
	impl.Dorgtr(blas.Upper, n, a, n, work[indtau:], work[indwork:], llwork)
	if !steqr(n, w, work[inde:], a, n, work[indtau:], workers) {
		return false
	}
	if scaled {
		blas64.Implementation().Dscal(n, 1/sigma, w, 1)
	}
	return true
}
