// Copyright ©2016 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in gonum's LICENSE file.
//
// sytrd and latrd are gonum's lapack/gonum Dsytrd and Dlatrd (v0.17.0)
// restricted to uplo = blas.Upper, without the argument checks, the
// workspace query and the final work[0] = optimal lwork, and with Dsytrd's call to Dsyr2k replaced by syr2kUpper
// and Dlatrd's call to Dsymv replaced by symvUpper, which compute the same
// values on several goroutines. Everything else, including the unblocked
// Dsytd2 for the leading columns and the Dgemv, Dlarfg, Dscal, Ddot and
// Daxpy calls, is gonum's own.

package eigen

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
)

// sytrd reduces the symmetric n×n matrix whose upper triangle is in a to
// symmetric tridiagonal form, exactly as gonum's Dsytrd(blas.Upper, …) does:
// on return d and e hold the diagonal and superdiagonal of T, and the part
// of a above the superdiagonal together with tau the elementary
// reflectors. work must have length at least lwork ≥ 1; blocking is limited
// by lwork as in gonum (n·nb is optimal, nb from Ilaenv). The rank-2
// updates and the symmetric matrix-vector products run on up to workers
// goroutines.
func sytrd(n int, a []float64, lda int, d, e, tau, work []float64, lwork, workers int) {
	if n == 0 {
		return
	}
	impl := gonum.Implementation{}
	nb := impl.Ilaenv(1, "DSYTRD", "U", n, -1, -1, -1)

	nx := n
	if 1 < nb && nb < n {
		// Determine when to cross over from blocked to unblocked code. The last
		// block is always handled by unblocked code.
		nx = max(nb, impl.Ilaenv(3, "DSYTRD", "U", n, -1, -1, -1))
		if nx < n {
			// Determine if workspace is large enough for blocked code.
			if lwork < n*nb {
				// Not enough workspace to use optimal nb: determine the minimum
				// value of nb and reduce nb or force use of unblocked code by
				// setting nx = n.
				nb = max(lwork/n, 1)
				nbmin := impl.Ilaenv(2, "DSYTRD", "U", n, -1, -1, -1)
				if nb < nbmin {
					nx = n
				}
			}
		} else {
			nx = n
		}
	} else {
		nb = 1
	}
	ldwork := nb

	// Reduce the upper triangle of A. Columns 0:kk are handled by the
	// unblocked method.
	kk := n - ((n-nx+nb-1)/nb)*nb
	symvWork := make([]float64, 2*n)
	for i := n - nb; i >= kk; i -= nb {
		// Reduce columns i:i+nb to tridiagonal form and form the matrix W
		// which is needed to update the unreduced part of the matrix.
		latrd(i+nb, nb, a, lda, e, tau, work, ldwork, symvWork, workers)

		// Update the unreduced submatrix A[0:i-1,0:i-1], using an update
		// of the form A = A - V*Wᵀ - W*Vᵀ.
		syr2kUpper(i, nb, -1, a[i:], lda, work, ldwork, 1, a, lda, workers)

		// Copy superdiagonal elements back into A, and diagonal elements into D.
		for j := i; j < i+nb; j++ {
			a[(j-1)*lda+j] = e[j-1]
			d[j] = a[j*lda+j]
		}
	}
	// Use unblocked code to reduce the last or only block.
	impl.Dsytd2(blas.Upper, kk, a, lda, d, e, tau)
}

// latrd reduces the last nb rows and columns of the symmetric n×n matrix
// whose upper triangle is in a to tridiagonal form and returns in the n×nb
// w the matrix W for the update A − V·Wᵀ − W·Vᵀ of the unreduced part,
// exactly as gonum's Dlatrd(blas.Upper, …) does. symvWork, of length at
// least 2n, is scratch space for symvUpper; the products A·v run on up to
// workers goroutines.
func latrd(n, nb int, a []float64, lda int, e, tau, w []float64, ldw int, symvWork []float64, workers int) {
	if n == 0 {
		return
	}
	impl := gonum.Implementation{}
	bi := blas64.Implementation()

	for i := n - 1; i >= n-nb; i-- {
		iw := i - n + nb
		if i < n-1 {
			// Update A(0:i, i).
			bi.Dgemv(blas.NoTrans, i+1, n-i-1, -1, a[i+1:], lda,
				w[i*ldw+iw+1:], 1, 1, a[i:], lda)
			bi.Dgemv(blas.NoTrans, i+1, n-i-1, -1, w[iw+1:], ldw,
				a[i*lda+i+1:], 1, 1, a[i:], lda)
		}
		if i > 0 {
			// Generate elementary reflector H_i to annihilate A(0:i-2,i).
			e[i-1], tau[i-1] = impl.Dlarfg(i, a[(i-1)*lda+i], a[i:], lda)
			a[(i-1)*lda+i] = 1

			// Compute W(0:i-1, i).
			symvUpper(i, 1, a, lda, a[i:], lda, 0, w[iw:], ldw, symvWork, workers)
			if i < n-1 {
				bi.Dgemv(blas.Trans, i, n-i-1, 1, w[iw+1:], ldw,
					a[i:], lda, 0, w[(i+1)*ldw+iw:], ldw)
				bi.Dgemv(blas.NoTrans, i, n-i-1, -1, a[i+1:], lda,
					w[(i+1)*ldw+iw:], ldw, 1, w[iw:], ldw)
				bi.Dgemv(blas.Trans, i, n-i-1, 1, a[i+1:], lda,
					a[i:], lda, 0, w[(i+1)*ldw+iw:], ldw)
				bi.Dgemv(blas.NoTrans, i, n-i-1, -1, w[iw+1:], ldw,
					w[(i+1)*ldw+iw:], ldw, 1, w[iw:], ldw)
			}
			bi.Dscal(i, tau[i-1], w[iw:], ldw)
			alpha := -0.5 * tau[i-1] * bi.Ddot(i, w[iw:], ldw, a[i:], lda)
			bi.Daxpy(i, alpha, a[i:], lda, w[iw:], ldw)
		}
	}
}
