package graph

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func init() {
	datasets.RegisterTypedTransform("cooccurrence-graph", datasets.TypedTransform[coocParams]{
		Doc:     "feature graph: each feature linked to its k most co-occurring features (cosine of binary document-presence vectors ≥ threshold), weight = cosine",
		Apply:   applyCooccurrence,
		Memory:  coocMemory,
		Learns:  true,
		Version: 1,
	})
}

// coocParams are the parameters of cooccurrence-graph.
type coocParams struct {
	K         int     `param:"k" range:"[1, +inf)" default:"25" doc:"out-links per feature (Sandler et al.: 25)"`
	Threshold float64 `param:"threshold" range:"[0, 1]" default:"0.1" doc:"minimum cosine of a link (Sandler et al.: 0.10)"`
}

func applyCooccurrence(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p coocParams) (*datasets.Dataset, error) {
	k, th := p.K, p.Threshold
	w, err := Cooccurrence(ctx, d.X, k, th)
	if err != nil {
		return nil, fmt.Errorf("cooccurrence-graph: %w", err)
	}
	out := withGraphs(d)
	out.Graphs[Feature] = w
	delete(out.Graphs, Dissimilarity)
	setStats(out)
	out.Notes = append(out.Notes, fmt.Sprintf(
		"feature graph (co-occurrence): each of the %d features is a binary presence vector over all %d documents (train and test, no labels); linked to its %d most similar features by cosine, if cosine ≥ %v; weight = cosine; %d directed links, %d features without links",
		d.Cols(), d.Rows(), k, th, int(out.Stats["graph.edges"]), int(out.Stats["graph.no_out_links"])))
	return out, nil
}

// Cooccurrence returns the directed co-occurrence graph of the columns of x:
// with b_j the 0/1 vector of the rows where column j is non-zero, the
// cosine of features j and l is |b_j ∧ b_l| / √(|b_j| |b_l|); row j links
// j to its k most similar other features (ties broken by lower index)
// among those with cosine ≥ threshold and > 0, with the cosine as weight.
//
// It computes XᵀX sparsely, one feature at a time with a dense
// accumulator, in parallel over features; the result does not depend on
// the number of goroutines.
func Cooccurrence(ctx context.Context, x matrix.Matrix, k int, threshold float64) (*matrix.CSR, error) {
	if k < 1 {
		return nil, fmt.Errorf("k = %d, want ≥ 1", k)
	}
	b := presence(x)
	bt := b.T() // feature j's documents: bt row j
	d := b.C
	df := make([]float64, d)
	for j := 0; j < d; j++ {
		df[j] = float64(bt.Ptr[j+1] - bt.Ptr[j])
	}
	type link struct {
		j int
		w float64
	}
	rows := make([][]link, d)
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), max(1, d/64))
	const chunk = 32
	var cancelled atomic.Bool
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := make([]int32, d)
			var touched []int
			var cand []link
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= d || cancelled.Load() {
					return
				}
				if ctx.Err() != nil {
					cancelled.Store(true)
					return
				}
				for j := lo; j < min(lo+chunk, d); j++ {
					touched = touched[:0]
					for _, i := range bt.Ind[bt.Ptr[j]:bt.Ptr[j+1]] {
						for _, l := range b.Ind[b.Ptr[i]:b.Ptr[i+1]] {
							if acc[l] == 0 {
								touched = append(touched, int(l))
							}
							acc[l]++
						}
					}
					cand = cand[:0]
					for _, l := range touched {
						if l != j {
							c := float64(acc[l]) / math.Sqrt(df[j]*df[l])
							if c >= threshold {
								cand = append(cand, link{l, c})
							}
						}
						acc[l] = 0
					}
					slices.SortFunc(cand, func(a, b link) int {
						switch {
						case a.w > b.w:
							return -1
						case a.w < b.w:
							return 1
						}
						return a.j - b.j
					})
					if len(cand) > k {
						cand = cand[:k]
					}
					row := slices.Clone(cand)
					slices.SortFunc(row, func(a, b link) int { return a.j - b.j })
					rows[j] = row
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	links := 0
	for _, row := range rows {
		links += len(row)
	}
	out := &matrix.CSR{R: d, C: d, Ptr: make([]int, 1, d+1), Ind: make([]int32, 0, links), Val: make([]float64, 0, links)}
	for _, row := range rows {
		for _, e := range row {
			out.Ind = append(out.Ind, int32(e.j))
			out.Val = append(out.Val, e.w)
		}
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	return out, nil
}
