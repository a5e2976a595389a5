package text

import (
	"context"
	"fmt"
	"maps"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func init() {
	datasets.RegisterTypedTransform("weighting", datasets.TypedTransform[weightingParams]{
		Doc:     "each stored value v of a count matrix replaced by the text pipeline's weighting of a count: log = log(1+v), binary = 1, count = v (e.g. after compress or kgrams, whose values are pointer or k-gram counts)",
		Apply:   applyWeighting,
		Memory:  weightingMemory,
		Version: 1,
	})
}

// weightingParams are the parameters of weighting.
type weightingParams struct {
	Weighting string `param:"weighting" enum:"log|binary|count" default:"log" doc:"feature value of a count v: log = log(1+v), binary = 1 (presence), count = v (unchanged)"`
}

// applyWeighting returns d with every stored value of X weighted; a
// negative value is an error (X is not a count matrix).
func applyWeighting(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p weightingParams) (*datasets.Dataset, error) {
	w := Weighting(p.Weighting)
	r, c := d.X.Dims()
	b := matrix.NewBuilder(c)
	var bad error
	for i := range r {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d.X.Row(i, func(j int, v float64) {
			if v < 0 && bad == nil {
				bad = fmt.Errorf("weighting: row %d, column %d holds %v; want counts (≥ 0)", i, j, v)
			}
			if v != 0 {
				b.Add(j, w.Weight(v))
			}
		})
		b.EndRow()
	}
	if bad != nil {
		return nil, bad
	}
	out := *d
	out.X = b.Build()
	out.Stats = maps.Clone(d.Stats)
	out.Notes = append(append([]string(nil), d.Notes...), "values weighted: "+describeWeighting(w))
	return &out, nil
}

func describeWeighting(w Weighting) string {
	switch w {
	case Binary:
		return "binary (1 where the count is positive)"
	case Count:
		return "count (unchanged)"
	}
	return "log(1 + count)"
}

// weightingMemory estimates what applyWeighting allocates: the builder's
// copy of the stored entries (12 bytes each, its growth by doubling
// allocating up to four times that in all) and its row pointers (the same).
func weightingMemory(rows, _, nnz int, _ weightingParams) int64 {
	return 64*int64(nnz) + 32*int64(rows+1) + 64<<10
}
