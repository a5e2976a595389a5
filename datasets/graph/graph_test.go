package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// randomCSR returns an r×c sparse matrix with each entry non-zero with
// probability p, values in {1, 2, 3} (count-like).
func randomCSR(r, c int, p float64, seed uint64) *matrix.CSR {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := matrix.NewBuilder(c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.Float64() < p {
				b.Add(j, float64(1+rng.IntN(3)))
			}
		}
		b.EndRow()
	}
	return b.Build()
}

func dense(m *matrix.CSR) [][]float64 {
	out := make([][]float64, m.R)
	for i := range out {
		out[i] = make([]float64, m.C)
		m.Row(i, func(j int, v float64) { out[i][j] = v })
	}
	return out
}

// bruteCooccurrence is the definition computed densely.
func bruteCooccurrence(x *matrix.CSR, k int, th float64) [][]float64 {
	X := dense(x)
	n, d := x.R, x.C
	out := make([][]float64, d)
	for j := 0; j < d; j++ {
		out[j] = make([]float64, d)
		type cand struct {
			l int
			c float64
		}
		var cs []cand
		for l := 0; l < d; l++ {
			if l == j {
				continue
			}
			var both, nj, nl float64
			for i := 0; i < n; i++ {
				bj, bl := X[i][j] != 0, X[i][l] != 0
				if bj {
					nj++
				}
				if bl {
					nl++
				}
				if bj && bl {
					both++
				}
			}
			if both == 0 {
				continue
			}
			c := both / math.Sqrt(nj*nl)
			if c >= th {
				cs = append(cs, cand{l, c})
			}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].c > cs[b].c })
		for t := 0; t < len(cs) && t < k; t++ {
			out[j][cs[t].l] = cs[t].c
		}
	}
	return out
}

func TestCooccurrenceBruteForce(t *testing.T) {
	tests := []struct {
		r, c int
		p    float64
		k    int
		th   float64
	}{
		{30, 12, 0.3, 3, 0.1},
		{50, 40, 0.1, 5, 0.2},
		{20, 25, 0.5, 25, 0},  // k ≥ d: every co-occurring feature
		{40, 30, 0.2, 4, 0.9}, // high threshold: few links
		{5, 8, 0, 3, 0.1},     // empty matrix: no links
	}
	for _, tt := range tests {
		x := randomCSR(tt.r, tt.c, tt.p, uint64(tt.r*tt.c))
		w, err := Cooccurrence(context.Background(), x, tt.k, tt.th)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		want := bruteCooccurrence(x, tt.k, tt.th)
		got := dense(w)
		for j := range want {
			deg := 0
			for l := range want[j] {
				if math.Abs(got[j][l]-want[j][l]) > 1e-12 {
					t.Errorf("%+v: W[%d,%d] = %v, want %v", tt, j, l, got[j][l], want[j][l])
				}
				if got[j][l] != 0 {
					deg++
				}
			}
			if deg > tt.k {
				t.Errorf("%+v: feature %d has %d links > k", tt, j, deg)
			}
		}
	}
}

func TestCooccurrenceKnown(t *testing.T) {
	// Three documents; features a,b always together, c alone in doc 2.
	x := matrix.NewCSR(3, 3, []int{0, 2, 4, 5}, []int32{0, 1, 0, 1, 2}, []float64{1, 1, 2, 3, 1})
	w, err := Cooccurrence(context.Background(), x, 1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if w.At(0, 1) != 1 || w.At(1, 0) != 1 || w.NNZ() != 2 {
		t.Errorf("got %v, want a↔b with cosine 1 only", dense(w))
	}
}

func TestRowNormalizeSymmetrizeCounts(t *testing.T) {
	// 0→1 (2), 0→2 (2), 1→0 (1), 3 has no links, 2→2 self-loop (5).
	w := matrix.NewCSR(4, 4, []int{0, 2, 3, 4, 4}, []int32{1, 2, 0, 2}, []float64{2, 2, 1, 5})
	p := RowNormalize(w)
	wantP := [][]float64{{0, .5, .5, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}}
	s := Symmetrize(w)
	wantS := [][]float64{{0, 1.5, 1, 0}, {1.5, 0, 0, 0}, {1, 0, 5, 0}, {0, 0, 0, 0}}
	tests := []struct {
		name string
		got  *matrix.CSR
		want [][]float64
	}{{"RowNormalize", p, wantP}, {"Symmetrize", s, wantS}}
	for _, tt := range tests {
		if err := tt.got.Check(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if g := dense(tt.got); fmt.Sprint(g) != fmt.Sprint(tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, g, tt.want)
		}
	}
	n, links, pairs := Counts(w)
	if n != 4 || links != 3 || pairs != 2 {
		t.Errorf("Counts = %d, %d, %d; want 4 nodes, 3 links (self-loop not counted), 2 pairs", n, links, pairs)
	}
	r := Resize(w, 6)
	if err := r.Check(); err != nil || r.R != 6 || r.NNZ() != w.NNZ() {
		t.Errorf("Resize: %v, %d×%d nnz %d", err, r.R, r.C, r.NNZ())
	}
}

// bruteMutualKNN computes the mutual kNN graph from explicit distances.
func bruteMutualKNN(v []float64, d, L, k int) [][]bool {
	knn := make([]map[int]bool, d)
	for j := 0; j < d; j++ {
		type c struct {
			l    int
			dist float64
		}
		var cs []c
		for l := 0; l < d; l++ {
			if l == j {
				continue
			}
			s := 0.0
			for i := 0; i < L; i++ {
				e := v[j*L+i] - v[l*L+i]
				s += e * e
			}
			cs = append(cs, c{l, s})
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].dist < cs[b].dist })
		knn[j] = map[int]bool{}
		for t := 0; t < k && t < len(cs); t++ {
			knn[j][cs[t].l] = true
		}
	}
	out := make([][]bool, d)
	for j := range out {
		out[j] = make([]bool, d)
		for l := range knn[j] {
			out[j][l] = knn[l][j]
		}
	}
	return out
}

func TestCorrelations(t *testing.T) {
	x := randomCSR(60, 10, 0.4, 7)
	X := dense(x)
	cols := []int{2, 5, 7}
	got := Correlations(x, cols)
	for j := 0; j < 10; j++ {
		for l, jl := range cols {
			// Pearson correlation by the textbook formula.
			var mj, ml float64
			for i := range X {
				mj += X[i][j]
				ml += X[i][jl]
			}
			mj /= 60
			ml /= 60
			var sjl, sjj, sll float64
			for i := range X {
				sjl += (X[i][j] - mj) * (X[i][jl] - ml)
				sjj += (X[i][j] - mj) * (X[i][j] - mj)
				sll += (X[i][jl] - ml) * (X[i][jl] - ml)
			}
			want := sjl / math.Sqrt(sjj*sll)
			if math.Abs(got[j*3+l]-want) > 1e-12 {
				t.Errorf("corr(%d,%d) = %v, want %v", j, jl, got[j*3+l], want)
			}
		}
	}
}

func TestLexiconCorrelationBruteForce(t *testing.T) {
	tests := []struct {
		r, c   int
		cols   []int
		k      int
		cosine bool
	}{
		{80, 30, []int{0, 3, 9, 17}, 5, false},
		{80, 30, []int{0, 3, 9, 17}, 5, true},
		{100, 150, []int{1, 2, 3, 50, 70, 90, 120}, 10, false}, // more than one BLAS block
		{40, 12, []int{4}, 20, false},                          // k ≥ d−1: complete graph
	}
	for _, tt := range tests {
		x := randomCSR(tt.r, tt.c, 0.3, uint64(tt.c+tt.k))
		w, err := LexiconCorrelation(context.Background(), x, tt.cols, tt.k, tt.cosine)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		v := Correlations(x, tt.cols)
		L := len(tt.cols)
		if tt.cosine {
			for j := 0; j < tt.c; j++ {
				s := 0.0
				for _, e := range v[j*L : (j+1)*L] {
					s += e * e
				}
				for i := j * L; i < (j+1)*L; i++ {
					v[i] /= math.Sqrt(s)
				}
			}
		}
		want := bruteMutualKNN(v, tt.c, L, tt.k)
		edges := 0
		for j := 0; j < tt.c; j++ {
			for l := 0; l < tt.c; l++ {
				g := w.At(j, l)
				if (g == 1) != want[j][l] || g != 0 && g != 1 {
					t.Errorf("%+v: W[%d,%d] = %v, want link %v", tt, j, l, g, want[j][l])
				}
				if g != w.At(l, j) {
					t.Errorf("%+v: not symmetric at %d,%d", tt, j, l)
				}
				if g != 0 {
					edges++
				}
			}
			if w.At(j, j) != 0 {
				t.Errorf("%+v: self-loop at %d", tt, j)
			}
		}
		if tt.k >= tt.c-1 && edges != tt.c*(tt.c-1) {
			t.Errorf("%+v: %d links, want the complete graph %d", tt, edges, tt.c*(tt.c-1))
		}
	}
}

func TestMaxHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 3, 10, 50} {
		h := &maxHeap{}
		h.reset(k)
		type pair struct {
			d float64
			i int
		}
		var all []pair
		for i := 0; i < 40; i++ {
			d := float64(rng.IntN(8)) // many ties
			all = append(all, pair{d, i})
			h.offer(d, i)
		}
		slices.SortStableFunc(all, func(a, b pair) int {
			if a.d != b.d {
				return int(a.d - b.d)
			}
			return a.i - b.i
		})
		var want []int
		for t := 0; t < k && t < len(all); t++ {
			want = append(want, all[t].i)
		}
		slices.Sort(want)
		if got := h.sorted(); !slices.Equal(got, want) {
			t.Errorf("k=%d: %v, want %v", k, got, want)
		}
	}
}

// apply runs a registered transform with defaults overridden by over.
func apply(t testing.TB, name string, d *datasets.Dataset, over param.Values) *datasets.Dataset {
	t.Helper()
	tr, err := datasets.LookupTransform(name)
	if err != nil {
		t.Fatal(err)
	}
	p := param.Defaults(tr.Params)
	for k, v := range over {
		p[k] = v
	}
	out, err := tr.Apply(context.Background(), datasets.Env{}, d, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLexiconClassesLayout(t *testing.T) {
	feats := []string{"awful", "bad", "camera", "excellent", "good", "lens"}
	x := randomCSR(10, len(feats), 0.5, 9)
	d := &datasets.Dataset{Name: "toy", X: x, Y: make([]float64, 10), Classes: []string{"n", "p"}, Features: feats}
	for _, dis := range []bool{false, true} {
		out := apply(t, "lexicon-classes", d, param.Values{"dissimilarity": dis, "dissimilarity_weight": 2.0})
		w := out.Graphs[Feature]
		// Virtual 6 = positive, 7 = negative.
		want := map[[2]int]float64{{0, 7}: 1, {1, 7}: 1, {3, 6}: 1, {4, 6}: 1}
		if w.R != 8 || w.C != 8 || w.NNZ() != len(want) {
			t.Fatalf("feature graph %d×%d with %d links, want 8×8 with %d", w.R, w.C, w.NNZ(), len(want))
		}
		for e, v := range want {
			if w.At(e[0], e[1]) != v {
				t.Errorf("W[%d,%d] = %v, want %v", e[0], e[1], w.At(e[0], e[1]), v)
			}
		}
		if out.Stats["graph.virtual"] != 2 || out.Stats["graph.nodes"] != 8 || out.Stats["graph.edges"] != 4 ||
			out.Stats["graph.class.positive"] != 2 || out.Stats["graph.class.negative"] != 2 {
			t.Errorf("stats %v", out.Stats)
		}
		q := out.Graphs[Dissimilarity]
		if !dis {
			if q != nil {
				t.Error("dissimilarity graph without dissimilarity")
			}
			continue
		}
		if q == nil || q.R != 8 || q.NNZ() != 2 || q.At(6, 7) != 2 || q.At(7, 6) != 2 {
			t.Errorf("dissimilarity graph %v, want 6↔7 with weight 2", q)
		}
		if d.Graphs != nil || d.Stats != nil {
			t.Error("transform changed its input")
		}
	}
}

// TestClassMeans checks the property the class construction relies on: if
// only the class links are penalised, the penalty Σ_j (w_j − Σ_k P_jk w_k)²
// over the member features is minimised over the virtual weight by the
// mean of the class members' weights.
func TestClassMeans(t *testing.T) {
	feats := []string{"awful", "bad", "excellent", "good", "great", "zebra"}
	d := &datasets.Dataset{Name: "toy", X: randomCSR(5, 6, 0.5, 2), Y: make([]float64, 5), Features: feats}
	out := apply(t, "lexicon-classes", d, nil)
	p := RowNormalize(out.Graphs[Feature])
	w := []float64{-1, -3, 2, 4, 9, 7, 0, 0}
	// Minimise over virtual weights v (indices 6, 7) by a fine scan.
	for c, members := range map[int][]int{6: {2, 3, 4}, 7: {0, 1}} {
		mean := 0.0
		for _, j := range members {
			mean += w[j]
		}
		mean /= float64(len(members))
		best, bestV := math.Inf(1), 0.0
		for v := -10.0; v <= 10; v += 0.001 {
			w[c] = v
			pen := 0.0
			for _, j := range members {
				pw := 0.0
				p.Row(j, func(l int, x float64) { pw += x * w[l] })
				pen += (w[j] - pw) * (w[j] - pw)
			}
			if pen < best {
				best, bestV = pen, v
			}
		}
		if math.Abs(bestV-mean) > 1e-3 {
			t.Errorf("class %d: optimal virtual weight %v, want the class mean %v", c, bestV, mean)
		}
	}
}

func TestLexiconClassesKeepsGraph(t *testing.T) {
	feats := []string{"bad", "camera", "good"}
	x := matrix.NewCSR(2, 3, []int{0, 2, 3}, []int32{0, 1, 2}, []float64{1, 1, 1})
	g := matrix.NewCSR(3, 3, []int{0, 1, 2, 2}, []int32{1, 0}, []float64{0.5, 0.5})
	d := &datasets.Dataset{Name: "toy", X: x, Y: []float64{0, 1}, Features: feats, Graphs: map[string]*matrix.CSR{Feature: g}}
	out := apply(t, "lexicon-classes", d, param.Values{"dissimilarity": true})
	w := out.Graphs[Feature]
	if w.R != 5 || w.At(0, 1) != 0.5 || w.At(1, 0) != 0.5 || w.At(2, 3) != 1 || w.At(0, 4) != 1 {
		t.Errorf("combined graph %v", dense(w))
	}
}

func TestTransformsStats(t *testing.T) {
	x := randomCSR(200, 60, 0.15, 11)
	feats := make([]string, 60)
	for j := range feats {
		feats[j] = fmt.Sprintf("w%02d", j)
	}
	feats[0], feats[1], feats[2] = "bad", "excellent", "good"
	d := &datasets.Dataset{Name: "toy", X: x, Y: make([]float64, 200), Classes: []string{"a", "b"}, Features: feats}
	co := apply(t, "cooccurrence-graph", d, param.Values{"k": 5, "threshold": 0.05})
	lc := apply(t, "lexicon-correlation", d, param.Values{"k": 10, "min_count": 5})
	for name, out := range map[string]*datasets.Dataset{"cooccurrence": co, "correlation": lc} {
		w := out.Graphs[Feature]
		if out.Stats["graph.nodes"] != 60 || out.Stats["graph.edges"] != float64(w.NNZ()) || out.Stats["graph.virtual"] != 0 || len(out.Notes) != 1 {
			t.Errorf("%s: stats %v notes %v", name, out.Stats, out.Notes)
		}
	}
	if lc.Stats["graph.lexicon_words"] != 3 || lc.Stats["graph.edges"] != 2*lc.Stats["graph.edges.undirected"] {
		t.Errorf("correlation stats %v", lc.Stats)
	}
	// Labels must not matter.
	d2 := *d
	d2.Y = make([]float64, 200)
	for i := range d2.Y {
		d2.Y[i] = float64(i % 2)
	}
	co2 := apply(t, "cooccurrence-graph", &d2, param.Values{"k": 5, "threshold": 0.05})
	if fmt.Sprint(dense(co2.Graphs[Feature])) != fmt.Sprint(dense(co.Graphs[Feature])) {
		t.Error("co-occurrence graph depends on labels")
	}
}

func ExampleRowNormalize() {
	w := matrix.NewCSR(2, 2, []int{0, 2, 2}, []int32{0, 1}, []float64{1, 3})
	p := RowNormalize(w)
	fmt.Println(p.Val, p.Ptr)
	// Output: [0.25 0.75] [0 2 2]
}

// TestDeterministicAcrossProcs checks that the parallel graph builders give
// the same graph whatever the number of goroutines.
func TestDeterministicAcrossProcs(t *testing.T) {
	x := zipfCSR(300, 400, 30, 5)
	cols := []int{1, 2, 3, 5, 8, 13, 21, 34}
	build := func() (string, string) {
		a, err := Cooccurrence(context.Background(), x, 7, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		b, err := LexiconCorrelation(context.Background(), x, cols, 9, false)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(a.Ptr, a.Ind, a.Val), fmt.Sprint(b.Ptr, b.Ind)
	}
	prev := runtime.GOMAXPROCS(1)
	a1, b1 := build()
	runtime.GOMAXPROCS(4)
	a4, b4 := build()
	runtime.GOMAXPROCS(prev)
	if a1 != a4 || b1 != b4 {
		t.Error("graph depends on the number of goroutines")
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := zipfCSR(100, 3000, 20, 6)
	if _, err := Cooccurrence(ctx, x, 5, 0.1); err == nil {
		t.Error("Cooccurrence: no error after cancel")
	}
	if _, err := LexiconCorrelation(ctx, x, []int{1, 2}, 5, false); err == nil {
		t.Error("LexiconCorrelation: no error after cancel")
	}
}

func ExampleCooccurrence() {
	// Four documents over the words a, b, c: a and b always appear
	// together; c appears with a once.
	x := matrix.NewCSR(4, 3, []int{0, 2, 4, 6, 7},
		[]int32{0, 1, 0, 1, 0, 2, 2},
		[]float64{1, 1, 1, 1, 1, 1, 1})
	w, _ := Cooccurrence(context.Background(), x, 1, 0.1)
	for j := 0; j < 3; j++ {
		w.Row(j, func(l int, v float64) { fmt.Printf("%d → %d  %.3f\n", j, l, v) })
	}
	// Output:
	// 0 → 1  0.816
	// 1 → 0  0.816
	// 2 → 0  0.408
}

func ExampleFeatureClasses() {
	// Features 0 and 2 are positive words, 1 is negative: virtual features 3
	// (positive) and 4 (negative), and a dissimilarity edge between them.
	pos := map[int]bool{0: true, 2: true}
	member := func(j, c int) bool { return pos[j] == (c == 0) }
	w, q, sizes := FeatureClasses(3, nil, nil, member, 2, true, 1)
	fmt.Println(w.R, w.Ptr, w.Ind, sizes)
	fmt.Println(q.Ptr, q.Ind)
	// Output:
	// 5 [0 1 2 3 3 3] [3 4 3] [2 1]
	// [0 0 0 0 1 2] [4 3]
}
