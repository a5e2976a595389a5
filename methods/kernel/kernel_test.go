package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Kernel
		err  bool
	}{
		{"linear", Kernel{Kind: Linear}, false},
		{"poly:3", Kernel{Kind: Poly, Degree: 3}, false},
		{"rbf:0.1", Kernel{Kind: RBF, Sigma: 0.1}, false},
		{"rbf:0", Kernel{}, true},
		{"poly:0", Kernel{}, true},
		{"poly:x", Kernel{}, true},
		{"linear:2", Kernel{}, true},
		{"sigmoid", Kernel{}, true},
	}
	for _, tc := range tests {
		got, err := Parse(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("Parse(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err && (got != tc.want || got.String() != tc.in) {
			t.Errorf("Parse(%q) = %+v (%s), want %+v", tc.in, got, got, tc.want)
		}
	}
}

func randDense(r, c int, seed uint64) *matrix.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := matrix.NewDense(r, c, nil)
	for i := range m.RawData() {
		m.RawData()[i] = rng.NormFloat64()
	}
	return m
}

func TestGramAgainstEval(t *testing.T) {
	X := randDense(7, 4, 1)
	Z := randDense(3, 4, 2)
	csr := matrix.ToCSR(X)
	for _, spec := range []string{"linear", "poly:1", "poly:3", "rbf:1", "rbf:0.5"} {
		k, _ := Parse(spec)
		for _, norm := range []bool{false, true} {
			g := Gram(k, X, norm)
			gs := Gram(k, csr, norm)
			c := Cross(k, Z, X, norm)
			for i := 0; i < 7; i++ {
				for j := 0; j < 7; j++ {
					want := k.Eval(X.RawRow(i), X.RawRow(j), norm)
					if math.Abs(g[i*7+j]-want) > 1e-9*(1+math.Abs(want)) || math.Abs(gs[i*7+j]-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("%s norm=%v: Gram[%d,%d] = %v / %v, want %v", spec, norm, i, j, g[i*7+j], gs[i*7+j], want)
					}
				}
				if norm && math.Abs(g[i*7+i]-1) > 1e-12 {
					t.Errorf("%s: normalized diagonal %v", spec, g[i*7+i])
				}
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 7; j++ {
					want := k.Eval(Z.RawRow(i), X.RawRow(j), norm)
					if math.Abs(c[i*7+j]-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("%s: Cross[%d,%d] = %v, want %v", spec, i, j, c[i*7+j], want)
					}
				}
			}
		}
	}
}

func TestKnownValues(t *testing.T) {
	a, b := []float64{1, 0}, []float64{0, 2}
	tests := []struct {
		spec string
		norm bool
		want float64
	}{
		{"linear", false, 0},
		{"poly:2", false, 1},
		{"rbf:1", false, math.Exp(-5.0 / 2)},
		{"poly:2", true, 1 / math.Sqrt(4*25)},
	}
	for _, tc := range tests {
		k, _ := Parse(tc.spec)
		if got := k.Eval(a, b, tc.norm); math.Abs(got-tc.want) > 1e-14 {
			t.Errorf("%s norm=%v: %v, want %v", tc.spec, tc.norm, got, tc.want)
		}
	}
	// A zero vector normalizes to the zero function, not NaN.
	k, _ := Parse("linear")
	if got := k.Eval([]float64{0, 0}, b, true); got != 0 {
		t.Errorf("normalized linear kernel of a zero vector = %v, want 0", got)
	}
}

func TestCachedGramShared(t *testing.T) {
	X := randDense(5, 3, 3)
	env := &methods.Env{Memo: &methods.Memo{}}
	k, _ := Parse("rbf:2")
	g1, err := CachedGram(env, X, k, true)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := CachedGram(env, X, k, true)
	if &g1[0] != &g2[0] {
		t.Error("CachedGram recomputed the Gram matrix")
	}
	g3, _ := CachedGram(env, X, k, false)
	if &g1[0] == &g3[0] {
		t.Error("normalized and raw Gram matrices share a cache entry")
	}
}

func ExampleParse() {
	k, _ := Parse("rbf:10")
	fmt.Println(k, k.Eval([]float64{0, 0}, []float64{0, 10}, true))
	// Output: rbf:10 0.6065306597126334
}

func ExampleParseAll() {
	_, err := ParseAll("kernels", []string{"rbf:abc", "linear", "poly:-2", "banana"})
	fmt.Println(err)
	// Output:
	// kernels[0]: kernel "rbf:abc": width "abc" is not a finite number > 0; want rbf:σ with a width σ > 0
	// kernels[2]: kernel "poly:-2": order "-2" is not an integer ≥ 1; want poly:p with an integer order p ≥ 1
	// kernels[3]: kernel "banana": unknown kernel; want linear, poly:p or rbf:σ
}
