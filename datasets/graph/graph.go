// Package graph builds feature graphs over the columns of a dataset and
// provides the transform plugins "cooccurrence-graph", "lexicon-classes" and
// "lexicon-correlation" (Sandler et al. 2008, §4).
//
// A feature graph is a *matrix.CSR of raw non-negative edge weights, D×D with
// D = d + v ≥ d = the number of columns of X: indices ≥ d are virtual
// features (zero in every row of X). Row j lists j's out-links. Transforms
// store the similarity graph in Dataset.Graphs["feature"] and a dissimilarity
// graph in Dataset.Graphs["dissimilarity"], and record graph.nodes,
// graph.edges and graph.virtual in Dataset.Stats. Methods derive P with
// RowNormalize and a symmetric weight matrix with Symmetrize.
package graph

import (
	"fmt"
	"maps"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// Names of the graphs in Dataset.Graphs.
const (
	Feature       = "feature"
	Dissimilarity = "dissimilarity"
)

// RowNormalize returns W with every row scaled to sum to one: P_jk =
// W_jk / Σ_k W_jk. Rows with no links (or summing to zero) stay zero.
func RowNormalize(w *matrix.CSR) *matrix.CSR {
	out := &matrix.CSR{R: w.R, C: w.C, Ptr: append([]int(nil), w.Ptr...), Ind: append([]int32(nil), w.Ind...), Val: make([]float64, len(w.Val))}
	for i := 0; i < w.R; i++ {
		s := 0.0
		for k := w.Ptr[i]; k < w.Ptr[i+1]; k++ {
			s += w.Val[k]
		}
		if s == 0 {
			continue
		}
		for k := w.Ptr[i]; k < w.Ptr[i+1]; k++ {
			out.Val[k] = w.Val[k] / s
		}
	}
	return out
}

// Symmetrize returns (W + Wᵀ)/2. W must be square.
func Symmetrize(w *matrix.CSR) *matrix.CSR {
	if w.R != w.C {
		panic(fmt.Sprintf("graph: Symmetrize: %d×%d matrix is not square", w.R, w.C))
	}
	return add(w, w.T(), 0.5)
}

// add returns s·(a + b) for matrices of equal shape, merging rows.
func add(a, b *matrix.CSR, s float64) *matrix.CSR {
	out := &matrix.CSR{R: a.R, C: a.C, Ptr: make([]int, 1, a.R+1)}
	for i := 0; i < a.R; i++ {
		ka, kb := a.Ptr[i], b.Ptr[i]
		for ka < a.Ptr[i+1] || kb < b.Ptr[i+1] {
			var j int32
			var v float64
			switch {
			case kb >= b.Ptr[i+1] || ka < a.Ptr[i+1] && a.Ind[ka] < b.Ind[kb]:
				j, v = a.Ind[ka], a.Val[ka]
				ka++
			case ka >= a.Ptr[i+1] || b.Ind[kb] < a.Ind[ka]:
				j, v = b.Ind[kb], b.Val[kb]
				kb++
			default:
				j, v = a.Ind[ka], a.Val[ka]+b.Val[kb]
				ka++
				kb++
			}
			if v != 0 {
				out.Ind = append(out.Ind, j)
				out.Val = append(out.Val, s*v)
			}
		}
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	return out
}

// Counts returns the number of nodes of w, its number of stored (directed)
// links other than self-loops, and the number of unordered pairs {j, k},
// j ≠ k, linked in at least one direction.
func Counts(w *matrix.CSR) (nodes, links, pairs int) {
	t := w.T()
	for i := 0; i < w.R; i++ {
		for k := w.Ptr[i]; k < w.Ptr[i+1]; k++ {
			j := int(w.Ind[k])
			if j == i {
				continue
			}
			links++
			// Count the pair once: from its smaller end, or from the larger
			// end when the reverse link is absent.
			if i < j || t.At(i, j) == 0 {
				pairs++
			}
		}
	}
	return w.R, links, pairs
}

// Resize returns w as an n×n matrix (n ≥ its size): the extra rows and
// columns are empty. w's arrays are shared.
func Resize(w *matrix.CSR, n int) *matrix.CSR {
	if n < w.R || n < w.C {
		panic(fmt.Sprintf("graph: Resize: %d×%d to %d×%d", w.R, w.C, n, n))
	}
	ptr := make([]int, n+1)
	copy(ptr, w.Ptr)
	for i := w.R + 1; i <= n; i++ {
		ptr[i] = w.Ptr[w.R]
	}
	return &matrix.CSR{R: n, C: n, Ptr: ptr, Ind: w.Ind, Val: w.Val}
}

// withGraphs returns a shallow copy of d whose Graphs, Stats and Notes may
// be changed without touching d's.
func withGraphs(d *datasets.Dataset) *datasets.Dataset {
	out := *d
	out.Graphs = maps.Clone(d.Graphs)
	if out.Graphs == nil {
		out.Graphs = map[string]*matrix.CSR{}
	}
	out.Stats = maps.Clone(d.Stats)
	if out.Stats == nil {
		out.Stats = map[string]float64{}
	}
	out.Notes = append([]string(nil), d.Notes...)
	return &out
}

// setStats records the feature graph's size in d.Stats: graph.nodes (D),
// graph.edges (directed links), graph.edges.undirected (linked pairs),
// graph.virtual (D − d) and, if there is a dissimilarity graph,
// graph.dissimilarity.edges.
func setStats(d *datasets.Dataset) {
	if w := d.Graphs[Feature]; w != nil {
		n, links, pairs := Counts(w)
		d.Stats["graph.nodes"] = float64(n)
		d.Stats["graph.edges"] = float64(links)
		d.Stats["graph.edges.undirected"] = float64(pairs)
		d.Stats["graph.virtual"] = float64(n - d.Cols())
		isolated := 0
		for i := 0; i < d.Cols(); i++ {
			if w.Ptr[i] == w.Ptr[i+1] {
				isolated++
			}
		}
		d.Stats["graph.no_out_links"] = float64(isolated)
	}
	if q := d.Graphs[Dissimilarity]; q != nil {
		_, links, _ := Counts(q)
		d.Stats["graph.dissimilarity.edges"] = float64(links)
	}
}

// presence returns the 0/1 pattern of m's non-zeros as a CSR matrix.
func presence(m matrix.Matrix) *matrix.CSR {
	c := matrix.ToCSR(m)
	out := &matrix.CSR{R: c.R, C: c.C, Ptr: make([]int, 1, c.R+1), Ind: make([]int32, 0, len(c.Ind)), Val: make([]float64, 0, len(c.Val))}
	for i := 0; i < c.R; i++ {
		for k := c.Ptr[i]; k < c.Ptr[i+1]; k++ {
			if c.Val[k] != 0 && !math.IsNaN(c.Val[k]) {
				out.Ind = append(out.Ind, c.Ind[k])
				out.Val = append(out.Val, 1)
			}
		}
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	return out
}
