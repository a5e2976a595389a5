package fnr

import (
	"fmt"
	"math"

	"github.com/repro-ml/repro/matrix"
)

// checkGraph returns an error if g is not a square matrix of finite
// non-negative weights.
func checkGraph(g *matrix.CSR) error {
	if g.R != g.C {
		return fmt.Errorf("graph is %d×%d, want square", g.R, g.C)
	}
	for _, v := range g.Val {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("graph has weight %v, want finite and non-negative", v)
		}
	}
	return nil
}

// NetworkResidual returns the matrix B whose rows are (e_j − P_j) for every
// feature j of g with at least one out-link, P being g row-normalized:
// ‖B w‖² = Σ_j (w_j − Σ_k P_jk w_k)², the network term of Sandler et al.'s
// eq. (1). Features without out-links (virtual features, words with no
// neighbour above threshold) contribute no term: their weights are held by
// the ridge term only, which is what makes a virtual feature's weight the
// mean of its class (§3.1).
func NetworkResidual(g *matrix.CSR) *matrix.CSR { return residual(g, -1) }

// DissimilarityResidual returns B with rows (e_j + Q_j) for every feature j
// of q with at least one link, Q being q row-normalized: ‖B w‖² =
// Σ_j (w_j + Σ_k Q_jk w_k)², the dissimilarity term of §3.2 restricted to
// features that have dissimilarity links.
func DissimilarityResidual(q *matrix.CSR) *matrix.CSR { return residual(q, +1) }

func residual(g *matrix.CSR, sign float64) *matrix.CSR {
	D := g.C
	out := &matrix.CSR{C: D, Ptr: []int{0}}
	for j := 0; j < g.R; j++ {
		lo, hi := g.Ptr[j], g.Ptr[j+1]
		sum := 0.0
		for k := lo; k < hi; k++ {
			sum += g.Val[k]
		}
		if sum <= 0 {
			continue
		}
		diag := false
		for k := lo; k < hi; k++ {
			c := int(g.Ind[k])
			if !diag && c > j {
				out.Ind = append(out.Ind, int32(j))
				out.Val = append(out.Val, 1)
				diag = true
			}
			v := sign * g.Val[k] / sum
			if c == j {
				v += 1
				diag = true
			}
			out.Ind = append(out.Ind, int32(c))
			out.Val = append(out.Val, v)
		}
		if !diag {
			out.Ind = append(out.Ind, int32(j))
			out.Val = append(out.Val, 1)
		}
		out.R++
		out.Ptr = append(out.Ptr, len(out.Ind))
	}
	return out
}

// symmetrize returns (W + Wᵀ)/2.
func symmetrize(w *matrix.CSR) *matrix.CSR {
	t := w.T()
	b := matrix.NewBuilder(w.C)
	for i := 0; i < w.R; i++ {
		for k := w.Ptr[i]; k < w.Ptr[i+1]; k++ {
			b.Add(int(w.Ind[k]), w.Val[k]/2)
		}
		for k := t.Ptr[i]; k < t.Ptr[i+1]; k++ {
			b.Add(int(t.Ind[k]), t.Val[k]/2)
		}
		b.EndRow()
	}
	return b.Build()
}

// LaplacianResidual returns the edge-incidence matrix B of the symmetrized
// graph S = (W+Wᵀ)/2, one row √S_ij (e_i − e_j) per edge i < j, so that
// ‖B w‖² = ½ Σ_ij S_ij (w_i − w_j)² = wᵀ(D − S)w (§3.3). With normalized
// set, the rows are √S_ij (e_i/√D_ii − e_j/√D_jj), giving
// ½ Σ_ij S_ij (w_i/√D_ii − w_j/√D_jj)², the normalized-Laplacian penalty.
// D_ii = Σ_j S_ij includes self-loops, which otherwise contribute nothing.
func LaplacianResidual(w *matrix.CSR, normalized bool) *matrix.CSR {
	s := symmetrize(w)
	scale := make([]float64, s.R)
	for i := range scale {
		scale[i] = 1
		if normalized {
			deg := 0.0
			for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
				deg += s.Val[k]
			}
			if deg > 0 {
				scale[i] = 1 / math.Sqrt(deg)
			}
		}
	}
	out := &matrix.CSR{C: s.C, Ptr: []int{0}}
	for i := 0; i < s.R; i++ {
		for k := s.Ptr[i]; k < s.Ptr[i+1]; k++ {
			j := int(s.Ind[k])
			if j <= i {
				continue
			}
			r := math.Sqrt(s.Val[k])
			out.Ind = append(out.Ind, int32(i), int32(j))
			out.Val = append(out.Val, r*scale[i], -r*scale[j])
			out.R++
			out.Ptr = append(out.Ptr, len(out.Ind))
		}
	}
	return out
}
