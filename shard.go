package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// lockRun takes the lock a run holds: the output directory's, or for a
// shard the shard's own, so that the shards of a job array run at once.
func lockRun(dir string, shard results.Shard) (func(), error) {
	if shard.N > 0 {
		return results.LockShard(dir, shard)
	}
	return results.LockDir(dir)
}

// shardDone ends `repro run --shard`: a shard writes no reports (they
// need every shard's results, and the shards of an array finish at
// different times); it prints its own counts and how the shards stand.
func shardDone(stdout, stderr io.Writer, dir string, sum *runner.Summary, shard results.Shard) int {
	sp := sum.Plan.Spec
	in := 0
	for _, s := range sum.Plan.Shards(shard.N) {
		if s == shard.I {
			in++
		}
	}
	fmt.Fprintf(stdout, "%s shard %s: %d of the %d trials: %d ran now, %d already done, %d failed\n",
		sp.Name, shard, sum.Ran+sum.Skipped, len(sum.Plan.Trials), sum.Ran, sum.Skipped, sum.Failed)
	if sum.Ran+sum.Skipped != in && !sum.Interrupted {
		// --smoke limits the shard further: say so rather than let the
		// counts look short.
		fmt.Fprintf(stdout, "(%d of the shard's %d trials selected)\n", sum.Ran+sum.Skipped, in)
	}
	fmt.Fprintf(stdout, "results: %s\n", filepath.Join(dir, shard.File()))
	recs, _, _, err := results.ReadAllResults(dir)
	if err == nil {
		printShardStatus(stdout, dir, sum.Plan, shard.N, recs)
	}
	if sum.Interrupted {
		fmt.Fprintf(stderr, "interrupted: run the same command again to resume shard %s\n", shard)
		return exitInterrupted
	}
	if sum.Failed > 0 {
		printFailures(stderr, sum.Plan, sum.Results)
		return exitFailed
	}
	return exitOK
}

// printShards reports, for each shard count N whose files dir holds, how
// many trials each shard has finished and still misses.
func printShards(w io.Writer, dir string, plan *spec.Plan, recs []results.Result) {
	shards, err := results.ShardFiles(dir)
	if err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
		return
	}
	seen := map[int]bool{}
	for _, s := range shards {
		if !seen[s.N] {
			seen[s.N] = true
			printShardStatus(w, dir, plan, s.N, recs)
		}
	}
}

// printShardStatus writes one line per shard of N: its trials finished,
// failed and missing, and for an incomplete shard how to rerun it alone.
func printShardStatus(w io.Writer, dir string, plan *spec.Plan, n int, recs []results.Result) {
	complete := 0
	for _, st := range spec.ShardStatuses(plan, n, recs) {
		if st.Finished == st.Trials {
			complete++
			fmt.Fprintf(w, "shard %s: %d of %d trials finished\n", st.Shard, st.Finished, st.Trials)
			continue
		}
		fmt.Fprintf(w, "shard %s: %d of %d trials finished, %d failed, %d missing; rerun it alone: repro run %s --shard %s -o %s\n",
			st.Shard, st.Finished, st.Trials, st.Failed, st.Missing, filepath.Join(dir, spec.SpecFile), st.Shard, dir)
	}
	fmt.Fprintf(w, "%d of %d shards complete\n", complete, n)
}
