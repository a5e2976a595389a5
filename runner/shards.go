package runner

import (
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// shardKeys returns the keys of the trials of shard s of p.
func shardKeys(p *spec.Plan, s results.Shard) map[string]bool {
	in := map[string]bool{}
	for i, sh := range p.Shards(s.N) {
		if sh == s.I {
			in[p.Trials[i].Key] = true
		}
	}
	return in
}
