package eigen

import "sync"

// rotator applies sweeps of plane rotations to the columns of an n×n
// row-major matrix, a whole sweep to one row at a time, the rows shared
// among workers.
type rotator struct {
	n, ld   int
	z       []float64
	workers int
	wg      sync.WaitGroup
}

// minParallel is the number of element updates of a sweep below which it
// runs on the calling goroutine: starting workers costs microseconds.
const minParallel = 1 << 15

// newRotator returns a rotator for the n×n matrix z with row stride ld,
// using up to workers goroutines.
func newRotator(n int, z []float64, ld, workers int) *rotator {
	return &rotator{n: n, ld: ld, z: z, workers: max(1, min(workers, n))}
}

// apply performs, on every row, the rotations k = 0, …, mm−2 of the planes
// (col0+k, col0+k+1) in increasing k if forward, decreasing otherwise:
// x[k], x[k+1] ← s·x[k+1] + c·x[k], c·x[k+1] − s·x[k] with c = c[k],
// s = s[k] — Dlasr(blas.Right, lapack.Variable, …) rearranged.
func (r *rotator) apply(forward bool, col0, mm int, c, s []float64) {
	if mm < 2 {
		return
	}
	c, s = c[:mm-1], s[:mm-1]
	if r.workers == 1 || r.n*mm < minParallel {
		r.rows(forward, col0, mm, c, s, 0, r.n)
		return
	}
	chunk := (r.n + r.workers - 1) / r.workers
	for lo := 0; lo < r.n; lo += chunk {
		hi := min(lo+chunk, r.n)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.rows(forward, col0, mm, c, s, lo, hi)
		}()
	}
	r.wg.Wait()
}

// rows applies the sweep to rows lo to hi−1, four rows at a time: within
// a row each rotation depends on the last, so interleaving independent rows
// keeps the multipliers busy. The value a rotation hands to the next stays
// in a register.
func (r *rotator) rows(forward bool, col0, mm int, c, s []float64, lo, hi int) {
	i := lo
	for ; i+4 <= hi; i += 4 {
		x0 := r.z[i*r.ld+col0 : i*r.ld+col0+mm]
		x1 := r.z[(i+1)*r.ld+col0 : (i+1)*r.ld+col0+mm]
		x2 := r.z[(i+2)*r.ld+col0 : (i+2)*r.ld+col0+mm]
		x3 := r.z[(i+3)*r.ld+col0 : (i+3)*r.ld+col0+mm]
		if forward {
			forward4(c, s, x0, x1, x2, x3)
		} else {
			backward4(c, s, x0, x1, x2, x3)
		}
	}
	for ; i < hi; i++ {
		x := r.z[i*r.ld+col0 : i*r.ld+col0+mm]
		if forward {
			forward1(c, s, x)
		} else {
			backward1(c, s, x)
		}
	}
}

// forward1 applies rotations k = 0, 1, … to x (len(x) = len(c)+1).
// Rotation k leaves x[k] final and hands the new x[k+1] on in a.
func forward1(c, s, x []float64) {
	x = x[:len(c)+1]
	s = s[:len(c)]
	a := x[0]
	for k, ck := range c {
		sk := s[k]
		t := x[k+1]
		if ck != 1 || sk != 0 {
			x[k] = sk*t + ck*a
			a = ck*t - sk*a
		} else {
			x[k] = a
			a = t
		}
	}
	x[len(c)] = a
}

// backward1 applies rotations k = len(c)−1, …, 0 to x. Rotation k leaves
// x[k+1] final and hands the new x[k] on in a.
func backward1(c, s, x []float64) {
	x = x[:len(c)+1]
	s = s[:len(c)]
	a := x[len(c)]
	for k := len(c) - 1; k >= 0; k-- {
		ck, sk := c[k], s[k]
		t2 := x[k]
		if ck != 1 || sk != 0 {
			x[k+1] = ck*a - sk*t2
			a = sk*a + ck*t2
		} else {
			x[k+1] = a
			a = t2
		}
	}
	x[0] = a
}

// forward4 is forward1 on four rows at once.
func forward4(c, s, x0, x1, x2, x3 []float64) {
	n := len(c)
	s = s[:n]
	x0, x1, x2, x3 = x0[:n+1], x1[:n+1], x2[:n+1], x3[:n+1]
	a0, a1, a2, a3 := x0[0], x1[0], x2[0], x3[0]
	for k, ck := range c {
		sk := s[k]
		t0, t1, t2, t3 := x0[k+1], x1[k+1], x2[k+1], x3[k+1]
		if ck != 1 || sk != 0 {
			x0[k], a0 = sk*t0+ck*a0, ck*t0-sk*a0
			x1[k], a1 = sk*t1+ck*a1, ck*t1-sk*a1
			x2[k], a2 = sk*t2+ck*a2, ck*t2-sk*a2
			x3[k], a3 = sk*t3+ck*a3, ck*t3-sk*a3
		} else {
			x0[k], a0 = a0, t0
			x1[k], a1 = a1, t1
			x2[k], a2 = a2, t2
			x3[k], a3 = a3, t3
		}
	}
	x0[n], x1[n], x2[n], x3[n] = a0, a1, a2, a3
}

// backward4 is backward1 on four rows at once.
func backward4(c, s, x0, x1, x2, x3 []float64) {
	n := len(c)
	s = s[:n]
	x0, x1, x2, x3 = x0[:n+1], x1[:n+1], x2[:n+1], x3[:n+1]
	a0, a1, a2, a3 := x0[n], x1[n], x2[n], x3[n]
	for k := n - 1; k >= 0; k-- {
		ck, sk := c[k], s[k]
		t0, t1, t2, t3 := x0[k], x1[k], x2[k], x3[k]
		if ck != 1 || sk != 0 {
			x0[k+1], a0 = ck*a0-sk*t0, sk*a0+ck*t0
			x1[k+1], a1 = ck*a1-sk*t1, sk*a1+ck*t1
			x2[k+1], a2 = ck*a2-sk*t2, sk*a2+ck*t2
			x3[k+1], a3 = ck*a3-sk*t3, sk*a3+ck*t3
		} else {
			x0[k+1], a0 = a0, t0
			x1[k+1], a1 = a1, t1
			x2[k+1], a2 = a2, t2
			x3[k+1], a3 = a3, t3
		}
	}
	x0[0], x1[0], x2[0], x3[0] = a0, a1, a2, a3
}
