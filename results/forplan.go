package results

import (
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// ForPlan returns the latest result of each trial of plan, in plan order,
// skipping trials without a result. Results of keys no longer in the plan
// (an earlier version of the spec) are left out.
//
// The fields that name a result in reports (Dataset, Method, Plugin,
// Variant) are set from the plan's trial, and Chosen values are given the
// grid's Go types: a stored result keeps its key when, say, a value is
// added to a one-value grid, but its series then gains a variant, and a
// value read back from JSON is a float64 where the grid holds an int.
func ForPlan(p *spec.Plan, stored []Result) []Result {
	byKey := map[string]Result{}
	for _, r := range stored {
		byKey[r.Key] = r
	}
	var out []Result
	for _, t := range p.Trials {
		r, ok := byKey[t.Key]
		if !ok {
			continue
		}
		r.Dataset, r.Method, r.Plugin = t.Dataset.ID, t.Method.Label, t.Method.Name
		r.Variant = nil
		if v := t.Variant(); v != nil {
			r.Variant = v
		}
		if r.Chosen != nil {
			chosen := make(map[string]any, len(r.Chosen))
			for name, v := range r.Chosen {
				chosen[name] = v
				for _, g := range t.Method.Grid {
					if gv, ok := g[name]; ok && param.Format(gv) == param.Format(v) {
						chosen[name] = gv
						break
					}
				}
			}
			r.Chosen = chosen
		}
		out = append(out, r)
	}
	return out
}
