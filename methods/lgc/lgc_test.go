package lgc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"gonum.org/v1/gonum/mat"
)

func randCSR(r *rand.Rand, n, d int, density float64) *matrix.CSR {
	b := matrix.NewBuilder(d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if r.Float64() < density {
				b.Add(j, 1+float64(r.IntN(3)))
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// TestKNNCosineMatchesBruteForce compares with all pairwise cosines.
func TestKNNCosineMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	X := randCSR(r, 40, 15, 0.2)
	k := 4
	G := KNNCosine(X, k)
	D := matrix.ToDense(X)
	cos := func(i, j int) float64 {
		a, b, ab := 0.0, 0.0, 0.0
		for c := 0; c < 15; c++ {
			a += D.At(i, c) * D.At(i, c)
			b += D.At(j, c) * D.At(j, c)
			ab += D.At(i, c) * D.At(j, c)
		}
		if a == 0 || b == 0 {
			return 0
		}
		return ab / math.Sqrt(a*b)
	}
	for i := 0; i < 40; i++ {
		type c struct {
			j int
			v float64
		}
		var all []c
		for j := 0; j < 40; j++ {
			if v := cos(i, j); j != i && v > 1e-12 {
				all = append(all, c{j, v})
			}
		}
		sort.Slice(all, func(a, b int) bool {
			if math.Abs(all[a].v-all[b].v) > 1e-12 {
				return all[a].v > all[b].v
			}
			return all[a].j < all[b].j
		})
		if len(all) > k {
			all = all[:k]
		}
		if got := G.Ptr[i+1] - G.Ptr[i]; got != len(all) {
			t.Fatalf("row %d: %d neighbours, want %d", i, got, len(all))
		}
		for _, e := range all {
			if v := G.At(i, e.j); math.Abs(v-e.v) > 1e-12 {
				t.Errorf("row %d: weight to %d = %v, want cosine %v", i, e.j, v, e.v)
			}
		}
	}
}

// TestPropagateIsZhouFixedPoint: CG's answer equals the closed form
// (1−α)(I−αS)⁻¹y and the limit of Zhou et al.'s iteration F ← αSF + (1−α)Y.
func TestPropagateIsZhouFixedPoint(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	n := 50
	S := Affinity(KNNCosine(randCSR(r, n, 20, 0.25), 5))
	y := make([]float64, n)
	for i := 0; i < 8; i++ {
		y[r.IntN(n)] = 1
	}
	alpha := 0.9
	f, _, ok := Propagate(S, y, alpha, 1e-12, 1000)
	if !ok {
		t.Fatal("CG did not converge")
	}
	A := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		A.Set(i, i, 1)
		S.Row(i, func(j int, v float64) { A.Set(i, j, A.At(i, j)-alpha*v) })
	}
	var want mat.VecDense
	b := mat.NewVecDense(n, nil)
	for i := range y {
		b.SetVec(i, (1-alpha)*y[i])
	}
	if err := want.SolveVec(A, b); err != nil {
		t.Fatal(err)
	}
	it := make([]float64, n)
	tmp := make([]float64, n)
	for k := 0; k < 2000; k++ {
		S.MulVec(tmp, it)
		for i := range it {
			it[i] = alpha*tmp[i] + (1-alpha)*y[i]
		}
	}
	for i := range f {
		if math.Abs(f[i]-want.AtVec(i)) > 1e-9 || math.Abs(f[i]-it[i]) > 1e-9 {
			t.Fatalf("f[%d] = %.12g, closed form %.12g, iteration %.12g", i, f[i], want.AtVec(i), it[i])
		}
	}
}

// TestTwoClustersOneLabelEach: two groups of documents over disjoint
// vocabularies, one labelled document per group: every unlabelled document
// gets its group's label.
func TestTwoClustersOneLabelEach(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	d := 40
	gen := func(n int, cls []int) *matrix.CSR {
		b := matrix.NewBuilder(d)
		for i := 0; i < n; i++ {
			base := cls[i] * 20
			for t := 0; t < 6; t++ {
				b.Add(base+r.IntN(20), 1)
			}
			b.EndRow()
		}
		return b.Build()
	}
	train := &datasets.Dataset{Name: "two", X: gen(2, []int{0, 1}), Y: []float64{0, 1}, Classes: []string{"a", "b"}}
	testCls := make([]int, 60)
	for i := range testCls {
		testCls[i] = i % 2
	}
	Xte := gen(60, testCls)
	pl, _ := methods.Lookup("lgc")
	m, _ := pl.New(map[string]any{"k": 10, "alpha": 0.99, "tol": 1e-8, "max_iter": 2000})
	model, err := m.Fit(context.Background(), train, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := model.Predict(Xte)
	for i, c := range testCls {
		if p.Label(i) != c {
			t.Errorf("document %d of group %d labelled %d", i, c, p.Label(i))
		}
	}
	if info := model.(*Model).Info(); !info.Converged {
		t.Errorf("not converged: %+v", info)
	}
}

// ExamplePropagate spreads one label along a path of three nodes; by hand,
// with c = α/√2: f1 = (1−α)c/(1−2c²), f0 = (1−α) + c·f1, f2 = c·f1.
// TestAffinityDeterministic checks that Affinity gives the same bits every
// time (its degrees once summed in map order).
func TestAffinityDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	W := KNNCosine(randCSR(r, 60, 20, 0.3), 8)
	want := Affinity(W)
	for range 20 {
		got := Affinity(W)
		for k, v := range got.Val {
			if math.Float64bits(v) != math.Float64bits(want.Val[k]) {
				t.Fatalf("entry %d: %v, then %v", k, want.Val[k], v)
			}
		}
	}
}

func ExamplePropagate() {
	// Path 0 — 1 — 2 with unit weights.
	W := matrix.NewCSR(3, 3, []int{0, 1, 3, 4}, []int32{1, 0, 2, 1}, []float64{1, 1, 1, 1})
	f, _, _ := Propagate(Affinity(W), []float64{1, 0, 0}, 0.5, 1e-12, 100)
	fmt.Printf("%.4f %.4f %.4f\n", f[0], f[1], f[2])
	// Output: 0.5833 0.2357 0.0833
}

// TestKNNCosineTies: among equal cosines the lower indices are kept. Ten
// identical rows, then two orthogonal ones, k = 3: every copy links to the
// three lowest-indexed other copies, the orthogonal rows to nothing.
func TestKNNCosineTies(t *testing.T) {
	b := matrix.NewBuilder(3)
	for i := 0; i < 10; i++ {
		b.Add(0, 1)
		b.Add(1, 2)
		b.EndRow()
	}
	b.Add(2, 1)
	b.EndRow()
	b.EndRow()
	G := KNNCosine(b.Build(), 3)
	for i := 0; i < 12; i++ {
		var want []int32
		for j := 0; j < 10 && i < 10 && len(want) < 3; j++ {
			if j != i {
				want = append(want, int32(j))
			}
		}
		got := G.Ind[G.Ptr[i]:G.Ptr[i+1]]
		if !slices.Equal(got, want) {
			t.Errorf("row %d: neighbours %v, want %v", i, got, want)
		}
		for _, v := range G.Val[G.Ptr[i]:G.Ptr[i+1]] {
			if math.Abs(v-1) > 1e-15 {
				t.Errorf("row %d: weight %v, want 1", i, v)
			}
		}
	}
}
