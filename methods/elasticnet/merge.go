package elasticnet

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
)

// groups maps a Problem's columns, after merging identical ones, back to
// the columns of its data: internal column g stands for the columns
// cols[ptr[g]:ptr[g+1]] (increasing), each of which gets the coefficient
// factor[g]·γ_g of the internal column's γ_g.
type groups struct {
	ptr    []int
	cols   []int32
	factor []float64
}

// each calls f with the data columns of internal column g and their
// coefficient factor.
func (p *Problem) each(g int, f func(j int, factor float64)) {
	if p.grp == nil {
		f(g, 1)
		return
	}
	fc := p.grp.factor[g]
	for _, j := range p.grp.cols[p.grp.ptr[g]:p.grp.ptr[g+1]] {
		f(int(j), fc)
	}
}

// first returns the first data column of internal column g and its
// coefficient factor.
func (p *Problem) first(g int) (int, float64) {
	if p.grp == nil {
		return g, 1
	}
	return int(p.grp.cols[p.grp.ptr[g]]), p.grp.factor[g]
}

// mergeIdentical replaces the m > 1 usable columns that are identical
// after scaling (the same rows, the same values, bit for bit) by one
// column, scaled by √m. For the ridge penalty (α = 0) the problem is then
// the same: the penalty is strictly convex, so the solution gives
// identical columns equal coefficients β̃, and m columns x̃ with
// coefficient β̃ each are one column √m·x̃ with coefficient γ = √m·β̃ and
// penalty γ²/2 = m·β̃²/2. (With an L1 part the merged column would need
// a penalty factor of √m on |γ|, which the solver does not have: the
// merge is for α = 0 only.)
//
// Identical columns are common where it matters: k-gram features of a
// small training set, where every k-gram seen in one document only is,
// once the columns are standardized, the same column as every other such
// k-gram of that document. Paskov et al.'s Fig. 4 (5-grams of up to 1,000
// documents, L2) is most of its run in this solver without the merge.
// Columns are compared in the order of their hash, the merged column takes
// the place of the first of its columns, and a column that has no twin is
// kept bit for bit, so a problem without identical columns is unchanged.
// It allocates at most mergeBytes.
func (p *Problem) mergeIdentical() {
	d := len(p.ptr) - 1
	hashes := make([]uint64, d)
	order := make([]int32, 0, d)
	var h maphash.Hash // a random seed: only equal columns need equal hashes
	for j := 0; j < d; j++ {
		if !p.use[j] {
			continue
		}
		h.Reset()
		lo, hi := p.ptr[j], p.ptr[j+1]
		var b [8]byte
		for t := lo; t < hi; t++ {
			binary.LittleEndian.PutUint64(b[:], uint64(p.ind[t]))
			h.Write(b[:])
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(p.val[t]))
			h.Write(b[:])
		}
		hashes[j] = h.Sum64()
		order = append(order, int32(j))
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(hashes[a], hashes[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	// leader[j]: the first column identical to j (j itself for a leader).
	leader := make([]int32, d)
	for j := range leader {
		leader[j] = int32(j)
	}
	merged := false
	for s := 0; s < len(order); {
		e := s + 1
		for e < len(order) && hashes[order[e]] == hashes[order[s]] {
			e++
		}
		run := order[s:e]
		for a, ja := range run {
			if leader[ja] != ja {
				continue
			}
			for _, jb := range run[a+1:] {
				if leader[jb] == jb && p.sameColumn(int(ja), int(jb)) {
					leader[jb] = ja
					merged = true
				}
			}
		}
		s = e
	}
	if !merged {
		return
	}
	hashes, order = nil, nil
	// Internal columns in the order of their leaders: leader[j] becomes
	// j's internal column, in place (a leader comes before its twins).
	G := 0
	for j := 0; j < d; j++ {
		if int(leader[j]) == j {
			leader[j] = int32(G)
			G++
		} else {
			leader[j] = leader[leader[j]]
		}
	}
	gid := leader
	count := make([]int32, G)
	for _, g := range gid {
		count[g]++
	}
	grp := &groups{ptr: make([]int, G+1), cols: make([]int32, d), factor: make([]float64, G)}
	for g, c := range count {
		grp.ptr[g+1] = grp.ptr[g] + int(c)
		grp.factor[g] = 1
		if c > 1 {
			grp.factor[g] = 1 / math.Sqrt(float64(c))
		}
	}
	for j, g := range gid {
		grp.cols[grp.ptr[g+1]-int(count[g])] = int32(j)
		count[g]--
	}
	ptr := make([]int, G+1)
	nnz := 0
	for g := range G {
		j := grp.cols[grp.ptr[g]]
		nnz += p.ptr[j+1] - p.ptr[j]
	}
	ind := make([]int32, 0, nnz)
	val := make([]float64, 0, nnz)
	use := make([]bool, G)
	for g := range G {
		j := grp.cols[grp.ptr[g]]
		lo, hi := p.ptr[j], p.ptr[j+1]
		ind = append(ind, p.ind[lo:hi]...)
		if c := grp.ptr[g+1] - grp.ptr[g]; c > 1 {
			r := math.Sqrt(float64(c))
			for _, v := range p.val[lo:hi] {
				val = append(val, v*r)
			}
		} else {
			val = append(val, p.val[lo:hi]...)
		}
		ptr[g+1] = len(ind)
		use[g] = p.use[j]
	}
	p.ptr, p.ind, p.val, p.use, p.d, p.grp = ptr, ind, val, use, G, grp
}

// mergeBytes bounds what mergeIdentical allocates for d columns and nnz
// non-zeros: a hash, a position and a leader per column (16 bytes), the
// groups (a column index each, 4 bytes; per group a count, a start, a
// factor, the new column start and flag, 29 bytes, at most one group a
// column) and the merged columns' non-zeros (12 bytes each).
func mergeBytes(d, nnz int) int64 {
	return int64(16+4+29)*int64(d) + 12*int64(nnz)
}

// sameColumn reports whether columns a and b have the same non-zeros.
func (p *Problem) sameColumn(a, b int) bool {
	la, ha := p.ptr[a], p.ptr[a+1]
	lb, hb := p.ptr[b], p.ptr[b+1]
	if ha-la != hb-lb {
		return false
	}
	return slices.Equal(p.ind[la:ha], p.ind[lb:hb]) && slices.Equal(p.val[la:ha], p.val[lb:hb])
}
