package spec_test

import (
	"slices"
	"testing"

	"github.com/repro-ml/repro/spec"
)

// TestShards checks the partition: every trial in exactly one shard,
// the same partition every time, the cost balanced, and the trials of
// one dataset and method spread over every shard.
func TestShards(t *testing.T) {
	plan, err := spec.NewPlan(blobsSpec())
	if err != nil {
		t.Fatal(err)
	}
	costs := plan.Costs()
	for _, n := range []int{1, 2, 3, 4, 7, 36, 50} {
		shards := plan.Shards(n)
		if !slices.Equal(shards, plan.Shards(n)) {
			t.Errorf("n=%d: two partitions of one plan differ", n)
		}
		load := make([]float64, n)
		count := make([]int, n)
		maxCost := 0.0
		spread := map[string]map[int]bool{}
		for i, s := range shards {
			if s < 0 || s >= n {
				t.Fatalf("n=%d: trial %d in shard %d", n, i, s)
			}
			c := costs[i]
			load[s] += c
			count[s]++
			maxCost = max(maxCost, c)
			m := plan.Trials[i].Series()
			if spread[m] == nil {
				spread[m] = map[int]bool{}
			}
			spread[m][s] = true
		}
		// Greedy assignment of the costliest first: no shard exceeds
		// another by more than twice the costliest trial.
		if lo, hi := slices.Min(load), slices.Max(load); hi-lo > 2*maxCost {
			t.Errorf("n=%d: shard costs %v: spread %g beyond the costliest trial %g", n, load, hi-lo, maxCost)
		}
		if n <= len(plan.Trials) && slices.Min(count) == 0 {
			t.Errorf("n=%d: an empty shard: %v", n, count)
		}
		// Each series (9 trials) reaches min(n, 9) shards.
		for m, s := range spread {
			if len(s) != min(n, 9) {
				t.Errorf("n=%d: series %s in %d shards", n, m, len(s))
			}
		}
	}
}

// TestSamplesOfInKey checks that samples_of is part of a trial's key (the
// rows differ), and that keys without it are those of earlier runs.
func TestSamplesOfInKey(t *testing.T) {
	a, b := blobsSpec(), blobsSpec()
	b.Datasets[0].SamplesOf = "other"
	pa, err := spec.NewPlan(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := spec.NewPlan(b)
	if err != nil {
		t.Fatal(err)
	}
	if pa.Trials[0].Key == pb.Trials[0].Key {
		t.Error("samples_of left the trial key unchanged")
	}
}
