package spec

import (
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
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
func ForPlan(p *Plan, stored []results.Result) []results.Result {
	// The index of each key's last result: a copy of each result only
	// as it goes out (a stored run may be 200k results).
	byKey := make(map[string]int, len(stored))
	for i := range stored {
		byKey[stored[i].Key] = i
	}
	out := make([]results.Result, 0, min(len(p.Trials), len(byKey)))
	for _, t := range p.Trials {
		i, ok := byKey[t.Key]
		if !ok {
			continue
		}
		r := stored[i]
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

// ShardStatus counts the trials of one shard by their state in the
// stored results.
type ShardStatus struct {
	results.Shard
	// Trials is the number of trials of the shard; Finished, Failed and
	// Missing (no result stored) add up to it.
	Trials, Finished, Failed, Missing int
}

// ShardStatuses returns the state of each of the n shards of plan p,
// given the results of every file (a trial stored by another shard, or
// by a local run, counts).
func ShardStatuses(p *Plan, n int, stored []results.Result) []ShardStatus {
	latest := map[string]*results.Result{}
	for i := range stored {
		latest[stored[i].Key] = &stored[i]
	}
	out := make([]ShardStatus, n)
	for s := range out {
		out[s].Shard = results.Shard{I: s, N: n}
	}
	for i, s := range p.Shards(n) {
		st := &out[s]
		st.Trials++
		switch r := latest[p.Trials[i].Key]; {
		case r == nil:
			st.Missing++
		case r.Finished(p.Spec.Metrics):
			st.Finished++
		default:
			st.Failed++
		}
	}
	return out
}
