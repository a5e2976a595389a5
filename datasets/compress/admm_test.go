package compress

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// randomDocs returns n documents of random lengths in [0, maxLen] over a
// vocabulary of v words: small alphabets repeat k-grams, as text does.
func randomDocs(rng *rand.Rand, n, maxLen, v int) []string {
	docs := make([]string, n)
	for i := range docs {
		words := make([]string, rng.IntN(maxLen+1))
		for j := range words {
			words[j] = string(rune('a' + rng.IntN(v)))
		}
		docs[i] = strings.Join(words, " ")
	}
	return docs
}

// denseX returns the n×m coverage matrix X of document i (slots of the
// document as columns, dead ones zero).
func denseX(p *problem, i int) *mat.Dense {
	k := p.k
	lo, hi := p.start[i], p.start[i+1]
	x := mat.NewDense(hi-lo, k*(hi-lo), nil)
	for a := 0; a < hi-lo; a++ {
		for t := 1; t <= k; t++ {
			if p.str[k*(lo+a)+t-1] < 0 {
				continue
			}
			for b := a; b < a+t; b++ {
				x.Set(b, k*a+t-1, 1)
			}
		}
	}
	return x
}

// TestGram checks gram against XXᵀ computed from the pointers.
func TestGram(t *testing.T) {
	for _, k := range []int{1, 2, 3, 5, 7} {
		for _, n := range []int{1, 2, 3, 4, 6, 11, 20} {
			docs := []string{strings.Repeat("a ", n)}
			p, err := newProblem(context.Background(), docs, k, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			x := denseX(p, 0)
			var h mat.Dense
			h.Mul(x, x.T())
			for a := range n {
				for b := a; b < n; b++ {
					if got, want := gram(a, b, n, k), h.At(a, b); got != want {
						t.Errorf("k=%d n=%d: gram(%d,%d) = %v, XXᵀ has %v", k, n, a, b, got, want)
					}
				}
			}
		}
	}
}

// TestBandChol factors principal submatrices of H and compares the
// solution of H_FF x = b with gonum's dense Cholesky.
func TestBandChol(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 3, 5} {
		for _, n := range []int{1, 5, 6, 9, 17, 40, 100} {
			var f []int32
			for a := range n {
				if rng.Float64() < 0.7 {
					f = append(f, int32(a))
				}
			}
			if len(f) == 0 {
				continue
			}
			h := mat.NewSymDense(len(f), nil)
			for p, a := range f {
				for q, b := range f[:p+1] {
					h.SetSym(p, q, gram(int(b), int(a), n, k))
				}
			}
			var ch mat.Cholesky
			if !ch.Factorize(h) {
				t.Fatalf("k=%d n=%d: H_FF not positive definite", k, n)
			}
			b := make([]float64, len(f))
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			var want mat.VecDense
			if err := ch.SolveVecTo(&want, mat.NewVecDense(len(b), append([]float64(nil), b...))); err != nil {
				t.Fatal(err)
			}
			l := make([]float64, k*n)
			if err := bandChol(l, f, n, k, 0); err != nil {
				t.Fatal(err)
			}
			// k = 5's unrolled factorization is the loops' bit for bit.
			lr := make([]float64, k*n)
			if err := bandCholRows(lr, f, n, k, 0, len(f)); err != nil {
				t.Fatal(err)
			}
			for i := range k * len(f) {
				if i%k < min(i/k+1, k) && lr[i] != l[i] {
					t.Fatalf("k=%d n=%d: entry %d is %v; by the loops, %v", k, n, i, l[i], lr[i])
				}
			}
			// Refactoring from a row keeps the rows before it: the factor
			// of a set with the same first indices, from them on, is that
			// set's factor, bit for bit.
			from := rng.IntN(len(f) + 1)
			g := append([]int32(nil), f[:from]...)
			for a := int32(0); a < int32(n); a++ {
				if (len(g) == 0 || a > g[len(g)-1]) && rng.Float64() < 0.5 {
					g = append(g, a)
				}
			}
			lg, lf := make([]float64, k*n), append([]float64(nil), l...)
			if err := bandChol(lg, g, n, k, 0); err != nil {
				t.Fatal(err)
			}
			if err := bandChol(lf, g, n, k, from); err != nil {
				t.Fatal(err)
			}
			for i := range k * len(g) {
				if lf[i] != lg[i] {
					t.Fatalf("k=%d n=%d: refactored from row %d, entry %d is %v; whole, %v", k, n, from, i, lf[i], lg[i])
				}
			}
			bandSolve(l, b, k)
			for i := range b {
				if math.Abs(b[i]-want.AtVec(i)) > 1e-10 {
					t.Errorf("k=%d n=%d: x[%d] = %v, dense Cholesky %v", k, n, i, b[i], want.AtVec(i))
				}
			}
		}
	}
}

// TestNNQP checks the z-step dual's KKT conditions on random right-hand
// sides, cold and warm started and with a stale factor.
func TestNNQP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 3, 5} {
		for _, n := range []int{1, 2, 7, 30, 200} {
			ws := newWork(n, k)
			beta := make([]float64, n)
			l := make([]float64, n*k)
			valid := false
			for trial := range 5 {
				r := make([]float64, n)
				for a := range r {
					r[a] = rng.NormFloat64() * 3
				}
				_, ok, err := nnqp(beta, r, l, valid, n, k, ws)
				if err != nil {
					t.Fatalf("k=%d n=%d trial %d: %v", k, n, trial, err)
				}
				valid = ok
				for a := range n {
					g := grad(beta, r, a, n, k)
					if beta[a] < 0 || g < -1e-9 || beta[a] > 0 && math.Abs(g) > 1e-9 {
						t.Errorf("k=%d n=%d trial %d: β_%d = %v, gradient %v: not a KKT point", k, n, trial, a, beta[a], g)
					}
				}
			}
		}
	}
}

// lpOptimum solves (2) for the solver's weights exactly with gonum's
// simplex. Variables: w (live slots), then t_s ≥ D_j w_j for each string
// with several pointers (a string with one pointer costs c(s) D_j w_j
// directly), the coverage surpluses, and the slacks of the t_s rows. The
// initial basis is the unigram solution (w = 1 on unigrams), so the
// simplex needs no phase 1.
func lpOptimum(t *testing.T, s *solver) float64 {
	t.Helper()
	p := s.p
	weight := slotWeights(s)
	var live, multi []int // live slots; the slots of multi-pointer strings
	for j, str := range p.str {
		if str >= 0 {
			live = append(live, j)
			if int(str) < p.nMulti {
				multi = append(multi, j)
			}
		}
	}
	nw, ns, nwords, nm := len(live), p.nMulti, len(p.words), len(multi)
	tCol, surCol, slackCol := nw, nw+ns, nw+ns+nwords
	cols := slackCol + nm
	rows := nwords + nm
	a := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	col := map[int]int{}
	var basic []int
	for v, j := range live {
		col[j] = v
		d := weight[j]
		c[v] = s.lambda * d
		str := p.str[j]
		if int(str) >= p.nMulti {
			c[v] += float64(p.strLen[str]) * d
		}
		w0, tl := j/p.k, j%p.k+1
		for wd := w0; wd < w0+tl; wd++ {
			a.Set(wd, v, 1)
		}
		if tl == 1 {
			basic = append(basic, v)
		}
	}
	// t_s is basic in the row of the unigram slot with the largest D.
	tRow := map[int]int{}
	for r, j := range multi {
		row := nwords + r
		str := int(p.str[j])
		a.Set(row, col[j], weight[j])
		a.Set(row, tCol+str, -1)
		a.Set(row, slackCol+r, 1)
		if j%p.k == 0 {
			if q, ok := tRow[str]; !ok || weight[j] > weight[multi[q]] {
				tRow[str] = r
			}
		}
	}
	for r := range multi {
		str := int(p.str[multi[r]])
		if q, ok := tRow[str]; ok && q == r {
			basic = append(basic, tCol+str)
		} else {
			basic = append(basic, slackCol+r)
		}
	}
	for str := range ns {
		c[tCol+str] = float64(p.strLen[str])
	}
	for wd := range nwords {
		a.Set(wd, surCol+wd, -1)
		b[wd] = 1
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-12, basic)
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	return opt
}

// TestADMMMatchesLP solves (2) by ADMM and by the simplex method on small
// random corpora, with D = I and with reweighted D, for several λ and k:
// the objectives agree to 1e-6 and the ADMM solution is feasible.
func TestADMMMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := 40
	if testing.Short() {
		cases = 4
	}
	for c := range cases {
		k := 1 + c%4
		lambda := []float64{0, 0.03, 0.5, 2, 6}[c%5]
		docs := randomDocs(rng, 1+rng.IntN(4), 9, 2+rng.IntN(3))
		t.Run(fmt.Sprintf("k=%d,lambda=%v,%d", k, lambda, c), func(t *testing.T) {
			p, err := newProblem(context.Background(), docs, k, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.words) == 0 {
				t.Skip("no words")
			}
			s := newSolver(p, lambda, 2)
			for round := range 2 {
				if round > 0 {
					s.reweight(0.1)
				}
				it, err := s.admm(context.Background(), 1e-11, 200000)
				if err != nil {
					t.Fatal(err)
				}
				want := lpOptimum(t, s)
				got := s.objective(true)
				if math.Abs(got-want) > 1e-6*max(1, math.Abs(want)) {
					t.Errorf("round %d: ADMM objective %.9g after %d iterations, LP optimum %.9g (docs %q)", round+1, got, it, want, docs)
				}
				if v := coverageViolation(p, s.wvec()); v > 1e-6 {
					t.Errorf("round %d: Xw ≥ 1 violated by %g", round+1, v)
				}
			}
		})
	}
}

// slotWeights returns D_jj of every slot (0 for dead slots).
func slotWeights(s *solver) []float64 {
	p := s.p
	d := make([]float64, len(p.str))
	at := make([]int32, p.k*s.maxDoc)
	for i := range p.docs() {
		s.locate(i, at)
		lo := p.k * p.start[i]
		for j, str := range p.str[lo : p.k*p.start[i+1]] {
			if str >= 0 {
				d[lo+j] = s.weight(at[j])
			}
		}
	}
	return d
}

// coverageViolation returns max_a (1 − (Xw)_a)₊.
func coverageViolation(p *problem, w []float64) float64 {
	cov := make([]float64, len(p.words))
	for j, str := range p.str {
		if str < 0 {
			continue
		}
		a, t := j/p.k, j%p.k+1
		for b := a; b < a+t; b++ {
			cov[b] += w[j]
		}
	}
	v := 0.0
	for _, c := range cov {
		v = max(v, 1-c)
	}
	return v
}
