package datasets

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// Sampling is how a training sample is drawn from a pool of rows.
type Sampling string

// The sampling schemes of a curve.
const (
	Random     Sampling = "random"     // uniformly, without replacement
	Stratified Sampling = "stratified" // class proportions of the pool kept
	Balanced   Sampling = "balanced"   // the same number of rows per class
)

// Order returns the rows of pool in the order a training sample takes them:
// a training sample of size n is the first n rows of the result. Because
// every size is a prefix of the same order, samples are nested across
// sizes, which makes learning curves paired as well as the methods.
//
// For Random the order is a uniform permutation. For Stratified and
// Balanced (classification only; y holds class indices) rows are
// interleaved class by class so that every prefix keeps the class
// proportions of the pool (Stratified) or equal counts per class while
// every class has rows left (Balanced).
func Order(pool []int, y []float64, k int, s Sampling, seed uint64) ([]int, error) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	perm := append([]int(nil), pool...)
	r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	switch s {
	case Random, "":
		return perm, nil
	case Stratified, Balanced:
		if k <= 0 {
			return nil, fmt.Errorf("%s sampling needs class labels", s)
		}
	default:
		return nil, fmt.Errorf("unknown sampling %q", s)
	}
	byClass := make([][]int, k)
	for _, i := range perm {
		c := int(y[i])
		byClass[c] = append(byClass[c], i)
	}
	out := make([]int, 0, len(perm))
	if s == Balanced {
		// Round robin over classes in a seeded class order.
		classes := r.Perm(k)
		for t := 0; len(out) < len(perm); t++ {
			for _, c := range classes {
				if t < len(byClass[c]) {
					out = append(out, byClass[c][t])
				}
			}
		}
		return out, nil
	}
	// Stratified: at each step take from the class furthest below its
	// share of the prefix (largest-remainder apportionment, deterministic).
	taken := make([]int, k)
	total := float64(len(perm))
	for len(out) < len(perm) {
		best, bestGap := -1, 0.0
		m := float64(len(out) + 1)
		for c := 0; c < k; c++ {
			if taken[c] >= len(byClass[c]) {
				continue
			}
			gap := m*float64(len(byClass[c]))/total - float64(taken[c])
			if best < 0 || gap > bestGap {
				best, bestGap = c, gap
			}
		}
		out = append(out, byClass[best][taken[best]])
		taken[best]++
	}
	return out, nil
}

// Folds splits rows into k folds for cross-validation. With y and classes
// > 0 the folds are stratified. It returns, for each fold, the rows held
// out; the rows of each fold keep the order of rows.
//
// The rows are dealt to the folds in the stratified Order, which
// interleaves the classes. When the classes' period and k share a factor
// (3 balanced classes in 3 folds, 2 in 10), that dealing gives folds
// without some class, which a fit on the other folds never sees: every
// validation score is then 0. Where it would leave a class with at least
// k rows out of some fold, Folds deals as KFolds does instead (each
// class's rows to the folds in turn). Every other case keeps the
// interleaved dealing, so the folds of selections that were sound are
// unchanged.
func Folds(rows []int, y []float64, classes, k int, seed uint64) ([][]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("cross-validation needs at least 2 folds, got %d", k)
	}
	if len(rows) < k {
		return nil, fmt.Errorf("%d-fold cross-validation needs at least %d rows, got %d", k, k, len(rows))
	}
	s := Random
	if classes > 0 {
		s = Stratified
	}
	order, err := Order(rows, y, classes, s, seed)
	if err != nil {
		return nil, err
	}
	pos := make(map[int]int, len(rows))
	for p, i := range rows {
		pos[i] = p
	}
	folds := make([][]int, k)
	for t, i := range order {
		folds[t%k] = append(folds[t%k], i)
	}
	if classes > 0 && missesClass(folds, y, classes) {
		if folds, err = KFolds(rows, y, classes, k, seed); err != nil {
			return nil, err
		}
	}
	for _, f := range folds {
		sort.Slice(f, func(a, b int) bool { return pos[f[a]] < pos[f[b]] })
	}
	return folds, nil
}

// missesClass reports whether some fold lacks a class that has at least
// as many rows as there are folds.
func missesClass(folds [][]int, y []float64, classes int) bool {
	total := make([]int, classes)
	for _, f := range folds {
		for _, i := range f {
			total[int(y[i])]++
		}
	}
	for _, f := range folds {
		in := make([]bool, classes)
		for _, i := range f {
			in[int(y[i])] = true
		}
		for c, n := range total {
			if n >= len(folds) && !in[c] {
				return true
			}
		}
	}
	return false
}

// Complement returns the rows of all that are not in exclude, in order.
func Complement(all, exclude []int) []int {
	ex := make(map[int]bool, len(exclude))
	for _, i := range exclude {
		ex[i] = true
	}
	out := make([]int, 0, len(all)-len(exclude))
	for _, i := range all {
		if !ex[i] {
			out = append(out, i)
		}
	}
	return out
}

// KFolds partitions rows into k folds for k-fold cross-validation, each
// fold sorted. With classes > 0 (y holds class indices) the folds are
// stratified: each class's rows, in a seeded random order, are dealt to
// the folds in turn, continuing from where the previous class stopped, so
// every fold holds ⌊n_c/k⌋ or ⌈n_c/k⌉ rows of each class c and the fold
// sizes differ by at most one.
func KFolds(rows []int, y []float64, classes, k int, seed uint64) ([][]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("cross-validation needs at least 2 folds, got %d", k)
	}
	if len(rows) < k {
		return nil, fmt.Errorf("%d-fold cross-validation needs at least %d rows, got %d", k, k, len(rows))
	}
	r := rand.New(rand.NewPCG(seed, 0xf01d))
	perm := append([]int(nil), rows...)
	r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	if classes > 0 {
		byClass := make([][]int, classes)
		for _, i := range perm {
			c := int(y[i])
			if c < 0 || c >= classes {
				return nil, fmt.Errorf("row %d: class index %v out of range [0, %d)", i, y[i], classes)
			}
			byClass[c] = append(byClass[c], i)
		}
		perm = perm[:0]
		for _, cl := range byClass {
			perm = append(perm, cl...)
		}
	}
	folds := make([][]int, k)
	for t, i := range perm {
		folds[t%k] = append(folds[t%k], i)
	}
	for _, f := range folds {
		sort.Ints(f)
	}
	return folds, nil
}
