package graph

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/lexicon"
	"github.com/repro-ml/repro/matrix"
)

func init() {
	datasets.RegisterTypedTransform("lexicon-correlation", datasets.TypedTransform[lexcorrParams]{
		Doc:     "feature graph: each feature as its vector of correlations with the lexicon words; features linked if each is among the other's k nearest (mutual kNN), weight 1",
		Apply:   applyLexiconCorrelation,
		Memory:  lexcorrMemory,
		Learns:  true,
		Version: 1,
	})
}

// lexcorrParams are the parameters of lexicon-correlation; the choices of lexicon are
// lexicon.Names().
type lexcorrParams struct {
	Lexicon  string  `param:"lexicon" enum:"afinn|bing" default:"bing" doc:"embedded sentiment lexicon giving the charged words (SentiWordNet is not available)"`
	MinScore float64 `param:"min_score" range:"(0, +inf)" default:"1" doc:"lexicon words with |polarity| ≥ min_score (AFINN scores are −5…5)"`
	MinCount int     `param:"min_count" range:"[1, +inf)" default:"10" doc:"lexicon words present in at least this many documents (Sandler et al.: occurring ≥ 100 times in their larger corpus)"`
	MaxWords int     `param:"max_words" range:"[0, +inf)" default:"200" doc:"if positive, keep only the lexicon words in the most documents, ties alphabetical (Sandler et al.: about 200); 0 = all"`
	K        int     `param:"k" range:"[1, +inf)" default:"100" doc:"neighbours per feature (Sandler et al.: 100)"`
	Metric   string  `param:"metric" enum:"euclidean|cosine" default:"euclidean" doc:"distance between correlation vectors (the paper says distances: euclidean)"`
}

func applyLexiconCorrelation(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p lexcorrParams) (*datasets.Dataset, error) {
	lex := p.Lexicon
	classes, err := lexicon.Classes(lex, p.MinScore)
	if err != nil {
		return nil, fmt.Errorf("lexicon-correlation: %w", err)
	}
	if d.Features == nil {
		return nil, fmt.Errorf("lexicon-correlation: dataset %q has no feature names to look up in the lexicon", d.Name)
	}
	charged := map[string]bool{}
	for _, ws := range classes {
		for _, w := range ws {
			charged[w] = true
		}
	}
	b := presence(d.X)
	bt := b.T()
	df := func(j int) int { return bt.Ptr[j+1] - bt.Ptr[j] }
	var cols []int
	for j, f := range d.Features {
		if charged[f] && df(j) >= p.MinCount {
			cols = append(cols, j)
		}
	}
	if mw := p.MaxWords; mw > 0 && len(cols) > mw {
		sort.SliceStable(cols, func(a, b int) bool { return df(cols[a]) > df(cols[b]) })
		cols = cols[:mw]
		sort.Ints(cols)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("lexicon-correlation: no %s lexicon word is among the features in ≥ %d documents", lex, p.MinCount)
	}
	k := p.K
	w, err := LexiconCorrelation(ctx, d.X, cols, k, p.Metric == "cosine")
	if err != nil {
		return nil, fmt.Errorf("lexicon-correlation: %w", err)
	}
	out := withGraphs(d)
	out.Graphs[Feature] = w
	delete(out.Graphs, Dissimilarity)
	setStats(out)
	out.Stats["graph.lexicon_words"] = float64(len(cols))
	out.Notes = append(out.Notes, fmt.Sprintf(
		"feature graph (lexicon correlation): each of the %d features is its vector of Pearson correlations, over all %d documents (no labels), with the %d %s lexicon words (SentiWordNet unavailable) present in ≥ %d documents; features linked (weight 1) when each is among the other's %d nearest by %s distance: %d undirected edges, %d features without links",
		d.Cols(), d.Rows(), len(cols), lex, p.MinCount, k, p.Metric, int(out.Stats["graph.edges.undirected"]), int(out.Stats["graph.no_out_links"])))
	return out, nil
}

// Correlations returns the d×L row-major matrix of Pearson correlations,
// over the rows of x, between every column of x and the columns cols. A
// correlation with a constant column is 0.
func Correlations(x matrix.Matrix, cols []int) []float64 {
	c := matrix.ToCSR(x)
	n, d := c.Dims()
	L := len(cols)
	mean := matrix.ColumnMeans(c)
	std := matrix.ColumnStds(c)
	pos := make([]int, d)
	for j := range pos {
		pos[j] = -1
	}
	for l, j := range cols {
		pos[j] = l
	}
	s := make([]float64, d*L)
	type lv struct {
		l int
		v float64
	}
	var li []lv
	for i := 0; i < n; i++ {
		li = li[:0]
		for k := c.Ptr[i]; k < c.Ptr[i+1]; k++ {
			if l := pos[c.Ind[k]]; l >= 0 {
				li = append(li, lv{l, c.Val[k]})
			}
		}
		if len(li) == 0 {
			continue
		}
		for k := c.Ptr[i]; k < c.Ptr[i+1]; k++ {
			row := s[int(c.Ind[k])*L : (int(c.Ind[k])+1)*L]
			xv := c.Val[k]
			for _, e := range li {
				row[e.l] += xv * e.v
			}
		}
	}
	fn := float64(n)
	for j := 0; j < d; j++ {
		for l, jl := range cols {
			den := std[j] * std[jl]
			if den == 0 {
				s[j*L+l] = 0
				continue
			}
			s[j*L+l] = (s[j*L+l]/fn - mean[j]*mean[jl]) / den
		}
	}
	return s
}

// LexiconCorrelation returns the mutual k-nearest-neighbour graph of the
// columns of x described by their correlations with the columns cols (see
// Correlations): j and l are linked, with weight 1 in both directions, when
// each is among the other's k nearest by Euclidean distance between their
// correlation vectors (ties broken by lower index), or by cosine distance
// if cosine is set. The result is symmetric with an empty diagonal.
func LexiconCorrelation(ctx context.Context, x matrix.Matrix, cols []int, k int, cosine bool) (*matrix.CSR, error) {
	if k < 1 {
		return nil, fmt.Errorf("k = %d, want ≥ 1", k)
	}
	_, d := x.Dims()
	L := len(cols)
	v := Correlations(x, cols)
	if cosine {
		for j := 0; j < d; j++ {
			row := v[j*L : (j+1)*L]
			s := 0.0
			for _, e := range row {
				s += e * e
			}
			if s > 0 {
				s = 1 / math.Sqrt(s)
				for i := range row {
					row[i] *= s
				}
			}
		}
	}
	knn, err := nearest(ctx, v, d, L, k)
	if err != nil {
		return nil, err
	}
	out := &matrix.CSR{R: d, C: d, Ptr: make([]int, 1, d+1)}
	for j := 0; j < d; j++ {
		for _, l := range knn[j] {
			if _, found := slices.BinarySearch(knn[l], j); found {
				out.Ind = append(out.Ind, int32(l))
				out.Val = append(out.Val, 1)
			}
		}
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	return out, nil
}

// nearest returns, for each of the d row vectors of v (d×L row-major), the
// indices of its k nearest other rows by Euclidean distance, sorted by
// index. Squared distances are ‖a‖² + ‖b‖² − 2a·b with the dot products
// computed block by block with BLAS.
func nearest(ctx context.Context, v []float64, d, L, k int) ([][]int, error) {
	k = min(k, d-1)
	norm := make([]float64, d)
	for j := 0; j < d; j++ {
		for _, e := range v[j*L : (j+1)*L] {
			norm[j] += e * e
		}
	}
	all := blas64.General{Rows: d, Cols: L, Stride: L, Data: v}
	out := make([][]int, d)
	const block = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Bool
	workers := min(runtime.GOMAXPROCS(0), (d+block-1)/block)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := make([]float64, block*d)
			h := &maxHeap{}
			for {
				lo := int(next.Add(block)) - block
				if lo >= d || failed.Load() {
					return
				}
				if ctx.Err() != nil {
					failed.Store(true)
					return
				}
				hi := min(lo+block, d)
				a := blas64.General{Rows: hi - lo, Cols: L, Stride: L, Data: v[lo*L : hi*L]}
				c := blas64.General{Rows: hi - lo, Cols: d, Stride: d, Data: g[:(hi-lo)*d]}
				if L > 0 {
					blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, all, 0, c)
				}
				for j := lo; j < hi; j++ {
					row := c.Data[(j-lo)*d : (j-lo+1)*d]
					h.reset(k)
					for l := 0; l < d; l++ {
						if l != j {
							h.offer(norm[j]+norm[l]-2*row[l], l)
						}
					}
					out[j] = h.sorted()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// maxHeap keeps the k smallest (distance, index) pairs offered, the
// largest on top; pairs compare by distance, then by index.
type maxHeap struct {
	k   int
	d   []float64
	idx []int
}

func (h *maxHeap) reset(k int) { h.k, h.d, h.idx = k, h.d[:0], h.idx[:0] }

func (h *maxHeap) less(a, b int) bool { // a is "larger" than b
	return h.d[a] > h.d[b] || h.d[a] == h.d[b] && h.idx[a] > h.idx[b]
}

func (h *maxHeap) offer(dist float64, i int) {
	if len(h.d) < h.k {
		h.d, h.idx = append(h.d, dist), append(h.idx, i)
		for c := len(h.d) - 1; c > 0; {
			p := (c - 1) / 2
			if !h.less(c, p) {
				break
			}
			h.swap(c, p)
			c = p
		}
		return
	}
	if h.k == 0 || dist > h.d[0] || dist == h.d[0] && i > h.idx[0] {
		return
	}
	h.d[0], h.idx[0] = dist, i
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(h.d) {
			break
		}
		if c+1 < len(h.d) && h.less(c+1, c) {
			c++
		}
		if !h.less(c, p) {
			break
		}
		h.swap(c, p)
		p = c
	}
}

func (h *maxHeap) swap(a, b int) {
	h.d[a], h.d[b] = h.d[b], h.d[a]
	h.idx[a], h.idx[b] = h.idx[b], h.idx[a]
}

func (h *maxHeap) sorted() []int {
	out := slices.Clone(h.idx)
	slices.Sort(out)
	return out
}
