package kernel

import (
	"math"

	"github.com/repro-ml/repro/matrix"
)

// Family gives the columns of several base kernels on the same training
// rows from one Cache of their inner products, as Dots.Matrix gives their
// Gram matrices from one set of inner products: a cached column of inner
// products serves every kernel (k_d(x_s, x_t) = FromDot(x_s·x_t, ‖x_s‖²,
// ‖x_t‖²), normalized if asked), so the budget holds columns of one n×n
// matrix, not of one per kernel, and each inner product is computed once
// for all kernels. A Family is not safe for concurrent use.
type Family struct {
	dots      *Cache
	ks        []Kernel
	normalize bool
	norm      []float64   // ‖x_t‖²
	self      [][]float64 // k_d(x_t, x_t), unnormalized
	inv       [][]float64 // 1/√k_d(x_t, x_t), 0 for a non-positive one
	buf       [][]float64 // the last column returned per kernel
}

// NewFamily returns the columns of ks (each normalized to k(x,x) = 1 if
// normalize) over the rows of X, their inner products cached within
// bytes (at least two columns).
func NewFamily(X matrix.Matrix, ks []Kernel, normalize bool, bytes int64) *Family {
	cols := NewColumns(X, Kernel{Kind: Linear}, false)
	n := cols.Len()
	f := &Family{dots: NewCache(cols, bytes), ks: ks, normalize: normalize, norm: make([]float64, n)}
	for t := range f.norm {
		f.norm[t] = cols.Diag(t)
	}
	for _, k := range ks {
		self := selfs(k, f.norm)
		inv := make([]float64, n)
		for t, v := range self {
			if v > 0 {
				inv[t] = 1 / math.Sqrt(v)
			}
		}
		f.self, f.inv = append(f.self, self), append(f.inv, inv)
		f.buf = append(f.buf, make([]float64, n))
	}
	return f
}

// Len returns the number of rows.
func (f *Family) Len() int { return len(f.norm) }

// Kernels returns the number of kernels.
func (f *Family) Kernels() int { return len(f.ks) }

// Cache returns the cache of inner products.
func (f *Family) Cache() *Cache { return f.dots }

// Column returns k_d(x_s, x_t) for every row s: column t of kernel d's
// matrix. It stays valid until the next call of Column for d. (The values
// equal Dots.Matrix's to rounding: integer powers by multiplication and
// normalization by precomputed 1/√k(x,x).)
func (f *Family) Column(d, t int) []float64 {
	dot := f.dots.Column(t, len(f.norm))
	k, out, nt := f.ks[d], f.buf[d], f.norm[t]
	switch k.Kind {
	case Poly:
		for s, v := range dot {
			b, r := 1+v, 1.0
			for range k.Degree {
				r *= b
			}
			out[s] = r
		}
	case RBF:
		g := -1 / (2 * k.Sigma * k.Sigma)
		for s, v := range dot {
			d2 := nt + f.norm[s] - 2*v
			if d2 < 0 {
				d2 = 0
			}
			out[s] = math.Exp(g * d2)
		}
	default:
		copy(out, dot)
	}
	if f.normalize {
		inv := f.inv[d]
		it := inv[t]
		for s := range out {
			out[s] *= it * inv[s]
		}
	}
	return out
}

// Diag returns k_d(x_t, x_t) (1, or 0 for a non-positive self-kernel,
// when normalized).
func (f *Family) Diag(d, t int) float64 {
	v := f.self[d][t]
	if f.normalize {
		return scale(v, v, v)
	}
	return v
}
