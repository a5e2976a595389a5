package spec

import (
	"slices"
	"sort"
)

// Shards partitions the plan's trials into n shards and returns the shard
// of each trial, in plan order. The partition depends on the plan alone,
// so every task of a job array computes the same one. It balances the
// estimated cost of the shards (model fits × training size) and spreads
// the trials of each dataset and method series over the shards: the
// trials are assigned most costly first (plan order among equals), each
// to the shard with the least cost so far (the lowest-numbered on a tie)
// among those its series has not used yet in the current round of n.
func (p *Plan) Shards(n int) []int {
	cost := p.Costs()
	order := make([]int, len(p.Trials))
	for i := range order {
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

// Costs returns the estimated cost of each trial of the plan, in plan
// order, as Shards balances it: the trial's model fits times its training
// size (a fraction of the pool counts as that share of 1000 rows; a
// whole-curve trial as 1000 rows).
func (p *Plan) Costs() []float64 {
	cost := make([]float64, len(p.Trials))
	for i, t := range p.Trials {
		cost[i] = trialCost(t, p.Spec.Steps(t.Method))
	}
	return cost
}

// trialCost estimates the cost of a trial: its model fits times its
// training size (a fraction of the pool counts as that share of 1000
// rows; a whole-curve trial as 1000 rows).
func trialCost(t *Trial, steps int) float64 {
	fits := 1
	if t.Point < 0 {
		if sel, err := LookupSelector(t.Method.Select.RuleName()); err == nil && sel.Fits != nil {
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
