package compress

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// The document orders of LZ77.
const (
	OrderGiven       = "given"         // the dataset's row order
	OrderByClass     = "by-class"      // class 0's documents first, then class 1's, … (AG for [A, G])
	OrderByClassDesc = "by-class-desc" // the last class first (GA)
	OrderRandom      = "random"        // a seeded permutation
	OrderAlternating = "alternating"   // one document of each class in turn, while they last
)

func init() {
	datasets.RegisterTypedTransform("lz77", datasets.TypedTransform[lz77Params]{
		Doc:        "LZ77 phrases as features: the corpus concatenated in a declared order, each document's phrases (longest earlier match, up to k words) counted",
		Apply:      applyLZ77,
		Supervised: true,
		Learns:     true,
		Version:    1,
	})
}

// lz77Params are the parameters of lz77; the range of k ends at MaxK, the
// choices of order are the Order constants.
type lz77Params struct {
	K     int    `param:"k" range:"[1, 16]" default:"5" doc:"longest phrase, in words (as compress's k-grams)"`
	Order string `param:"order" enum:"given|by-class|by-class-desc|random|alternating" default:"given" doc:"document order: given, by-class (AG), by-class-desc (GA), random, alternating; by class and alternating read the labels"`
	Seed  int    `param:"seed" default:"1" doc:"seed of the random order"`
}

func applyLZ77(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p lz77Params) (*datasets.Dataset, error) {
	docs, err := docsOf(d)
	if err != nil {
		return nil, fmt.Errorf("lz77: %w", err)
	}
	order, err := Order(d, p.Order, uint64(p.Seed))
	if err != nil {
		return nil, fmt.Errorf("lz77: %w", err)
	}
	x, names, err := LZ77(ctx, docs, order, p.K)
	if err != nil {
		return nil, fmt.Errorf("lz77: %w", err)
	}
	out := withFeatures(d, x, names)
	out.Stats["lz77.features"] = float64(len(names))
	out.Notes = append(out.Notes, fmt.Sprintf("LZ77 phrases: the %d documents concatenated in %s order, each position's longest match (up to %d words, not across documents) with text seen before; %d distinct phrases", d.Rows(), p.Order, p.K, len(names)))
	return out, nil
}

// Order returns the rows of d in the named order (one of the Order
// constants). The orders by class need d's labels.
func Order(d *datasets.Dataset, order string, seed uint64) ([]int, error) {
	n := d.Rows()
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	switch order {
	case OrderGiven:
		return rows, nil
	case OrderRandom:
		rng := rand.New(rand.NewPCG(seed, 0x1a77))
		rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		return rows, nil
	}
	if !d.IsClassification() || len(d.Y) != n {
		return nil, fmt.Errorf("order %q needs class labels; dataset %q has none", order, d.Name)
	}
	byClass := make([][]int, len(d.Classes))
	for i := range n {
		c := d.Label(i)
		byClass[c] = append(byClass[c], i)
	}
	rows = rows[:0]
	switch order {
	case OrderByClass, OrderByClassDesc:
		for c := range byClass {
			if order == OrderByClassDesc {
				c = len(byClass) - 1 - c
			}
			rows = append(rows, byClass[c]...)
		}
	case OrderAlternating:
		for i := 0; len(rows) < n; i++ {
			for _, b := range byClass {
				if i < len(b) {
					rows = append(rows, b[i])
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown order %q", order)
	}
	return rows, nil
}

// LZ77 parses the documents concatenated in the given order (a permutation
// of their indices) as LZ77 does, on words: from the cursor, the longest
// phrase of up to k words that starts at an earlier position of the
// concatenation (overlapping the cursor allowed, never across documents)
// is emitted, or the next word alone if none is; the cursor moves past it.
// Row i of the result counts document i's phrases, columns are the
// phrases emitted anywhere (words joined by "_"), sorted.
func LZ77(ctx context.Context, docs []string, order []int, k int) (*matrix.CSR, []string, error) {
	if len(order) != len(docs) {
		return nil, nil, fmt.Errorf("order lists %d documents for %d", len(order), len(docs))
	}
	p, err := newProblem(ctx, docs, k, 0, "")
	if err != nil {
		return nil, nil, err
	}
	placed := make([]bool, len(docs))
	for _, i := range order {
		if i < 0 || i >= len(docs) || placed[i] {
			return nil, nil, fmt.Errorf("order is not a permutation of the %d documents", len(docs))
		}
		placed[i] = true
	}
	seen := make([]bool, p.strings())
	phrases := make([][]int32, len(docs))
	for n, i := range order {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		lo, hi := p.start[i], p.start[i+1]
		for a := lo; a < hi; {
			t := 1
			for u := min(k, hi-a); u > 1; u-- {
				if seen[p.str[k*a+u-1]] {
					t = u
					break
				}
			}
			phrases[i] = append(phrases[i], p.str[k*a+t-1])
			// Positions a … a+t−1 are now behind the cursor: every k-gram
			// starting there is text seen before.
			for b := a; b < a+t; b++ {
				for u := 1; u <= min(k, hi-b); u++ {
					seen[p.str[k*b+u-1]] = true
				}
			}
			a += t
		}
	}
	x, names, _, err := p.features(ctx, func(i int, emit func(int32)) {
		for _, s := range phrases[i] {
			emit(s)
		}
	})
	return x, names, err
}
