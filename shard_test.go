package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// TestShardCLI runs the tiny spec as three shards, reports and checks the
// merged results, loses a shard and reruns it alone.
func TestShardCLI(t *testing.T) {
	tmp := t.TempDir()
	local, dir := filepath.Join(tmp, "local"), filepath.Join(tmp, "sharded")
	mustCLI(t, exitOK, "run", irisSpec, "-o", local, "-q", "-j", "2")
	for i := range 3 {
		stdout, _ := mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "-j", "1", "--shard", itoa(i)+"/3")
		if !strings.Contains(stdout, "iris-cli shard "+itoa(i)+"/3: ") || !strings.Contains(stdout, filepath.Join(dir, "results", "shard-"+itoa(i)+"-of-3.jsonl")) {
			t.Errorf("shard %d:\n%s", i, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err == nil {
		t.Error("a shard wrote the reports")
	}
	stdout, stderr := mustCLI(t, exitOK, "report", dir)
	if !strings.Contains(stdout, "(8 results)") || !strings.Contains(stderr, "3 of 3 shards complete") {
		t.Errorf("report of the shards:\n%s\n%s", stdout, stderr)
	}
	// The merged report equals a local run's.
	a, err := os.ReadFile(filepath.Join(local, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stripTimes(a), stripTimes(b)) {
		t.Errorf("report.md of the shards differs from a local run's:\n%s\nvs\n%s", b, a)
	}
	byLocal, _ := mustCLI(t, exitOK, "check", local)
	byShards, _ := mustCLI(t, exitOK, "check", dir)
	if byLocal != byShards {
		t.Errorf("check differs:\n%s\nvs\n%s", byShards, byLocal)
	}
	// diff pairs every trial, and finds no change.
	stdout, _ = mustCLI(t, exitOK, "diff", local, dir)
	if !strings.Contains(stdout, "0 significantly better, 0 significantly worse, 0 regressions") || strings.Contains(stdout, "only in") {
		t.Errorf("diff local vs shards:\n%s", stdout)
	}

	// Shard 2 is lost: report and check say what it misses; it reruns alone.
	shard2 := filepath.Join(dir, results.Shard{I: 2, N: 3}.File())
	lines, _ := resultLines2(t, shard2)
	if err := os.Remove(shard2); err != nil {
		t.Fatal(err)
	}
	// check judges no partial run as whole: the expectation's row fails.
	stdout, stderr = mustCLI(t, exitFailed, "check", dir)
	if !strings.Contains(stdout, "incomplete: ") || !strings.Contains(stdout, "not run yet") {
		t.Errorf("check with a lost shard passes its rows:\n%s", stdout)
	}
	want := "shard 2/3: 0 of " + itoa(lines) + " trials finished, 0 failed, " + itoa(lines) + " missing; rerun it alone: repro run " +
		filepath.Join(dir, spec.SpecFile) + " --shard 2/3 -o " + dir
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "2 of 3 shards complete") {
		t.Errorf("check with a lost shard: no %q in\n%s", want, stderr)
	}
	stdout, _ = mustCLI(t, exitOK, "run", filepath.Join(dir, spec.SpecFile), "-o", dir, "-q", "--shard", "2/3")
	if !strings.Contains(stdout, itoa(lines)+" ran now, 0 already done") || !strings.Contains(stdout, "3 of 3 shards complete") {
		t.Errorf("rerun of shard 2:\n%s", stdout)
	}
	stdout, _ = mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "--shard", "2/3")
	if !strings.Contains(stdout, "0 ran now, "+itoa(lines)+" already done") {
		t.Errorf("second rerun of shard 2:\n%s", stdout)
	}
	_, stderr = mustCLI(t, exitUsage, "run", irisSpec, "-o", dir, "--shard", "3/3")
	if !strings.Contains(stderr, `shard "3/3": want 0 ≤ I < N`) {
		t.Errorf("--shard 3/3:\n%s", stderr)
	}
}

// stripTimes drops the fit time sections of a report.
func stripTimes(b []byte) []byte {
	var out []string
	skip := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "### Fit time"):
			skip = true
		case skip && strings.HasPrefix(l, "Mean seconds"):
			skip = false
		case !skip:
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

// TestShardLockDomainCLI: while a shard of 2 holds DIR, a run of every
// trial, a shard of 3 and a report of DIR are refused with exit 1 and a
// message naming the holder, and write no results; another shard of 2
// runs.
func TestShardLockDomainCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	unlock, err := results.LockShard(dir, results.Shard{I: 0, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_, stderr := mustCLI(t, exitError, "run", irisSpec, "-o", dir, "-q")
	if !strings.Contains(stderr, "output directory "+dir+" is in use by a run split into 2 shards (shard 0/2, pid ") ||
		!strings.Contains(stderr, "a run of every trial cannot run beside it") {
		t.Errorf("a run of every trial beside shard 0/2:\n%s", stderr)
	}
	_, stderr = mustCLI(t, exitError, "run", irisSpec, "-o", dir, "-q", "--shard", "0/3")
	if !strings.Contains(stderr, "shard 0/3 cannot run beside it") || !strings.Contains(stderr, "run shards of 2 (--shard I/2)") {
		t.Errorf("shard 0/3 beside shard 0/2:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ResultsFile)); err == nil {
		t.Errorf("a refused run wrote %s", results.ResultsFile)
	}
	if _, err := os.Stat(filepath.Join(dir, results.Shard{I: 0, N: 3}.File())); err == nil {
		t.Error("a refused shard wrote its results file")
	}
	stdout, _ := mustCLI(t, exitOK, "run", irisSpec, "-o", dir, "-q", "--shard", "1/2")
	if !strings.Contains(stdout, "iris-cli shard 1/2: ") {
		t.Errorf("shard 1/2 beside shard 0/2:\n%s", stdout)
	}
	_, stderr = mustCLI(t, exitError, "report", dir)
	if !strings.Contains(stderr, "is in use by a run split into 2 shards") {
		t.Errorf("report beside shard 0/2:\n%s", stderr)
	}
}
