package kernel

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/repro-ml/repro/matrix"
)

// Columns computes the columns of the kernel matrix of a training set on
// demand, without ever holding the n×n matrix: each entry is one inner
// product (a dense dot product for dense rows, a pass over a sparse row's
// stored entries otherwise) turned into k by the precomputed squared norms
// (FromDot). The rows are addressed by position, and Swap exchanges two
// positions, as a solver that shrinks its active set to a prefix (libsvm)
// needs; a Columns is not safe for concurrent use.
type Columns struct {
	k         Kernel
	normalize bool
	dense     *matrix.Dense // dense rows, or nil
	csr       *matrix.CSR   // sparse rows, or nil
	other     matrix.Matrix // any other Matrix, read through RowDot
	wide      bool          // sparse rows far narrower than their columns: merge, do not scatter
	work      []float64     // a dense copy of one row (sparse rows)
	pos       []int         // pos[p] is the row at position p
	norm      []float64     // ‖x‖² of the row at each position
	inv       []float64     // 1/√k(x,x) of each position (normalize), 0 for a non-positive self-kernel
	diag      []float64     // k(x,x) of each position, normalized if normalize
}

// NewColumns returns the kernel columns of k (normalized to k(x,x) = 1 if
// normalize) over the rows of X.
func NewColumns(X matrix.Matrix, k Kernel, normalize bool) *Columns {
	n, d := X.Dims()
	c := &Columns{k: k, normalize: normalize, pos: make([]int, n), norm: RowNorms2(X), diag: make([]float64, n)}
	switch m := X.(type) {
	case *matrix.Dense:
		c.dense = m
	case *matrix.CSR:
		c.csr = m
		c.wide = !denseEnough(m)
		if !c.wide {
			c.work = make([]float64, d)
		}
	default:
		c.other = X
		c.work = make([]float64, d)
	}
	if normalize {
		c.inv = make([]float64, n)
	}
	for i := range c.pos {
		c.pos[i] = i
		s := k.Self(c.norm[i])
		c.diag[i] = s
		if normalize {
			c.diag[i] = 0
			if s > 0 {
				c.inv[i] = 1 / math.Sqrt(s)
				c.diag[i] = 1
			}
		}
	}
	return c
}

// Len returns the number of rows.
func (c *Columns) Len() int { return len(c.pos) }

// Row returns the row of X at position p.
func (c *Columns) Row(p int) int { return c.pos[p] }

// Diag returns k(x, x) of the row at position p (1 or 0 when normalized).
func (c *Columns) Diag(p int) float64 { return c.diag[p] }

// Swap exchanges positions p and q.
func (c *Columns) Swap(p, q int) {
	c.pos[p], c.pos[q] = c.pos[q], c.pos[p]
	c.norm[p], c.norm[q] = c.norm[q], c.norm[p]
	c.diag[p], c.diag[q] = c.diag[q], c.diag[p]
	if c.inv != nil {
		c.inv[p], c.inv[q] = c.inv[q], c.inv[p]
	}
}

// Fill sets dst[q] = k(x_p, x_q) for the positions q in [from, len(dst)).
func (c *Columns) Fill(p int, dst []float64, from int) {
	if from >= len(dst) {
		return
	}
	i := c.pos[p]
	switch {
	case c.dense != nil:
		a := c.dense.RawRow(i)
		for q := from; q < len(dst); q++ {
			dst[q] = floats.Dot(a, c.dense.RawRow(c.pos[q]))
		}
	case c.wide:
		m := c.csr
		ai, av := m.Ind[m.Ptr[i]:m.Ptr[i+1]], m.Val[m.Ptr[i]:m.Ptr[i+1]]
		for q := from; q < len(dst); q++ {
			j := c.pos[q]
			dst[q] = mergeDot(ai, av, m.Ind[m.Ptr[j]:m.Ptr[j+1]], m.Val[m.Ptr[j]:m.Ptr[j+1]])
		}
	default:
		X := c.other
		if X == nil {
			X = c.csr
		}
		X.Row(i, func(j int, v float64) { c.work[j] = v })
		for q := from; q < len(dst); q++ {
			dst[q] = X.RowDot(c.pos[q], c.work)
		}
		X.Row(i, func(j int, _ float64) { c.work[j] = 0 })
	}
	c.finish(p, dst, from)
}

// finish turns the inner products dst[from:] with position p into kernel
// values.
func (c *Columns) finish(p int, dst []float64, from int) {
	na := c.norm[p]
	switch c.k.Kind {
	case RBF:
		g := -1 / (2 * c.k.Sigma * c.k.Sigma)
		for q := from; q < len(dst); q++ {
			d2 := na + c.norm[q] - 2*dst[q]
			if d2 < 0 {
				d2 = 0
			}
			dst[q] = math.Exp(g * d2)
		}
	case Poly:
		for q := from; q < len(dst); q++ {
			dst[q] = c.k.FromDot(dst[q], na, c.norm[q])
		}
	}
	if c.normalize {
		ip := c.inv[p]
		for q := from; q < len(dst); q++ {
			dst[q] *= ip * c.inv[q]
		}
	}
}
