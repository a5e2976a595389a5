// Package subsample provides the subsample transform: a seeded, stratified
// fraction of a corpus's rows, kept in their order — a slice of a large
// corpus for a quick run (an experiment's smoke: reductions) before a
// corpus-level transform such as compress.
package subsample

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/repro-ml/repro/datasets"
)

func init() {
	datasets.RegisterTypedTransform("subsample", datasets.TypedTransform[params]{
		Doc: "keeps a seeded fraction of the rows of every (split part, class) cell, in their order: a slice of a corpus for a quick run",
		// It reads the labels only to keep the class proportions; the
		// rows it keeps do not depend on what the labels are called.
		Supervised: true,
		Rows:       true,
		Version:    1,
		Apply:      apply,
	})
}

// params are the parameters of subsample.
type params struct {
	Fraction float64 `param:"fraction" range:"(0, 1]" default:"0.1" doc:"share of each cell's rows kept, rounded up (so every cell keeps a row)"`
	Seed     int     `param:"seed" range:"[0, +inf)" default:"1" doc:"seed of the choice"`
}

// Rows returns the rows of d that a fraction with seed keeps, ascending:
// ⌈fraction·n⌉ of the n rows of each (split part, class) cell, chosen by
// a permutation drawn from seed.
func Rows(d *datasets.Dataset, fraction float64, seed uint64) []int {
	type cellKey struct {
		part  datasets.Part
		class int
	}
	cells := map[cellKey][]int{}
	var order []cellKey
	for i := 0; i < d.Rows(); i++ {
		var k cellKey
		if d.Split != nil {
			k.part = d.Split[i]
		}
		if d.IsClassification() {
			k.class = d.Label(i)
		}
		if _, ok := cells[k]; !ok {
			order = append(order, k)
		}
		cells[k] = append(cells[k], i)
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var keep []int
	for _, k := range order {
		rows := cells[k]
		n := int(math.Ceil(fraction * float64(len(rows))))
		perm := r.Perm(len(rows))
		for _, j := range perm[:n] {
			keep = append(keep, rows[j])
		}
	}
	sort.Ints(keep)
	return keep
}

func apply(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p params) (*datasets.Dataset, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	keep := Rows(d, p.Fraction, uint64(p.Seed))
	out := d.Subset(keep)
	out.Notes = append(append([]string(nil), d.Notes...), fmt.Sprintf("subsampled: %d of %d rows (fraction %g of each split part and class, seed %d)",
		len(keep), d.Rows(), p.Fraction, p.Seed))
	return out, nil
}
