package optim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// forPaths calls run with useAsm set for the assembly kernels, if this
// machine has them, and for the Go code.
func forPaths(tb testing.TB, run func(path string)) {
	defer func() { useAsm = haveAsm }()
	for _, asm := range []bool{true, false} {
		if asm && !haveAsm {
			tb.Logf("no assembly kernels on this machine or build")
			continue
		}
		useAsm = asm
		if asm {
			run("asm")
		} else {
			run("go")
		}
	}
}

// kernelPaths runs f as a subtest on each path of forPaths.
func kernelPaths(t *testing.T, f func(t *testing.T)) {
	forPaths(t, func(path string) { t.Run(path, f) })
}

// kernelLengths covers the empty vector, the single-element tails, the
// 4-element and 16-element blocks and their tails.
var kernelLengths = []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 1001}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for j := range v {
		v[j] = r.NormFloat64() * math.Pow(10, 2*r.Float64()-1)
	}
	return v
}

// closeSum reports whether got is within 1e-13 of want relative to
// mag = Σ|terms|, the scale of a sum's rounding error.
func closeSum(got, want, mag float64) bool {
	return math.Abs(got-want) <= 1e-13*mag
}

func TestAxpbyDot(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, n := range kernelLengths {
			for _, tc := range []struct {
				name    string
				c, a    float64
				aliased bool // dst is the source
			}{
				{"sub", 1, 0.7, false},
				{"subInPlace", 1, -1.3, true},
				{"scaleAdd", 0.37, 2.5, true},
				{"scaleAddNeg", -1.9, -0.2, true},
			} {
				x, y, z := randVec(r, n), randVec(r, n), randVec(r, n)
				want := make([]float64, n)
				wantDot, mag := 0.0, 0.0
				for j := range want {
					want[j] = tc.c*x[j] - tc.a*y[j]
					wantDot += z[j] * want[j]
					mag += math.Abs(z[j] * want[j])
				}
				// Guard the tail: the kernels must not write past len(dst).
				buf := append(randVec(r, n), 42)
				dst := buf[:n]
				var got float64
				switch {
				case tc.c == 1 && !tc.aliased:
					got = subScaledDot(dst, x, tc.a, y, z)
				case tc.c == 1:
					copy(dst, x)
					got = subScaledDot(dst, dst, tc.a, y, z)
				default:
					copy(dst, x)
					got = scaleAddDot(dst, tc.c, -tc.a, y, z)
				}
				if buf[n] != 42 {
					t.Errorf("%s n=%d: wrote past the end", tc.name, n)
				}
				for j := range want {
					if e := math.Abs(tc.c*x[j]) + math.Abs(tc.a*y[j]); math.Abs(dst[j]-want[j]) > 1e-13*e {
						t.Errorf("%s n=%d: dst[%d] = %v, want %v", tc.name, n, j, dst[j], want[j])
						break
					}
				}
				if !closeSum(got, wantDot, mag) {
					t.Errorf("%s n=%d: dot = %v, want %v", tc.name, n, got, wantDot)
				}
			}
		}
	})
}

func TestDot(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, n := range kernelLengths {
			x, y := randVec(r, n), randVec(r, n+3) // y may be longer
			want, mag := 0.0, 0.0
			for j := range x {
				want += x[j] * y[j]
				mag += math.Abs(x[j] * y[j])
			}
			if got := dot(x, y); !closeSum(got, want, mag) {
				t.Errorf("n=%d: dot = %v, want %v", n, got, want)
			}
		}
	})
}

func TestDiffDots(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, n := range kernelLengths {
			xp, x, gp, g := randVec(r, n), randVec(r, n), randVec(r, n), randVec(r, n)
			sBuf, yBuf := append(make([]float64, n), 42), append(make([]float64, n), 42)
			s, y := sBuf[:n], yBuf[:n]
			sy, yy, sg := diffDots(s, y, xp, x, gp, g)
			var wantSY, wantYY, wantSG, magSY, magSG float64
			for j := range x {
				ds, dy := xp[j]-x[j], gp[j]-g[j]
				if s[j] != ds || y[j] != dy {
					t.Errorf("n=%d: s[%d], y[%d] = %v, %v, want %v, %v", n, j, j, s[j], y[j], ds, dy)
					break
				}
				wantSY += ds * dy
				wantYY += dy * dy
				wantSG += ds * gp[j]
				magSY += math.Abs(ds * dy)
				magSG += math.Abs(ds * gp[j])
			}
			if sBuf[n] != 42 || yBuf[n] != 42 {
				t.Errorf("n=%d: wrote past the end", n)
			}
			if !closeSum(sy, wantSY, magSY) || !closeSum(yy, wantYY, wantYY) || !closeSum(sg, wantSG, magSG) {
				t.Errorf("n=%d: sᵀy, yᵀy, sᵀg⁺ = %v, %v, %v, want %v, %v, %v", n, sy, yy, sg, wantSY, wantYY, wantSG)
			}
		}
	})
}

func TestAddMoved(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, n := range kernelLengths {
			for _, tc := range []struct {
				name  string
				step  float64
				moved bool
				// edit changes the inputs before the call.
				edit func(x, d []float64)
			}{
				{"step", 0.25, n > 0, nil},
				{"zeroStep", 0, false, nil},
				// A step too small to change x except in the last element
				// (in the single-element tail for most lengths).
				{"lastOnly", 1e-300, n > 0, func(x, d []float64) {
					clear(d)
					if n > 0 {
						x[n-1], d[n-1] = 1e-300, 1
					}
				}},
				{"NaN", 1, n > 0, func(x, d []float64) {
					clear(d)
					if n > 0 {
						d[n/2] = math.NaN()
					}
				}},
			} {
				x, d := randVec(r, n), randVec(r, n)
				if tc.edit != nil {
					tc.edit(x, d)
				}
				buf := append(make([]float64, n), 42)
				xt := buf[:n]
				moved := addMoved(xt, x, tc.step, d)
				if moved != tc.moved {
					t.Errorf("%s n=%d: moved = %v, want %v", tc.name, n, moved, tc.moved)
				}
				for j := range x {
					if want := x[j] + tc.step*d[j]; xt[j] != want && !(math.IsNaN(want) && math.IsNaN(xt[j])) {
						t.Errorf("%s n=%d: xt[%d] = %v, want %v", tc.name, n, j, xt[j], want)
						break
					}
				}
				if buf[n] != 42 {
					t.Errorf("%s n=%d: wrote past the end", tc.name, n)
				}
			}
		}
	})
}

func TestNegDot(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 16))
		for _, n := range kernelLengths {
			g := randVec(r, n)
			buf := append(make([]float64, n), 42)
			dst := buf[:n]
			got := negDot(dst, g)
			want := 0.0
			for j, v := range g {
				if dst[j] != -v {
					t.Errorf("n=%d: dst[%d] = %v, want %v", n, j, dst[j], -v)
					break
				}
				want -= v * v
			}
			if buf[n] != 42 {
				t.Errorf("n=%d: wrote past the end", n)
			}
			if !closeSum(got, want, -want) {
				t.Errorf("n=%d: gᵀdst = %v, want %v", n, got, want)
			}
		}
	})
}

func TestMaxAbs(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		for _, tc := range []struct {
			x    []float64
			want float64
		}{
			{nil, 0},
			{[]float64{0}, 0},
			{[]float64{1, -3, 2}, 3},
			{[]float64{-0.5}, 0.5},
			{[]float64{math.Inf(-1), 1}, math.Inf(1)},
		} {
			if got := maxAbs(tc.x); got != tc.want {
				t.Errorf("maxAbs(%v) = %v, want %v", tc.x, got, tc.want)
			}
		}
		if got := maxAbs([]float64{1, math.NaN(), 2}); !math.IsNaN(got) {
			t.Errorf("maxAbs with a NaN = %v, want NaN (a NaN gradient never converges)", got)
		}
		// The maximum and a NaN in each position of each length: in the
		// 16-element blocks, the 4-element blocks and the tail.
		r := rand.New(rand.NewPCG(17, 18))
		for _, n := range kernelLengths {
			for at := range n {
				x := randVec(r, n)
				for j := range x {
					x[j] = math.Max(-1, math.Min(1, x[j]))
				}
				x[at] = -7
				if got := maxAbs(x); got != 7 {
					t.Errorf("n=%d: maxAbs with −7 at %d = %v", n, at, got)
				}
				x[at] = math.NaN()
				if got := maxAbs(x); !math.IsNaN(got) {
					t.Errorf("n=%d: maxAbs with a NaN at %d = %v, want NaN", n, at, got)
				}
			}
		}
	})
}

func TestMaxAbsDiv(t *testing.T) {
	kernelPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(19, 20))
		for _, n := range kernelLengths {
			for at := range n {
				x, scale := randVec(r, n), randVec(r, n)
				x[at], scale[at] = 1e300, -1e-10 // |x/scale| = +Inf
				want := 0.0
				for j := range x {
					want = math.Max(want, math.Abs(x[j]/scale[j]))
				}
				if got := maxAbsDiv(x, scale); got != want {
					t.Errorf("n=%d, at %d: maxAbsDiv = %v, want %v", n, at, got, want)
				}
				x[at], scale[at] = 0, 0 // 0/0
				if got := maxAbsDiv(x, scale); !math.IsNaN(got) {
					t.Errorf("n=%d: maxAbsDiv with 0/0 at %d = %v, want NaN", n, at, got)
				}
				x[at], scale[at] = 3, 0.5
				want = 0
				for j := range x {
					want = math.Max(want, math.Abs(x[j]/scale[j]))
				}
				if got := maxAbsDiv(x, scale); got != want {
					t.Errorf("n=%d: maxAbsDiv = %v, want %v", n, got, want)
				}
			}
		}
	})
}

// TestDirection compares direction, whose passes fuse each update with the
// next inner product and whose first inner product push computes, with the
// two-loop recursion written out plainly, with the memory partly filled,
// full and wrapped around.
func TestDirection(t *testing.T) {
	const n, m = 1001, 4
	kernelPaths(t, func(t *testing.T) {
		for _, pushes := range []int{1, 3, m, m + 3} {
			r := rand.New(rand.NewPCG(21, uint64(pushes)))
			l := newLBFGS(n, m)
			x, g := randVec(r, n), randVec(r, n)
			for range pushes {
				xp, gp := randVec(r, n), randVec(r, n)
				for j := range xp {
					gp[j] = g[j] + (1+float64(j%5))*(xp[j]-x[j]) + 0.1*gp[j] // positive curvature
				}
				l.push(xp, x, gp, g)
				x, g = xp, gp
			}
			dg := l.direction(g)

			k := min(pushes, m)
			q := append([]float64(nil), g...)
			a := make([]float64, k)
			inner := func(u, v []float64) float64 {
				s := 0.0
				for j := range u {
					s += u[j] * v[j]
				}
				return s
			}
			for i := range k { // newest first
				c := l.slot(i)
				a[i] = l.rho[c] * inner(l.s[c], q)
				for j := range q {
					q[j] -= a[i] * l.y[l.slot(i)][j]
				}
			}
			c := l.slot(0)
			gamma := inner(l.s[c], l.y[c]) / inner(l.y[c], l.y[c])
			for j := range q {
				q[j] *= gamma
			}
			for i := k - 1; i >= 0; i-- { // oldest first
				c := l.slot(i)
				beta := l.rho[c] * inner(l.y[c], q)
				for j := range q {
					q[j] += (a[i] - beta) * l.s[c][j]
				}
			}
			scale := maxAbs(q)
			for j := range q {
				if math.Abs(l.dir[j]+q[j]) > 1e-12*scale {
					t.Errorf("%d pairs pushed: dir[%d] = %v, want %v", pushes, j, l.dir[j], -q[j])
					break
				}
			}
			if want := -inner(g, q); math.Abs(dg-want) > 1e-12*math.Abs(want) {
				t.Errorf("%d pairs pushed: gᵀdir = %v, want %v", pushes, dg, want)
			}
		}
	})
}
