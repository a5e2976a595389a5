package fnr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/logistic"
	"github.com/repro-ml/repro/param"
	"gonum.org/v1/gonum/mat"
)

// randCSR returns an n×d sparse matrix with about density·n·d non-zeros.
func randCSR(r *rand.Rand, n, d int, density float64) *matrix.CSR {
	b := matrix.NewBuilder(d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if r.Float64() < density {
				b.Add(j, math.Log1p(float64(1+r.IntN(4))))
			}
		}
		b.EndRow()
	}
	return b.Build()
}

// randGraph returns a D×D non-negative directed graph with about k links
// per row among the first rows nodes; the other rows have no out-links.
func randGraph(r *rand.Rand, D, rows, k int) *matrix.CSR {
	b := matrix.NewBuilder(D)
	for i := 0; i < D; i++ {
		if i < rows {
			for t := 0; t < k; t++ {
				if j := r.IntN(D); j != i {
					b.Add(j, 0.1+r.Float64())
				}
			}
		}
		b.EndRow()
	}
	return b.Build()
}

func labels(r *rand.Rand, n, K int) []int {
	y := make([]int, n)
	for i := range y {
		y[i] = i % K
		if r.Float64() < 0.2 {
			y[i] = r.IntN(K)
		}
	}
	return y
}

// dense returns g as a gonum matrix.
func dense(g *matrix.CSR) *mat.Dense {
	m := mat.NewDense(g.R, g.C, nil)
	for i := 0; i < g.R; i++ {
		g.Row(i, func(j int, v float64) { m.Set(i, j, v) })
	}
	return m
}

// TestPenaltiesMatchDenseFormulas compares ‖Bw‖² with the penalties of the
// paper computed densely from their definitions.
func TestPenaltiesMatchDenseFormulas(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	D := 9
	g := randGraph(r, D, 7, 3) // rows 7, 8 without out-links
	Wd := dense(g)
	w := make([]float64, D)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	sq := func(B *matrix.CSR) float64 {
		out := make([]float64, B.R)
		B.MulVec(out, w)
		s := 0.0
		for _, v := range out {
			s += v * v
		}
		return s
	}
	// Network: Σ over rows with links of (w_j − Σ_k P_jk w_k)².
	net := 0.0
	for j := 0; j < D; j++ {
		sum, avg := 0.0, 0.0
		for k := 0; k < D; k++ {
			sum += Wd.At(j, k)
			avg += Wd.At(j, k) * w[k]
		}
		if sum > 0 {
			net += (w[j] - avg/sum) * (w[j] - avg/sum)
		}
	}
	dis := 0.0
	for j := 0; j < D; j++ {
		sum, avg := 0.0, 0.0
		for k := 0; k < D; k++ {
			sum += Wd.At(j, k)
			avg += Wd.At(j, k) * w[k]
		}
		if sum > 0 {
			dis += (w[j] + avg/sum) * (w[j] + avg/sum)
		}
	}
	// Laplacian with S = (W+Wᵀ)/2: wᵀ(D−S)w and ½ Σ S_ij (w_i/√d_i − w_j/√d_j)².
	lap, nlap := 0.0, 0.0
	deg := make([]float64, D)
	S := func(i, j int) float64 { return (Wd.At(i, j) + Wd.At(j, i)) / 2 }
	for i := 0; i < D; i++ {
		for j := 0; j < D; j++ {
			deg[i] += S(i, j)
		}
	}
	for i := 0; i < D; i++ {
		lap += deg[i] * w[i] * w[i]
		for j := 0; j < D; j++ {
			lap -= S(i, j) * w[i] * w[j]
			if deg[i] > 0 && deg[j] > 0 {
				e := w[i]/math.Sqrt(deg[i]) - w[j]/math.Sqrt(deg[j])
				nlap += 0.5 * S(i, j) * e * e
			}
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"network", sq(NetworkResidual(g)), net},
		{"dissimilarity", sq(DissimilarityResidual(g)), dis},
		{"laplacian", sq(LaplacianResidual(g, false)), lap},
		{"normalized-laplacian", sq(LaplacianResidual(g, true)), nlap},
	} {
		if math.Abs(c.got-c.want) > 1e-10*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s: ‖Bw‖² = %.12g, dense formula %.12g", c.name, c.got, c.want)
		}
	}
}

// newtonRidge fits Σ loss + β‖W‖² (intercepts free) by Newton's method on a
// dense Hessian: an independent solver for the α = 0 comparison.
func newtonRidge(t *testing.T, X *matrix.CSR, y []int, K int, beta float64) []float64 {
	n, d := X.Dims()
	C := K
	if K == 2 {
		C = 1
	}
	np := (d + 1) * C
	x := make([]float64, np)
	row := func(i int) []float64 {
		out := make([]float64, d+1)
		X.Row(i, func(j int, v float64) { out[j] = v })
		out[d] = 1
		return out
	}
	idx := func(j, c int) int { // feature j (d = intercept), class c
		if j == d {
			return d*C + c
		}
		return j*C + c
	}
	for it := 0; it < 50; it++ {
		g := mat.NewVecDense(np, nil)
		H := mat.NewSymDense(np, nil)
		for j := 0; j < d; j++ {
			for c := 0; c < C; c++ {
				g.SetVec(idx(j, c), 2*beta*x[idx(j, c)])
				H.SetSym(idx(j, c), idx(j, c), 2*beta)
			}
		}
		for i := 0; i < n; i++ {
			xi := row(i)
			z := make([]float64, C)
			for c := 0; c < C; c++ {
				for j := 0; j <= d; j++ {
					z[c] += xi[j] * x[idx(j, c)]
				}
			}
			var p []float64
			if C == 1 {
				p = []float64{1 / (1 + math.Exp(-z[0]))}
			} else {
				mx := z[0]
				for _, v := range z {
					mx = math.Max(mx, v)
				}
				s := 0.0
				p = make([]float64, C)
				for c := range z {
					p[c] = math.Exp(z[c] - mx)
					s += p[c]
				}
				for c := range p {
					p[c] /= s
				}
			}
			for c := 0; c < C; c++ {
				tc := 0.0
				if (C == 1 && y[i] == 1) || (C > 1 && y[i] == c) {
					tc = 1
				}
				for j := 0; j <= d; j++ {
					g.SetVec(idx(j, c), g.AtVec(idx(j, c))+(p[c]-tc)*xi[j])
				}
				for e := 0; e < C; e++ {
					var h float64
					switch {
					case C == 1:
						h = p[0] * (1 - p[0])
					case c == e:
						h = p[c] * (1 - p[c])
					default:
						h = -p[c] * p[e]
					}
					for j := 0; j <= d; j++ {
						for k := 0; k <= d; k++ {
							a, b := idx(j, c), idx(k, e)
							if a <= b {
								H.SetSym(a, b, H.At(a, b)+h*xi[j]*xi[k])
							}
						}
					}
				}
			}
		}
		// Softmax intercepts are defined up to a common shift: pin it.
		if C > 1 {
			for c := 0; c < C; c++ {
				for e := 0; e < C; e++ {
					a, b := idx(d, c), idx(d, e)
					if a <= b {
						H.SetSym(a, b, H.At(a, b)+1e-3)
					}
				}
			}
		}
		var step mat.VecDense
		if err := step.SolveVec(H, g); err != nil {
			t.Fatalf("newton: %v", err)
		}
		for i := range x {
			x[i] -= step.AtVec(i)
		}
		if mat.Norm(g, math.Inf(1)) < 1e-11 {
			break
		}
	}
	return x
}

// TestAlphaZeroIsRidge: fnr with α = 0 equals ridge logistic regression at β
// fitted by an independent Newton solver (predictions, which are invariant
// to the softmax intercepts' common shift).
func TestAlphaZeroIsRidge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, K := range []int{2, 3} {
		n, d := 40, 6
		X := randCSR(r, n, d, 0.6)
		y := labels(r, n, K)
		g := randGraph(r, d+2, d, 2)
		train := &datasets.Dataset{Name: "toy", X: X, Y: toFloat(y), Classes: make([]string, K), Graphs: map[string]*matrix.CSR{"feature": g}}
		beta := 0.5
		m := &Method{kind: kindNetwork, Alpha: 0, Beta: beta, Graph: "feature", MaxIter: 1000, Tol: 1e-10}
		model, err := m.Fit(context.Background(), train, &methods.Env{})
		if err != nil {
			t.Fatal(err)
		}
		ref := newtonRidge(t, X, y, K, beta)
		refModel := &logistic.Model{K: K, C: model.(*logistic.Model).C, D: d, Cols: d, W: ref}
		got, want := model.Predict(X), refModel.Predict(X)
		for i := 0; i < n; i++ {
			for c := 0; c < K; c++ {
				dg := got.Score(i, c) - got.Score(i, 0)
				dw := want.Score(i, c) - want.Score(i, 0)
				if math.Abs(dg-dw) > 1e-5 {
					t.Fatalf("K=%d row %d class %d: fnr(α=0) score difference %.8g, Newton ridge %.8g", K, i, c, dg, dw)
				}
			}
		}
	}
}

func toFloat(y []int) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = float64(v)
	}
	return out
}

// TestClassConstructionVirtualWeightIsMean builds §3.1's feature classes:
// features 0-3 → virtual 8, features 4-7 → virtual 9, weight 1. At the
// optimum, ∂/∂μ_c = −2α Σ_{j∈c}(w_j − μ_c) + 2βμ_c = 0, so
// μ_c = α Σ_{j∈c} w_j / (α|c| + β), the class mean as β → 0.
func TestClassConstructionVirtualWeightIsMean(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n, d := 60, 8
	X := randCSR(r, n, d, 0.5)
	b := matrix.NewBuilder(d + 2)
	for j := 0; j < d+2; j++ {
		if j < d {
			b.Add(d+j/4, 1)
		}
		b.EndRow()
	}
	g := b.Build()
	for _, c := range []struct {
		K           int
		alpha, beta float64
	}{{2, 5, 0.1}, {2, 100, 1e-6}, {3, 2, 0.5}} {
		y := labels(r, n, c.K)
		train := &datasets.Dataset{Name: "toy", X: X, Y: toFloat(y), Classes: make([]string, c.K), Graphs: map[string]*matrix.CSR{"feature": g}}
		m := &Method{kind: kindNetwork, Alpha: c.alpha, Beta: c.beta, Graph: "feature", MaxIter: 5000, Tol: 1e-12}
		mod, err := m.Fit(context.Background(), train, nil)
		if err != nil {
			t.Fatal(err)
		}
		model := mod.(*logistic.Model)
		for col := 0; col < model.C; col++ {
			for cls := 0; cls < 2; cls++ {
				sum := 0.0
				for j := 4 * cls; j < 4*cls+4; j++ {
					sum += model.Weight(j, col)
				}
				want := c.alpha * sum / (c.alpha*4 + c.beta)
				got := model.Weight(d+cls, col)
				if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("K=%d α=%g β=%g column %d class %d: virtual weight %.9g, want α·Σw/(α|c|+β) = %.9g (mean %.9g)",
						c.K, c.alpha, c.beta, col, cls, got, want, sum/4)
				}
			}
		}
	}
}

// TestFitDeterministicAndBeatsRidgeOnSmoothTruth: a graph that matches the
// truth (linked features share weights) helps; two fits agree bit for bit.
func TestFitDeterministicAndBeatsRidgeOnSmoothTruth(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	d, groups := 60, 6
	// Features in blocks of 10 share one true weight; the graph links each
	// feature to the others of its block.
	truth := make([]float64, groups)
	for i := range truth {
		truth[i] = 2 * r.NormFloat64()
	}
	gen := func(n int) (*matrix.CSR, []float64) {
		X := randCSR(r, n, d, 0.08)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			s := 0.0
			X.Row(i, func(j int, v float64) { s += v * truth[j/10] })
			if r.Float64() < 1/(1+math.Exp(-s)) {
				y[i] = 1
			}
		}
		return X, y
	}
	b := matrix.NewBuilder(d)
	for j := 0; j < d; j++ {
		for k := j / 10 * 10; k < j/10*10+10; k++ {
			if k != j {
				b.Add(k, 1)
			}
		}
		b.EndRow()
	}
	g := b.Build()
	Xtr, ytr := gen(40)
	Xte, yte := gen(2000)
	train := &datasets.Dataset{Name: "blocks", X: Xtr, Y: ytr, Classes: []string{"neg", "pos"}, Graphs: map[string]*matrix.CSR{"feature": g}}
	acc := func(alpha, beta float64) (float64, []float64) {
		m := &Method{kind: kindNetwork, Alpha: alpha, Beta: beta, Graph: "feature", MaxIter: 200, Tol: 1e-8}
		mod, err := m.Fit(context.Background(), train, &methods.Env{Memo: &methods.Memo{}})
		if err != nil {
			t.Fatal(err)
		}
		p := mod.Predict(Xte)
		ok := 0
		for i := range yte {
			if p.Label(i) == int(yte[i]) {
				ok++
			}
		}
		return float64(ok) / float64(len(yte)), mod.(*logistic.Model).W
	}
	ridge, _ := acc(0, 1)
	net, w1 := acc(10, 0.1)
	_, w2 := acc(10, 0.1)
	for i := range w1 {
		if w1[i] != w2[i] {
			t.Fatalf("two fits differ at weight %d: %v vs %v", i, w1[i], w2[i])
		}
	}
	if net < ridge+0.03 {
		t.Errorf("fnr accuracy %.3f, ridge %.3f: the matching graph should help by ≥ 3 points", net, ridge)
	}
}

func TestFitErrors(t *testing.T) {
	X := matrix.NewDense(4, 2, []float64{1, 0, 0, 1, 1, 1, 0, 0})
	y := []float64{0, 1, 1, 0}
	g3 := matrix.NewCSR(3, 3, []int{0, 1, 1, 1}, []int32{1}, []float64{1})
	neg := matrix.NewCSR(2, 2, []int{0, 1, 1}, []int32{1}, []float64{-1})
	for _, c := range []struct {
		name   string
		graphs map[string]*matrix.CSR
		kind   penaltyKind
		want   string
	}{
		{"no graph", nil, kindNetwork, "cooccurrence-graph"},
		{"no graph laplacian", map[string]*matrix.CSR{"other": g3}, kindLaplacian, `no feature graph "feature"`},
		{"negative", map[string]*matrix.CSR{"feature": neg}, kindNetwork, "non-negative"},
	} {
		train := &datasets.Dataset{Name: "t", X: X, Y: y, Classes: []string{"a", "b"}, Graphs: c.graphs}
		_, err := (&Method{kind: c.kind, Alpha: 1, Beta: 1, Graph: "feature", MaxIter: 10, Tol: 1e-6}).Fit(context.Background(), train, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if c.graphs == nil && !errors.Is(err, ErrNoGraph) {
			t.Errorf("%s: error does not wrap ErrNoGraph", c.name)
		}
	}
}

func TestPluginsRegistered(t *testing.T) {
	for _, name := range []string{"fnr", "laplacian", "normalized-laplacian"} {
		pl, err := methods.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pl.New(param.Defaults(pl.Params))
		if err != nil {
			t.Fatal(err)
		}
		if m.(*Method).MaxIter != 200 {
			t.Errorf("%s: default max_iter %d, want 200", name, m.(*Method).MaxIter)
		}
	}
}

// Example fits fnr on four documents over three words, where the graph ties
// the unseen word 2 to word 0: the model learns a weight for word 2 from
// its neighbour alone.
func Example() {
	X := matrix.NewDense(4, 3, []float64{
		1, 0, 0,
		1, 0, 0,
		0, 1, 0,
		0, 1, 0,
	})
	train := &datasets.Dataset{
		Name: "toy", X: X, Y: []float64{1, 1, 0, 0}, Classes: []string{"neg", "pos"},
		// Word 2 links to word 0 (raw weight 1).
		Graphs: map[string]*matrix.CSR{"feature": matrix.NewCSR(3, 3, []int{0, 0, 0, 1}, []int32{0}, []float64{1})},
	}
	pl, _ := methods.Lookup("fnr")
	p := param.Defaults(pl.Params)
	p["alpha"], p["beta"] = 10.0, 0.1
	m, _ := pl.New(p)
	model, _ := m.Fit(context.Background(), train, &methods.Env{})
	pred := model.Predict(matrix.NewDense(1, 3, []float64{0, 0, 1}))
	fmt.Println("document with only word 2 is", train.Classes[pred.Label(0)])
	// Output: document with only word 2 is pos
}

// randTrain returns n random rows of d sparse features in four classes
// with a random feature graph (5 links per feature) called "feature".
func randTrain(r *rand.Rand, n, d int) *datasets.Dataset {
	X := randCSR(r, n, d, 0.1)
	y := toFloat(labels(r, n, 4))
	return &datasets.Dataset{Name: "random", X: X, Y: y, Classes: []string{"a", "b", "c", "d"},
		Graphs: map[string]*matrix.CSR{"feature": randGraph(r, d, d, 5)}}
}

// TestWarmStart: a fit that finds the previous grid point's weights in
// env.Warm converges to the cold fit's optimum (same objective within the
// tolerance) in fewer iterations, and stores its own weights for the next.
func TestWarmStart(t *testing.T) {
	train := randTrain(rand.New(rand.NewPCG(4, 4)), 300, 80)
	fit := func(alpha, beta float64, warm *methods.State) *logistic.Model {
		m := &Method{kind: kindNetwork, Alpha: alpha, Beta: beta, Graph: "feature", MaxIter: 1000, Tol: 1e-9}
		mod, err := m.Fit(context.Background(), train, &methods.Env{Memo: &methods.Memo{}, Warm: warm})
		if err != nil {
			t.Fatal(err)
		}
		return mod.(*logistic.Model)
	}
	cold := fit(1, 0.02, nil)
	warm := &methods.State{}
	fit(1, 0.01, warm) // the previous grid point
	hot := fit(1, 0.02, warm)
	ci, hi := cold.Info(), hot.Info()
	if !ci.Converged || !hi.Converged {
		t.Fatalf("converged cold %v warm %v", ci.Converged, hi.Converged)
	}
	if rel := math.Abs(hi.Objective-ci.Objective) / ci.Objective; rel > 1e-7 {
		t.Errorf("warm objective %.12g, cold %.12g: relative gap %.1e, want ≤ 1e-7", hi.Objective, ci.Objective, rel)
	}
	if hi.Iterations >= ci.Iterations {
		t.Errorf("warm start took %d iterations, cold %d: want fewer", hi.Iterations, ci.Iterations)
	}
	if w, ok := methods.Load[[]float64](warm, "fnr.weights fnr graph=feature K=4 D=80"); !ok || &w[0] != &hot.W[0] {
		t.Errorf("the warm fit did not store its weights for the next grid point")
	}
}

// TestFTolStopsEarlyNearOptimum: with ftol, a fit whose gradient test is
// out of reach stops once its objective has settled — in fewer iterations,
// at an objective within a few ftol of the tightly converged fit's, with
// the same predicted labels on the training rows — and says it converged.
func TestFTolStopsEarlyNearOptimum(t *testing.T) {
	const n = 200
	train := randTrain(rand.New(rand.NewPCG(5, 6)), n, 150)
	X := train.X
	fit := func(kind penaltyKind, ftol float64) *logistic.Model {
		m := &Method{kind: kind, Alpha: 10, Beta: 0.001, Graph: "feature", MaxIter: 2000, Tol: 1e-12, FTol: ftol}
		mod, err := m.Fit(context.Background(), train, &methods.Env{Memo: &methods.Memo{}})
		if err != nil {
			t.Fatal(err)
		}
		return mod.(*logistic.Model)
	}
	const ftol = 1e-6
	for _, kind := range []penaltyKind{kindNetwork, kindNormalized} {
		tight, loose := fit(kind, 0), fit(kind, ftol)
		ti, li := tight.Info(), loose.Info()
		if !li.Converged || li.Iterations >= ti.Iterations {
			t.Errorf("%s: ftol fit %d iterations (converged %v), tight fit %d: want converged in fewer", kind, li.Iterations, li.Converged, ti.Iterations)
		}
		if gap := (li.Objective - ti.Objective) / ti.Objective; gap < -1e-9 || gap > 50*ftol {
			t.Errorf("%s: ftol objective %.10g, tight %.10g: relative gap %.2g, want in [0, %g]", kind, li.Objective, ti.Objective, gap, 50*ftol)
		}
		pt, pl := tight.Predict(X), loose.Predict(X)
		for i := 0; i < n; i++ {
			if pt.Label(i) != pl.Label(i) {
				t.Errorf("%s: row %d predicted %d by the ftol fit, %d by the tight one", kind, i, pl.Label(i), pt.Label(i))
			}
		}
		t.Logf("%s: %d iterations with ftol %g, %d without", kind, li.Iterations, ftol, ti.Iterations)
	}
}

// TestMemoryParam: the L-BFGS memory changes the path, not the optimum —
// fits with 3, 5 and 10 correction pairs reach the same objective (to the
// gradient tolerance) and predictions, in different numbers of iterations.
func TestMemoryParam(t *testing.T) {
	const n = 200
	train := randTrain(rand.New(rand.NewPCG(5, 6)), n, 150)
	pl, _ := methods.Lookup("fnr")
	fit := func(memory int) *logistic.Model {
		p := param.Defaults(pl.Params)
		p["alpha"], p["beta"], p["max_iter"], p["tol"], p["memory"] = 10.0, 0.001, 5000, 1e-9, memory
		m, err := pl.New(p)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := m.Fit(context.Background(), train, &methods.Env{Memo: &methods.Memo{}})
		if err != nil {
			t.Fatal(err)
		}
		return mod.(*logistic.Model)
	}
	ref := fit(10)
	iters := map[int]int{10: ref.Info().Iterations}
	for _, memory := range []int{3, 5} {
		mod := fit(memory)
		in := mod.Info()
		iters[memory] = in.Iterations
		if !in.Converged {
			t.Fatalf("memory %d: not converged in %d iterations", memory, in.Iterations)
		}
		if gap := math.Abs(in.Objective-ref.Info().Objective) / ref.Info().Objective; gap > 1e-8 {
			t.Errorf("memory %d: objective %.12g, memory 10: %.12g (relative gap %.2g)", memory, in.Objective, ref.Info().Objective, gap)
		}
		pa, pb := mod.Predict(train.X), ref.Predict(train.X)
		for i := 0; i < n; i++ {
			if pa.Label(i) != pb.Label(i) {
				t.Errorf("memory %d: row %d predicted %d, memory 10: %d", memory, i, pa.Label(i), pb.Label(i))
			}
		}
	}
	if iters[3] == iters[10] && iters[5] == iters[10] {
		t.Errorf("iterations %v: the memory param did not reach the solver", iters)
	}
	t.Logf("iterations by memory: %v", iters)
}
