package med

import (
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/kernel"
)

// kernelCols gives the columns of the base kernel matrices on the training
// rows, computed on demand from one kernel.Cache of the rows' inner
// products of cache_mb (kernel.Family), when the Gram matrices do not fit
// in the cache. With sum it stands for one kernel, the sum of the base
// kernels (ρ = 1), whose columns are summed into a buffer.
type kernelCols struct {
	f   *kernel.Family
	sum bool
	buf []float64
}

// newKernelCols returns the columns of ks (normalized if normalize) over
// the rows of X, their inner products cached within bytes, summed if sum.
func newKernelCols(X matrix.Matrix, ks []kernel.Kernel, normalize, sum bool, bytes int64) *kernelCols {
	kc := &kernelCols{f: kernel.NewFamily(X, ks, normalize, bytes), sum: sum}
	if sum {
		kc.buf = make([]float64, kc.f.Len())
	}
	return kc
}

// col returns column t of kernel d; it stays valid until the next call
// for the same d.
func (kc *kernelCols) col(d, t int) []float64 {
	if !kc.sum {
		return kc.f.Column(d, t)
	}
	clear(kc.buf)
	for k := range kc.f.Kernels() {
		for s, v := range kc.f.Column(k, t) {
			kc.buf[s] += v
		}
	}
	return kc.buf
}

// diag returns entry (t, t) of kernel d.
func (kc *kernelCols) diag(d, t int) float64 {
	if !kc.sum {
		return kc.f.Diag(d, t)
	}
	var s float64
	for k := range kc.f.Kernels() {
		s += kc.f.Diag(k, t)
	}
	return s
}

// col returns column t of kernel d (length T), from the Gram matrices or
// the cache; it stays valid until the next call for the same d.
func (p *problem) col(d, t int) []float64 {
	if p.kc != nil {
		return p.kc.col(d, t)
	}
	return p.K[d][t*p.T : (t+1)*p.T]
}

// kdiag returns entry (t, t) of kernel d.
func (p *problem) kdiag(d, t int) float64 {
	if p.kc != nil {
		return p.kc.diag(d, t)
	}
	return p.K[d][t*p.T+t]
}

// cacheBytes returns the kernel cache's budget in bytes.
func (e *MED) cacheBytes() int64 {
	mb := e.CacheMB
	if mb <= 0 {
		mb = kernel.DefaultCacheMB
	}
	return int64(mb * (1 << 20))
}

// gramsFit reports whether the k base Gram matrices of n rows, with the
// inner products they are computed from and, if sum, their sum, fit in
// a cache of the given bytes (then they are computed whole and shared
// through the memo by every grid point on the training set, as svm does).
func gramsFit(n, k int, sum bool, bytes int64) bool {
	mats := k + 1
	if sum && k > 1 {
		mats++
	}
	return methods.Floats(mats, n, n) <= bytes
}
