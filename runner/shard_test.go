package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// TestShardRuns runs the plan as three shards, then checks that their
// union is a local run's results (timings apart), that each shard kept
// to its own file, and that a lost shard reruns alone.
func TestShardRuns(t *testing.T) {
	local := runSpec(t, blobsSpec(), t.TempDir(), 2, nil)
	dir := t.TempDir()
	const n = 3
	for i := range n {
		sum, err := Run(context.Background(), blobsSpec(), Options{Dir: dir, Workers: 1, Shard: results.Shard{I: i, N: n}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Failed != 0 || sum.Ran == 0 || sum.Skipped != 0 {
			t.Errorf("shard %d: ran %d, skipped %d, failed %d", i, sum.Ran, sum.Skipped, sum.Failed)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.ResultsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a shard wrote %s: %v", results.ResultsFile, err)
	}
	merged := func() []results.Result {
		rs, warns, found, err := results.ReadAllResults(dir)
		if err != nil || len(warns) > 0 || !found {
			t.Fatal(err, warns, found)
		}
		return spec.ForPlan(local.Plan, results.Latest(rs))
	}
	if got := merged(); !reflect.DeepEqual(strip(got), strip(local.Results)) {
		t.Fatalf("the union of %d shards differs from a local run: %d vs %d results", n, len(got), len(local.Results))
	}
	if st := spec.ShardStatuses(local.Plan, n, merged()); st[0].Missing != 0 || st[0].Finished != st[0].Trials {
		t.Errorf("status after every shard: %+v", st)
	}

	// Shard 1 lost half its file (a node died): it is missing trials,
	// and a rerun of shard 1 alone runs just those.
	path := filepath.Join(dir, results.Shard{I: 1, N: n}.File())
	own, _, err := results.ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keep := len(own) / 2
	cut := 0
	for range keep {
		cut += slices.Index(data[cut:], '\n') + 1
	}
	if err := os.WriteFile(path, data[:cut+10], 0o644); err != nil { // and a torn line
		t.Fatal(err)
	}
	st := spec.ShardStatuses(local.Plan, n, merged0(t, dir))
	if st[1].Missing != len(own)-keep || st[0].Missing != 0 || st[2].Missing != 0 {
		t.Errorf("after the loss: %+v; want %d missing in shard 1 only", st, len(own)-keep)
	}
	sum, err := Run(context.Background(), blobsSpec(), Options{Dir: dir, Workers: 2, Shard: results.Shard{I: 1, N: n}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != len(own)-keep || sum.Skipped != keep {
		t.Errorf("rerun of shard 1: ran %d, skipped %d; want %d, %d", sum.Ran, sum.Skipped, len(own)-keep, keep)
	}
	if got := merged(); !reflect.DeepEqual(strip(got), strip(local.Results)) {
		t.Error("after the rerun of shard 1 the union differs from a local run")
	}
}

// merged0 reads every results file of dir, warnings allowed.
func merged0(t *testing.T, dir string) []results.Result {
	t.Helper()
	rs, _, _, err := results.ReadAllResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestShardLocks checks that shards lock apart: two shards of one
// directory run at once, the same shard twice does not.
func TestShardLocks(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("no flock on " + runtime.GOOS)
	}
	dir := t.TempDir()
	u0, err := results.LockShard(dir, results.Shard{I: 0, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer u0()
	u1, err := results.LockShard(dir, results.Shard{I: 1, N: 2})
	if err != nil {
		t.Fatalf("shard 1 while shard 0 runs: %v", err)
	}
	defer u1()
	_, err = results.LockShard(dir, results.Shard{I: 0, N: 2})
	var le *results.LockedError
	if !errors.As(err, &le) {
		t.Errorf("shard 0 twice: %v, want a *LockedError", err)
	}
	_, err = Run(context.Background(), blobsSpec(), Options{Dir: dir, Shard: results.Shard{I: 1, N: 2}})
	if !errors.As(err, &le) {
		t.Errorf("Run of a locked shard: %v, want a *LockedError", err)
	}
}

// TestLocalAfterShards runs two of three shards, then a local run: it
// runs only the third shard's trials, and its results equal a local
// run's. A failed line stored after a trial's success (in another file,
// or appended by hand here) does not hide the success.
func TestLocalAfterShards(t *testing.T) {
	ref := runSpec(t, blobsSpec(), t.TempDir(), 2, nil)
	dir := t.TempDir()
	const n = 3
	in2 := shardKeys(ref.Plan, results.Shard{I: 2, N: n})
	for i := range 2 {
		if _, err := Run(context.Background(), blobsSpec(), Options{Dir: dir, Workers: 2, Shard: results.Shard{I: i, N: n}}); err != nil {
			t.Fatal(err)
		}
	}
	// A failed line for a trial of shard 0, written after its success.
	var victim results.Result
	for _, r := range ref.Results {
		if !in2[r.Key] {
			victim = r
			break
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, results.Shard{I: 0, N: n}.File()), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	failed := results.Result{Key: victim.Key, Dataset: victim.Dataset, Method: victim.Method, Trial: victim.Trial, Error: "killed"}
	if _, err := f.WriteString(mustJSON(t, &failed) + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	sum := runSpec(t, blobsSpec(), dir, 2, nil)
	// The victim succeeded once: it is done, its failed line ignored.
	if sum.Ran != len(in2) || sum.Failed != 0 {
		t.Errorf("local run after two shards: ran %d, failed %d; want %d, 0", sum.Ran, sum.Failed, len(in2))
	}
	if !reflect.DeepEqual(strip(sum.Results), strip(ref.Results)) {
		t.Error("results after shards + local run differ from a local run")
	}
	// Merged, the local success wins over the shard's failed line.
	rs, _, _, err := results.ReadAllResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.ForPlan(ref.Plan, results.Latest(rs)); !reflect.DeepEqual(strip(got), strip(ref.Results)) {
		t.Error("ReadAllResults: merged results differ from a local run")
	}
	if sum := runSpec(t, blobsSpec(), dir, 2, nil); sum.Ran != 0 {
		t.Errorf("a second local run ran %d trials", sum.Ran)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
