package runner

import

// Shards partitions the plan's trials into n shards and returns the shard
// of each trial, in plan order. The partition depends on the plan alone,
// so every task of a job array computes the same one. It balances the
// estimated cost of the shards (model fits × training size) and spreads
// the trials of each dataset and method series over the shards: the
// trials are assigned most costly first (plan order among equals), each
// to the shard with the least cost so far (the lowest-numbered on a tie)
// among those its series has not used yet in the current round of n.
(
	"slices"
	"sort"

	"github.com/repro-ml/repro/results"
)

func (p *Plan) Shards(n int) []int {
	cost := make([]float64, len(p.Trials))
	order := make([]int, len(p.Trials))
	for i, t := range p.Trials {
		cost[i] = trialCost(t, p.Spec.steps(t.Method))
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cost[order[a]] > cost[order[b]] })
	load := make([]float64, n)
	type series struct {
		dataset *DatasetSpec
		name    string
	}
	used := map[series][]bool{}
	out := make([]int, len(p.Trials))
	for _, i := range order {
		t := p.Trials[i]
		k := series{t.Dataset, t.Series()}
		u := used[k]
		if u == nil || !slices.Contains(u, false) {
			u = make([]bool, n)
			used[k] = u
		}
		best := -1
		for s := range n {
			if !u[s] && (best < 0 || load[s] < load[best]) {
				best = s
			}
		}
		out[i] = best
		u[best] = true
		load[best] += cost[i]
	}
	return out
}

// trialCost estimates the cost of a trial: its model fits times its
// training size (a fraction of the pool counts as that share of 1000
// rows; a whole-curve trial as 1000 rows).
func trialCost(t *Trial, steps int) float64 {
	fits := 1
	if t.Point < 0 {
		if sel, err := Selectors.Lookup(t.Method.Select.RuleName()); err == nil && sel.Fits != nil {
			fits = sel.Fits(len(t.Choices()), t.Method.Select)
		}
	}
	rows := t.Size
	switch {
	case rows == 0:
		rows = 1000
	case rows <= 1:
		rows *= 1000
	}
	return float64(fits*steps) * rows
}

// inShard returns the keys of the trials of shard s.
func (p *Plan) inShard(s results.Shard) map[string]bool {
	in := map[string]bool{}
	for i, sh := range p.Shards(s.N) {
		if sh == s.I {
			in[p.Trials[i].Key] = true
		}
	}
	return in
}

// ShardStatus counts the trials of one shard by their state in the
// stored results.
type ShardStatus struct {
	results.Shard
	// Trials is the number of trials of the shard; Finished, Failed and
	// Missing (no result stored) add up to it.
	Trials, Finished, Failed, Missing int
}

// ShardStatuses returns the state of each of the n shards of the plan,
// given the results of every file (a trial stored by another shard, or
// by a local run, counts).
func (p *Plan) ShardStatuses(n int, stored []results.Result) []ShardStatus {
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
