package compress

import (
	"errors"
	"math"
)

// gram returns H_ab = (XXᵀ)_ab for words a ≤ b of one document of n
// words: the number of candidate pointers (k-grams of up to k words inside
// the document) that cover both a and b. It is zero unless b − a < k, so H
// is (k−1)-banded; away from the ends of the document it is
// (k−δ)(k−δ+1)/2 with δ = b − a.
func gram(a, b, n, k int) float64 {
	d := b - a
	if d >= k {
		return 0
	}
	if b >= k-1 && a <= n-k {
		return float64((k - d) * (k - d + 1) / 2)
	}
	c := 0
	for l := max(0, b-k+1); l <= a; l++ {
		if tmax := min(k, n-l); tmax >= b-l+1 {
			c += tmax - (b - l)
		}
	}
	return float64(c)
}

// errNotPD is returned when a banded Cholesky factorization meets a
// non-positive pivot: H is positive definite in exact arithmetic (its
// unigram pointers contribute the identity), so this means rounding broke
// it.
var errNotPD = errors.New("compress: banded Cholesky: matrix not positive definite")

// bandChol factors H_FF = L Lᵀ, the principal submatrix of one document's
// gram matrix on the sorted word indices f. L is stored by rows in l:
// l[p·k + j] = L(p, p−j) for 1 ≤ j < k (F's submatrix is (k−1)-banded
// too, as f is increasing), and l[p·k] = 1/L(p, p), so that the
// substitutions multiply instead of dividing. Row p depends on f[:p+1]
// only: rows before from, which must hold the factor of a set with the
// same first from indices, are kept. It costs O(k²(|F| − from)).
func bandChol(l []float64, f []int32, n, k, from int) error {
	if k == 5 {
		return bandChol5(l, f, n, from)
	}
	return bandCholRows(l, f, n, k, from, len(f))
}

// bandCholRows is bandChol for the rows from … to−1 only, any k.
func bandCholRows(l []float64, f []int32, n, k, from, to int) error {
	for p := from; p < to; p++ {
		row := l[p*k : p*k+k]
		for j := min(p, k-1); j >= 1; j-- {
			q := p - j
			s := 0.0
			if d := int(f[p] - f[q]); d < k {
				if int(f[p]) >= k-1 && int(f[q]) <= n-k {
					s = float64((k - d) * (k - d + 1) / 2) // gram's interior case, inline
				} else {
					s = gram(int(f[q]), int(f[p]), n, k)
				}
			}
			// Σ_r L(p,r) L(q,r) over the band of both rows, r < q.
			for r := max(0, p-k+1); r < q; r++ {
				s -= row[p-r] * l[q*k+q-r]
			}
			row[j] = s * l[q*k]
		}
		s := gram(int(f[p]), int(f[p]), n, k)
		for j := 1; j <= min(p, k-1); j++ {
			s -= row[j] * row[j]
		}
		if !(s > 0) {
			return errNotPD
		}
		row[0] = 1 / math.Sqrt(s)
	}
	return nil
}

// bandChol5 is bandChol for k = 5: from the fifth row on, the band is
// full and its loops are unrolled, with the same operations in the same
// order (the factor is bandCholRows' bit for bit), without their bounds
// checks and loop counters.
func bandChol5(l []float64, f []int32, n, from int) error {
	if from < 4 {
		if err := bandCholRows(l, f, n, 5, from, min(4, len(f))); err != nil {
			return err
		}
		from = 4
	}
	for p := from; p < len(f); p++ {
		c := l[(p-4)*5 : p*5+5 : p*5+5] // rows p−4 … p; row p−j at c[5(4−j):]
		fp := int(f[p])
		// H's entries of row p: in the interior (every pair in gram's
		// interior case) by its formula, inline.
		var h4, h3, h2, h1, h0 float64
		if fp >= 4 && fp <= n-5 {
			h4, h3 = gram5(fp-int(f[p-4])), gram5(fp-int(f[p-3]))
			h2, h1, h0 = gram5(fp-int(f[p-2])), gram5(fp-int(f[p-1])), 15
		} else {
			h4, h3 = gram(int(f[p-4]), fp, n, 5), gram(int(f[p-3]), fp, n, 5)
			h2, h1, h0 = gram(int(f[p-2]), fp, n, 5), gram(int(f[p-1]), fp, n, 5), gram(fp, fp, n, 5)
		}
		r4 := h4 * c[0]
		s := h3
		s -= r4 * c[6]
		r3 := s * c[5]
		s = h2
		s -= r4 * c[12]
		s -= r3 * c[11]
		r2 := s * c[10]
		s = h1
		s -= r4 * c[18]
		s -= r3 * c[17]
		s -= r2 * c[16]
		r1 := s * c[15]
		s = h0
		s -= r1 * r1
		s -= r2 * r2
		s -= r3 * r3
		s -= r4 * r4
		if !(s > 0) {
			return errNotPD
		}
		c[20], c[21], c[22], c[23], c[24] = 1/math.Sqrt(s), r1, r2, r3, r4
	}
	return nil
}

// gram5 is gram's interior case for k = 5 and b − a = d ≥ 1.
func gram5(d int) float64 {
	if d >= 5 {
		return 0
	}
	return float64((5 - d) * (6 - d) / 2)
}

// bandSolve solves L Lᵀ x = b in place (x holds b on entry), with L from
// bandChol for |F| = len(x).
func bandSolve(l, x []float64, k int) {
	if k == 5 && len(x) >= 8 {
		bandSolve5(l, x)
		return
	}
	for p := range x {
		s := x[p]
		for j := 1; j <= min(p, k-1); j++ {
			s -= l[p*k+j] * x[p-j]
		}
		x[p] = s * l[p*k]
	}
	for p := len(x) - 1; p >= 0; p-- {
		s := x[p]
		for j := 1; j < k && p+j < len(x); j++ {
			s -= l[(p+j)*k+j] * x[p+j]
		}
		x[p] = s * l[p*k]
	}
}

// bandSolve5 is bandSolve for k = 5 and at least 8 rows. Each step of a
// substitution waits for the one before, so it keeps the last four
// unknowns in locals and adds the three older terms before subtracting
// the newest: one multiplication, a subtraction and the multiplication
// by the inverse pivot on the critical path instead of four dependent
// subtractions and a division (3 times faster; the sums differ from
// bandSolve's in rounding only).
func bandSolve5(l, x []float64) {
	n := len(x)
	l = l[:5*n]
	for p := range 4 {
		s := x[p]
		for j := 1; j <= p; j++ {
			s -= l[p*5+j] * x[p-j]
		}
		x[p] = s * l[p*5]
	}
	x1, x2, x3, x4 := x[3], x[2], x[1], x[0]
	for p := 4; p < n; p++ {
		row := l[p*5 : p*5+5 : p*5+5]
		v := (x[p] - (row[4]*x4 + row[3]*x3 + row[2]*x2) - row[1]*x1) * row[0]
		x[p] = v
		x1, x2, x3, x4 = v, x1, x2, x3
	}
	for p := n - 1; p >= n-4; p-- {
		s := x[p]
		for j := 1; j < 5 && p+j < n; j++ {
			s -= l[(p+j)*5+j] * x[p+j]
		}
		x[p] = s * l[p*5]
	}
	x1, x2, x3, x4 = x[n-4], x[n-3], x[n-2], x[n-1]
	for p := n - 5; p >= 0; p-- {
		c := l[p*5 : p*5+25 : p*5+25] // rows p … p+4
		v := (x[p] - (c[24]*x4 + c[18]*x3 + c[12]*x2) - c[6]*x1) * c[0]
		x[p] = v
		x1, x2, x3, x4 = v, x1, x2, x3
	}
}

// nnqp solves one document's z-step dual
//
//	minimize ½ βᵀHβ − βᵀr  subject to β ≥ 0
//
// for the document's gram matrix H (n words, k-grams up to k), warm-started
// from beta (overwritten with the solution). l caches the Cholesky factor
// of H_FF for F = {a : beta_a > 0}: if valid, the first factorization is
// skipped; on return l holds the factor for the solution's F and the
// returned bool says so.
//
// It is the active-set Newton method of the paper in its primal–dual form:
// solve H_FF β_F = r_F with β = 0 off F, then move the variables of F that
// came out non-positive to the bound and free those at the bound whose
// gradient (Hβ − r)_a is negative, until F repeats — a Newton step on the
// semismooth KKT system, exact on a quadratic once F is right, and few
// steps from the previous ADMM iteration's F. Since H is not an M-matrix
// that loop may cycle: after maxPDAS steps a Lawson–Hanson active-set
// loop, which adds one variable at a time and terminates, finishes from
// the last F. A new F keeps the rows of the factor before its first
// change. It returns the number of factorizations (whole or partial).
func nnqp(beta, r, l []float64, valid bool, n, k int, ws *work) (factors int, ok bool, err error) {
	const maxPDAS = 24
	f := ws.free[:0]
	inF := ws.inF[:n]
	for a := range n {
		inF[a] = beta[a] > 0
		if inF[a] {
			f = append(f, int32(a))
		}
	}
	x := ws.x
	done := 0 // the leading rows of l that hold f's factor
	if valid {
		done = len(f)
	}
	for it := 0; ; it++ {
		if it == maxPDAS {
			ws.free = f
			return lawsonHanson(beta, r, l, n, k, ws, factors)
		}
		if done < len(f) {
			if err := bandChol(l, f, n, k, done); err != nil {
				return factors, false, err
			}
			factors++
		}
		x = x[:len(f)]
		for p, a := range f {
			x[p] = r[a]
		}
		bandSolve(l, x, k)
		// β = x on F, 0 off it (in one pass: F is sorted).
		q := 0
		for a := range beta {
			if q < len(f) && int(f[q]) == a {
				beta[a] = x[q]
				q++
			} else {
				beta[a] = 0
			}
		}
		// The new free set; inF follows it (a's entry is read before
		// it is changed, and grad reads β only).
		changed := false
		g := ws.free2[:0]
		for a := range n {
			if inF[a] {
				if beta[a] > 0 {
					g = append(g, int32(a))
				} else {
					beta[a] = 0
					inF[a] = false
					changed = true
				}
			} else if grad(beta, r, a, n, k) < -gradTol {
				g = append(g, int32(a))
				inF[a] = true
				changed = true
			}
		}
		done = 0
		for done < min(len(f), len(g)) && f[done] == g[done] {
			done++
		}
		ws.free2 = ws.free[:0]
		ws.free = g
		f = g
		if !changed {
			ws.x = x
			return factors, true, nil
		}
	}
}

// gradTol is the gradient below which a variable at its bound is freed.
const gradTol = 1e-12

// grad returns (Hβ − r)_a.
func grad(beta, r []float64, a, n, k int) float64 {
	s := -r[a]
	if a >= k-1 && a <= n-k {
		// Every pair (a, b) is in gram's interior case: the same sum
		// with H_ab inline.
		for b := a - k + 1; b < a+k; b++ {
			if beta[b] != 0 {
				d := max(b-a, a-b)
				s += float64((k-d)*(k-d+1)/2) * beta[b]
			}
		}
		return s
	}
	for b := max(0, a-k+1); b < min(n, a+k); b++ {
		if beta[b] != 0 {
			if b < a {
				s += gram(b, a, n, k) * beta[b]
			} else {
				s += gram(a, b, n, k) * beta[b]
			}
		}
	}
	return s
}

// lawsonHanson finishes nnqp from the free set ws.free by the
// Lawson–Hanson active-set method: shrink F until its unconstrained
// solution is positive, then repeatedly free the variable with the most
// negative gradient and step back to feasibility when a free variable
// would turn negative. The objective decreases strictly at every addition,
// so no set repeats and it terminates.
func lawsonHanson(beta, r, l []float64, n, k int, ws *work, factors int) (int, bool, error) {
	f := ws.free
	x := ws.x
	solve := func() error {
		if err := bandChol(l, f, n, k, 0); err != nil {
			return err
		}
		factors++
		x = x[:len(f)]
		for p, a := range f {
			x[p] = r[a]
		}
		bandSolve(l, x, k)
		return nil
	}
	// A feasible start: β = the solution on F once it is positive.
	for {
		if err := solve(); err != nil {
			return factors, false, err
		}
		g := f[:0]
		for p, a := range f {
			if x[p] > 0 {
				g = append(g, a)
			}
		}
		if len(g) == len(f) {
			break
		}
		f = g
	}
	for a := range beta {
		beta[a] = 0
	}
	for p, a := range f {
		beta[a] = x[p]
	}
	inF := ws.inF[:n]
	for a := range inF {
		inF[a] = false
	}
	for _, a := range f {
		inF[a] = true
	}
	for iter := 0; iter < 10*n+100; iter++ {
		best, bestG := -1, -gradTol
		for a := range n {
			if !inF[a] {
				if g := grad(beta, r, a, n, k); g < bestG {
					best, bestG = a, g
				}
			}
		}
		if best < 0 {
			ws.free, ws.x = f, x
			return factors, true, nil
		}
		f = insertSorted(f, int32(best))
		inF[best] = true
		for {
			if err := solve(); err != nil {
				return factors, false, err
			}
			// Step from β towards x until the first free variable hits 0.
			t := 1.0
			for p, a := range f {
				if x[p] <= 0 {
					if s := beta[a] / (beta[a] - x[p]); s < t {
						t = s
					}
				}
			}
			if t >= 1 {
				for p, a := range f {
					beta[a] = x[p]
				}
				break
			}
			if t <= 0 {
				// Rounding: the freed variable cannot move; stop here.
				inF[best] = false
				f = removeValue(f, int32(best))
				if err := solve(); err != nil {
					return factors, false, err
				}
				ws.free, ws.x = f, x
				return factors, true, nil
			}
			g := f[:0]
			for p, a := range f {
				beta[a] += t * (x[p] - beta[a])
				if beta[a] > 0 {
					g = append(g, a)
				} else {
					beta[a] = 0
					inF[a] = false
				}
			}
			f = g
		}
	}
	ws.free, ws.x = f, x
	return factors, false, errors.New("compress: z-step: active-set loop did not terminate")
}

func insertSorted(f []int32, a int32) []int32 {
	i := 0
	for i < len(f) && f[i] < a {
		i++
	}
	f = append(f, 0)
	copy(f[i+1:], f[i:])
	f[i] = a
	return f
}

func removeValue(f []int32, a int32) []int32 {
	g := f[:0]
	for _, b := range f {
		if b != a {
			g = append(g, b)
		}
	}
	return g
}

// work is one goroutine's scratch space for the z-step, sized for the
// longest document.
type work struct {
	free, free2 []int32
	inF         []bool
	x, r        []float64
	u           []float64 // per slot of the document: w + y/ρ
	at          []int32   // per slot: the index of its w in the solver's vals
}

func newWork(n, k int) *work {
	return &work{
		free: make([]int32, 0, n), free2: make([]int32, 0, n),
		inF: make([]bool, n), x: make([]float64, n), r: make([]float64, n),
		u: make([]float64, k*n), at: make([]int32, k*n),
	}
}
