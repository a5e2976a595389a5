// Copyright ©2014 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in gonum's LICENSE file.
//
// symvUpper and syr2kUpper reproduce the arithmetic of gonum's blas/gonum
// Dsymv (uplo = Upper) and Dsyr2k (uplo = Upper, NoTrans) (v0.17.0); their
// loops are rearranged to work on several goroutines and on several rows
// at a time, as described below, and Dsyr2k's degenerate cases (n = 0,
// k = 0, alpha = 0) are handed to gonum itself.

package eigen

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The two level-2/3 BLAS operations of the tridiagonal reduction, computed
// on several goroutines with, for every output element, the floating-point
// operations of gonum's blas/gonum in the same order, so that the results
// are identical bit for bit. (That also relies on the compiler treating the
// expressions alike, as it would not if it fused multiply-adds in one and
// not the other; they are written in the same shape as gonum's, and the
// tests check the identity for the build at hand.)

// minParallelBLAS is the number of matrix elements an operation reads below
// which it runs on the calling goroutine: starting workers costs
// microseconds.
const minParallelBLAS = 1 << 16

// symvUpper computes y = alpha·A·x + beta·y for the symmetric n×n A whose
// upper triangle is in a, as gonum's Dsymv(blas.Upper, …) does, on up to
// workers goroutines. incX and incY must be positive; work must have
// length at least 2n.
//
// gonum's Dsymv scales y by beta, then for each row i in increasing order
// adds (alpha·x[i])·A[i,j] to y[j] for j > i in increasing j while
// accumulating sum = x[i]·A[i,i] + Σ_{j>i} x[j]·A[i,j] in increasing j, and
// finally adds alpha·sum to y[i]. So y[j] receives the terms of rows
// 0, …, j−1 in order and then its own row's. Here the columns are split
// into blocks, one per worker; the worker of block [j0, j1) walks the rows
// 0, …, j1−1 in order, adding row i's terms to the y[j] of its block and,
// for the rows of its block, also forming the row sums and adding them:
// each y[j] gets exactly gonum's operations in gonum's order, and the
// workers write disjoint parts of y. x and y are copied into contiguous
// buffers first (copies are exact).
func symvUpper(n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int, work []float64, workers int) {
	if incX <= 0 || incY <= 0 {
		panic("eigen: symvUpper needs positive increments")
	}
	if n == 0 || (alpha == 0 && beta == 1) {
		return
	}
	// Form y = beta * y.
	if beta != 1 {
		for i, iy := 0, 0; i < n; i, iy = i+1, iy+incY {
			if beta == 0 {
				y[iy] = 0
			} else {
				y[iy] *= beta
			}
		}
	}
	if alpha == 0 {
		return
	}
	if n == 1 {
		y[0] += alpha * a[0] * x[0]
		return
	}

	xs, ys := work[:n], work[n:2*n]
	for i, ix, iy := 0, 0, 0; i < n; i, ix, iy = i+1, ix+incX, iy+incY {
		xs[i] = x[ix]
		ys[i] = y[iy]
	}
	// Column j costs j axpy terms and n−j dot terms, n in all, and rows
	// are read accordingly, so equal blocks balance the work.
	workers = max(1, min(workers, n/16))
	if n*n/2 < minParallelBLAS {
		workers = 1
	}
	if workers == 1 {
		symvBlock(n, alpha, a, lda, xs, ys, 0, n)
	} else {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			j0, j1 := w*n/workers, (w+1)*n/workers
			wg.Add(1)
			go func() {
				defer wg.Done()
				symvBlock(n, alpha, a, lda, xs, ys, j0, j1)
			}()
		}
		wg.Wait()
	}
	for i, iy := 0, 0; i < n; i, iy = i+1, iy+incY {
		y[iy] = ys[i]
	}
}

// symvBlock does the part of symvUpper that writes y[j0:j1], with x and y
// contiguous: the terms of rows 0, …, j1−1 for the columns j0, …, j1−1
// and the row sums of rows j0, …, j1−1, in gonum's order. Rows are taken
// four at a time: each y[j] still receives their terms in row order, and
// the four row sums, each accumulated in increasing column order, are
// independent chains of additions that the processor overlaps.
func symvBlock(n int, alpha float64, a []float64, lda int, x, y []float64, j0, j1 int) {
	m := j1 - j0
	yb := y[j0:j1]
	// The rows above the block: their terms for the block's columns.
	i := 0
	for ; i+4 <= j0; i += 4 {
		xv0, xv1, xv2, xv3 := x[i]*alpha, x[i+1]*alpha, x[i+2]*alpha, x[i+3]*alpha
		r0 := a[i*lda+j0 : i*lda+j1]
		r1 := a[(i+1)*lda+j0:][:m]
		r2 := a[(i+2)*lda+j0:][:m]
		r3 := a[(i+3)*lda+j0:][:m]
		for j, v := range r0 {
			t := yb[j]
			t += xv0 * v
			t += xv1 * r1[j]
			t += xv2 * r2[j]
			t += xv3 * r3[j]
			yb[j] = t
		}
	}
	for ; i < j0; i++ {
		xv := x[i] * alpha
		for j, v := range a[i*lda+j0 : i*lda+j1] {
			yb[j] += xv * v
		}
	}
	// The block's rows: their terms for the block's columns right of the
	// diagonal, and their sums.
	x = x[:n]
	for i = j0; i+4 <= j1; i += 4 {
		r0 := a[i*lda:][:n]
		r1 := a[(i+1)*lda:][:n]
		r2 := a[(i+2)*lda:][:n]
		r3 := a[(i+3)*lda:][:n]
		xv0, xv1, xv2, xv3 := x[i]*alpha, x[i+1]*alpha, x[i+2]*alpha, x[i+3]*alpha
		s0 := x[i] * r0[i]
		s1 := x[i+1] * r1[i+1]
		s2 := x[i+2] * r2[i+2]
		s3 := x[i+3] * r3[i+3]
		// The triangle the four rows share with their columns, row by row.
		for j := i + 1; j < i+4; j++ {
			v := r0[j]
			s0 += x[j] * v
			y[j] += xv0 * v
		}
		for j := i + 2; j < i+4; j++ {
			v := r1[j]
			s1 += x[j] * v
			y[j] += xv1 * v
		}
		v := r2[i+3]
		s2 += x[i+3] * v
		y[i+3] += xv2 * v
		// The rest of the block's columns.
		for j := i + 4; j < j1; j++ {
			v0, v1, v2, v3 := r0[j], r1[j], r2[j], r3[j]
			xj := x[j]
			s0 += xj * v0
			s1 += xj * v1
			s2 += xj * v2
			s3 += xj * v3
			t := y[j]
			t += xv0 * v0
			t += xv1 * v1
			t += xv2 * v2
			t += xv3 * v3
			y[j] = t
		}
		// The columns right of the block: sums only.
		for j := j1; j < n; j++ {
			xj := x[j]
			s0 += xj * r0[j]
			s1 += xj * r1[j]
			s2 += xj * r2[j]
			s3 += xj * r3[j]
		}
		y[i] += alpha * s0
		y[i+1] += alpha * s1
		y[i+2] += alpha * s2
		y[i+3] += alpha * s3
	}
	for ; i < j1; i++ {
		row := a[i*lda:][:n]
		xv := x[i] * alpha
		sum := x[i] * row[i]
		for j := i + 1; j < j1; j++ {
			v := row[j]
			sum += x[j] * v
			y[j] += xv * v
		}
		for j := j1; j < n; j++ {
			sum += x[j] * row[j]
		}
		y[i] += alpha * sum
	}
}

// syr2kUpper computes C = alpha·A·Bᵀ + alpha·B·Aᵀ + beta·C on the upper
// triangle of the n×n C, with A and B n×k, as gonum's
// Dsyr2k(blas.Upper, blas.NoTrans, …) does, on up to workers goroutines.
// Every element is computed independently of the others, so the rows of C
// are shared among the workers in contiguous ranges of equal numbers of
// elements. A is first copied into a contiguous buffer when lda > k.
func syr2kUpper(n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, workers int) {
	if n == 0 || alpha == 0 || k == 0 {
		// Nothing for several workers to do.
		blas64.Implementation().Dsyr2k(blas.Upper, blas.NoTrans, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if lda != k {
		// Pack A: its rows then share the cache and the pages with B's.
		// (Copies are exact.)
		ap := make([]float64, n*k)
		for i := 0; i < n; i++ {
			copy(ap[i*k:(i+1)*k], a[i*lda:i*lda+k])
		}
		a, lda = ap, k
	}
	total := n * (n + 1) / 2
	workers = max(1, min(workers, n))
	if total*k < minParallelBLAS {
		workers = 1
	}
	if workers == 1 {
		syr2kRows(n, k, alpha, a, lda, b, ldb, beta, c, ldc, 0, n)
		return
	}
	var wg sync.WaitGroup
	lo, done := 0, 0 // done: elements in rows 0, …, lo−1
	for w := 1; w <= workers; w++ {
		hi := lo
		target := total * w / workers
		for hi < n && done < target {
			done += n - hi
			hi++
		}
		if w == workers {
			hi = n
		}
		if hi > lo {
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				syr2kRows(n, k, alpha, a, lda, b, ldb, beta, c, ldc, lo, hi)
			}(lo, hi)
		}
		lo = hi
	}
	wg.Wait()
}

// syr2kRows does rows lo, …, hi−1 of syr2kUpper (alpha ≠ 0) with gonum's
// arithmetic: C[i,j] for j ≥ i is tmp1 = Σ_l A[j,l]·B[i,l] and
// tmp2 = Σ_l A[i,l]·B[j,l], accumulated in increasing l, then
// C[i,j] = alpha·(tmp1+tmp2) if beta = 0, else C[i,j] ← C[i,j]·beta and
// C[i,j] += alpha·(tmp1+tmp2). Four elements of a row are computed at a
// time: their eight sums are independent chains of additions that the
// processor overlaps, and they share the loads of row i.
func syr2kRows(n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int, lo, hi int) {
	for i := lo; i < hi; i++ {
		atmp := a[i*lda : i*lda+k]
		btmp := b[i*ldb : i*ldb+k]
		ctmp := c[i*ldc+i : i*ldc+n]
		jc := 0
		for ; jc+4 <= len(ctmp); jc += 4 {
			j := i + jc
			a0, b0 := a[j*lda:][:k], b[j*ldb:][:k]
			a1, b1 := a[(j+1)*lda:][:k], b[(j+1)*ldb:][:k]
			a2, b2 := a[(j+2)*lda:][:k], b[(j+2)*ldb:][:k]
			a3, b3 := a[(j+3)*lda:][:k], b[(j+3)*ldb:][:k]
			var t10, t20, t11, t21, t12, t22, t13, t23 float64
			for l, av := range atmp {
				bv := btmp[l]
				t10 += a0[l] * bv
				t20 += av * b0[l]
				t11 += a1[l] * bv
				t21 += av * b1[l]
				t12 += a2[l] * bv
				t22 += av * b2[l]
				t13 += a3[l] * bv
				t23 += av * b3[l]
			}
			syr2kStore(&ctmp[jc], alpha, beta, t10, t20)
			syr2kStore(&ctmp[jc+1], alpha, beta, t11, t21)
			syr2kStore(&ctmp[jc+2], alpha, beta, t12, t22)
			syr2kStore(&ctmp[jc+3], alpha, beta, t13, t23)
		}
		for ; jc < len(ctmp); jc++ {
			j := i + jc
			var tmp1, tmp2 float64
			binner := b[j*ldb : j*ldb+k]
			for l, v := range a[j*lda : j*lda+k] {
				tmp1 += v * btmp[l]
				tmp2 += atmp[l] * binner[l]
			}
			syr2kStore(&ctmp[jc], alpha, beta, tmp1, tmp2)
		}
	}
}

// syr2kStore finishes an element of syr2kUpper as gonum's Dsyr2k does.
func syr2kStore(c *float64, alpha, beta, tmp1, tmp2 float64) {
	if beta == 0 {
		*c = alpha * (tmp1 + tmp2)
		return
	}
	*c *= beta
	*c += alpha * (tmp1 + tmp2)
}
