package matrix

// SparseDot returns Σₖ val[k]·x[ind[k]], the dot product of a sparse
// vector (its non-zeros val at the indices ind, len(ind) = len(val)) with
// the dense x. It keeps four partial sums, so that the additions do not
// wait on each other (a column of 20 Newsgroups has about 76 non-zeros;
// a single-sum loop is bound by the adds' latency), and adds them as
// (s0+s1)+(s2+s3): the order, and so the rounding, is fixed.
func SparseDot(ind []int32, val, x []float64) float64 {
	val = val[:len(ind)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(ind); k += 4 {
		s0 += val[k] * x[ind[k]]
		s1 += val[k+1] * x[ind[k+1]]
		s2 += val[k+2] * x[ind[k+2]]
		s3 += val[k+3] * x[ind[k+3]]
	}
	for ; k < len(ind); k++ {
		s0 += val[k] * x[ind[k]]
	}
	return (s0 + s1) + (s2 + s3)
}

// SparseAxpy adds a·val[k] to dst[ind[k]] for every k: dst += a·v for the
// sparse vector v (its non-zeros val at the indices ind, len(ind) =
// len(val), no index repeated, as in a row or column of a CSR matrix). It
// takes four entries at a time, so that the loads of one do not wait on
// the store of the one before; each entry's sum is the plain loop's.
func SparseAxpy(dst []float64, a float64, ind []int32, val []float64) {
	val = val[:len(ind)]
	k := 0
	for ; k+4 <= len(ind); k += 4 {
		j0, j1, j2, j3 := ind[k], ind[k+1], ind[k+2], ind[k+3]
		v0, v1, v2, v3 := a*val[k], a*val[k+1], a*val[k+2], a*val[k+3]
		dst[j0] += v0
		dst[j1] += v1
		dst[j2] += v2
		dst[j3] += v3
	}
	for ; k < len(ind); k++ {
		dst[ind[k]] += a * val[k]
	}
}
