// Package kernel holds the base kernels shared by the svm and med method
// plugins: their textual specifications ("linear", "poly:2", "rbf:10"),
// evaluation from dot products, normalization to k(x,x) = 1, and Gram and
// cross-kernel matrices.
//
// Conventions:
//
//	linear   k(a,b) = a·b
//	poly:p   k(a,b) = (1 + a·b)^p          (Jebara's "polynomial of order p")
//	rbf:σ    k(a,b) = exp(−‖a−b‖² / (2σ²))
//
// Normalization replaces k(a,b) by k(a,b)/√(k(a,a)·k(b,b)) (Jebara 2004,
// §4); a row whose self-kernel is not positive (a zero vector under the
// linear kernel) normalizes to the zero function.
package kernel

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// Kind is the family of a base kernel.
type Kind int

// The kernel families.
const (
	Linear Kind = iota
	Poly
	RBF
)

// Kernel is one base kernel.
type Kernel struct {
	Kind   Kind
	Degree int     // Poly: the order p ≥ 1
	Sigma  float64 // RBF: the width σ > 0
}

// Parse reads a kernel specification: "linear", "poly:p" (integer p ≥ 1) or
// "rbf:σ" (σ > 0).
func Parse(s string) (Kernel, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	switch strings.ToLower(name) {
	case "linear":
		if hasArg {
			return Kernel{}, fmt.Errorf("kernel %q: linear takes no argument; want linear", s)
		}
		return Kernel{Kind: Linear}, nil
	case "poly":
		p, err := strconv.Atoi(arg)
		if err != nil || p < 1 {
			return Kernel{}, fmt.Errorf("kernel %q: order %q is not an integer ≥ 1; want poly:p with an integer order p ≥ 1", s, arg)
		}
		return Kernel{Kind: Poly, Degree: p}, nil
	case "rbf":
		sg, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(sg > 0) || math.IsInf(sg, 0) {
			return Kernel{}, fmt.Errorf("kernel %q: width %q is not a finite number > 0; want rbf:σ with a width σ > 0", s, arg)
		}
		return Kernel{Kind: RBF, Sigma: sg}, nil
	}
	return Kernel{}, fmt.Errorf("kernel %q: unknown kernel; want linear, poly:p or rbf:σ", s)
}

// ParseAll parses the kernel specifications of the list parameter name.
// It reports every bad specification, each as a *param.InvalidError for its
// element of the list, and an empty list as one for the whole value, joined
// (errors.Join): a plugin's Validate and New call it alike, so a spec that
// validates is a spec that fits.
func ParseAll(name string, specs []string) ([]Kernel, error) {
	if len(specs) == 0 {
		return nil, param.Invalid(name, "empty list; want at least one kernel: linear, poly:p or rbf:σ")
	}
	out := make([]Kernel, len(specs))
	var errs []error
	for i, s := range specs {
		k, err := Parse(s)
		if err != nil {
			errs = append(errs, param.InvalidElem(name, i, "%w", err))
		}
		out[i] = k
	}
	if errs != nil {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// String returns the specification Parse reads.
func (k Kernel) String() string {
	switch k.Kind {
	case Poly:
		return "poly:" + strconv.Itoa(k.Degree)
	case RBF:
		return "rbf:" + strconv.FormatFloat(k.Sigma, 'g', -1, 64)
	}
	return "linear"
}

// FromDot evaluates k(a,b) from a·b and the squared norms ‖a‖², ‖b‖².
func (k Kernel) FromDot(dot, aa, bb float64) float64 {
	switch k.Kind {
	case Poly:
		return math.Pow(1+dot, float64(k.Degree))
	case RBF:
		d2 := aa + bb - 2*dot
		if d2 < 0 {
			d2 = 0
		}
		return math.Exp(-d2 / (2 * k.Sigma * k.Sigma))
	}
	return dot
}

// Self returns k(a,a) for a row of squared norm aa.
func (k Kernel) Self(aa float64) float64 { return k.FromDot(aa, aa, aa) }

// Eval returns k(a,b) for two dense vectors (normalized if normalize).
func (k Kernel) Eval(a, b []float64, normalize bool) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("kernel: Eval of vectors of lengths %d and %d", len(a), len(b)))
	}
	var dot, aa, bb float64
	for i := range a {
		dot += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	v := k.FromDot(dot, aa, bb)
	if normalize {
		return scale(v, k.Self(aa), k.Self(bb))
	}
	return v
}

func scale(v, ka, kb float64) float64 {
	if !(ka > 0) || !(kb > 0) {
		return 0
	}
	return v / math.Sqrt(ka*kb)
}

// Dots holds the inner products of the rows of A with the rows of B and
// the squared norms of both, from which every base kernel is computed.
type Dots struct {
	R, C   int
	Dot    []float64 // R×C row-major: A_i · B_j
	NA, NB []float64 // ‖A_i‖², ‖B_j‖²
}

// NewDots computes the inner products between the rows of A and B, which
// must have the same number of columns. B == A computes a Gram matrix,
// using symmetry.
func NewDots(A, B matrix.Matrix) *Dots {
	ra, ca := A.Dims()
	rb, cb := B.Dims()
	if ca != cb {
		panic(fmt.Sprintf("kernel: NewDots of matrices with %d and %d columns", ca, cb))
	}
	d := &Dots{R: ra, C: rb, Dot: make([]float64, ra*rb), NA: RowNorms2(A), NB: RowNorms2(B)}
	same := A == B
	if same {
		d.NB = d.NA
	}
	ac, aSparse := A.(*matrix.CSR)
	bc, bSparse := B.(*matrix.CSR)
	if aSparse && bSparse && !denseEnough(ac) {
		// Columns far beyond A's stored entries (a huge LIBSVM index):
		// merge the sorted rows rather than scatter A's row into a dense
		// vector as wide as the columns. The sums are the same.
		for i := 0; i < ra; i++ {
			j0 := 0
			if same {
				j0 = i
			}
			ai, av := ac.Ind[ac.Ptr[i]:ac.Ptr[i+1]], ac.Val[ac.Ptr[i]:ac.Ptr[i+1]]
			row := d.Dot[i*rb : (i+1)*rb]
			for j := j0; j < rb; j++ {
				row[j] = mergeDot(ai, av, bc.Ind[bc.Ptr[j]:bc.Ptr[j+1]], bc.Val[bc.Ptr[j]:bc.Ptr[j+1]])
			}
		}
	} else if ad, bd := asDense(A), asDense(B); ad != nil && bd != nil {
		for i := 0; i < ra; i++ {
			j0 := 0
			if same {
				j0 = i
			}
			seqDots(d.Dot[i*rb+j0:(i+1)*rb], ad.RawRow(i), bd, j0)
		}
	} else {
		work := make([]float64, ca)
		for i := 0; i < ra; i++ {
			A.Row(i, func(j int, v float64) { work[j] = v })
			j0 := 0
			if same {
				j0 = i
			}
			row := d.Dot[i*rb : (i+1)*rb]
			for j := j0; j < rb; j++ {
				row[j] = B.RowDot(j, work)
			}
			A.Row(i, func(j int, v float64) { work[j] = 0 })
		}
	}
	if same {
		for i := 0; i < ra; i++ {
			for j := 0; j < i; j++ {
				d.Dot[i*rb+j] = d.Dot[j*rb+i]
			}
		}
	}
	return d
}

// asDense returns m as a *matrix.Dense, or nil.
func asDense(m matrix.Matrix) *matrix.Dense {
	d, _ := m.(*matrix.Dense)
	return d
}

// seqDots sets dst[k] to the inner product of a with row j0+k of B, each
// summed term by term in column order from 0, as B.RowDot(j0+k, a) sums
// it: the same bits. Four rows are summed at once, in four independent
// sums, so that the additions of one do not wait for another's (a single
// sum waits out each addition's latency: 4× slower on ISOLET's 617
// columns).
func seqDots(dst, a []float64, B *matrix.Dense, j0 int) {
	k := 0
	for ; k+4 <= len(dst); k += 4 {
		b0 := B.RawRow(j0 + k)[:len(a)]
		b1 := B.RawRow(j0 + k + 1)[:len(a)]
		b2 := B.RawRow(j0 + k + 2)[:len(a)]
		b3 := B.RawRow(j0 + k + 3)[:len(a)]
		var s0, s1, s2, s3 float64
		for t, v := range a {
			s0 += b0[t] * v
			s1 += b1[t] * v
			s2 += b2[t] * v
			s3 += b3[t] * v
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = s0, s1, s2, s3
	}
	for ; k < len(dst); k++ {
		dst[k] = B.RowDot(j0+k, a)
	}
}

// DotsWork returns the bytes NewDots allocates, beside its result and the
// row norms, to take inner products with the rows of a training set of
// shape s: a dense vector over the columns, unless the rows are sparse
// and the columns far more than their stored entries.
func DotsWork(s methods.Shape) int64 {
	if !s.Dense && s.Cols > 4*s.NNZ+4096 {
		return 0
	}
	return methods.Floats(s.Cols)
}

// denseEnough reports whether a dense vector over m's columns costs
// little beside m's stored entries: at most four times as many, plus 4096.
func denseEnough(m *matrix.CSR) bool {
	return m.C <= 4*len(m.Ind)+4096
}

// mergeDot returns the inner product of two sparse rows with sorted
// indices, summed in b's order as CSR.RowDot sums a dense copy of a.
func mergeDot(ai []int32, av []float64, bi []int32, bv []float64) float64 {
	s, p := 0.0, 0
	for k, j := range bi {
		for p < len(ai) && ai[p] < j {
			p++
		}
		if p < len(ai) && ai[p] == j {
			s += bv[k] * av[p]
		}
	}
	return s
}

// RowNorms2 returns the squared Euclidean norm of every row of X.
func RowNorms2(X matrix.Matrix) []float64 {
	r, _ := X.Dims()
	out := make([]float64, r)
	for i := range out {
		var s float64
		X.Row(i, func(_ int, v float64) { s += v * v })
		out[i] = s
	}
	return out
}

// Matrix returns the R×C matrix of k between the rows of A and B
// (row-major), normalized to k(x,x) = 1 if normalize.
func (d *Dots) Matrix(k Kernel, normalize bool) []float64 {
	out := make([]float64, d.R*d.C)
	var sa, sb []float64
	if normalize {
		sa, sb = selfs(k, d.NA), selfs(k, d.NB)
	}
	for i := 0; i < d.R; i++ {
		for j := 0; j < d.C; j++ {
			v := k.FromDot(d.Dot[i*d.C+j], d.NA[i], d.NB[j])
			if normalize {
				v = scale(v, sa[i], sb[j])
			}
			out[i*d.C+j] = v
		}
	}
	return out
}

func selfs(k Kernel, norms []float64) []float64 {
	out := make([]float64, len(norms))
	for i, n := range norms {
		out[i] = k.Self(n)
	}
	return out
}

// Gram returns the n×n matrix k(X_i, X_j), normalized if normalize.
func Gram(k Kernel, X matrix.Matrix, normalize bool) []float64 {
	return NewDots(X, X).Matrix(k, normalize)
}

// Cross returns the rows(A)×rows(B) matrix k(A_i, B_j), normalized if
// normalize.
func Cross(k Kernel, A, B matrix.Matrix, normalize bool) []float64 {
	return NewDots(A, B).Matrix(k, normalize)
}
