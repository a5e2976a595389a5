package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repro-ml/repro/results"
)

// crashChild makes the test binary act as the repro command, for tests
// that run it as a separate process (and kill it).
const crashChild = "REPRO_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(crashChild) == "1" {
		main()
		return
	}
	_, err := os.Stat("out")
	hadOut := err == nil
	code := m.Run()
	// repro's default output directory is ./out: a test that forgets -o
	// (or validate --data, which caches in ./out/.cache) writes into the
	// source tree. Fail it, and clean up, unless out/ was there before.
	if _, err := os.Stat("out"); err == nil && !hadOut {
		fmt.Fprintln(os.Stderr, "FAIL: a test wrote ./out in the source tree; give it -o t.TempDir() or t.Chdir(t.TempDir())")
		os.RemoveAll("out")
		code = 1
	}
	os.Exit(code)
}

// TestKillNineResume kills a run with SIGKILL at random points, a few
// times, then lets it finish: no finished trial is lost (none runs twice)
// or duplicated, and the final results equal an uninterrupted run's.
func TestKillNineResume(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no SIGKILL on " + runtime.GOOS)
	}
	const spec = "testdata/crash.yaml"
	ref := filepath.Join(t.TempDir(), "ref")
	mustCLI(t, exitOK, "run", spec, "-o", ref, "-q", "-j", "2")
	want := finished(t, ref)

	dir := filepath.Join(t.TempDir(), "out")
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 1))
	t.Logf("kill delays from seed %d", seed)
	deadline := time.Now().Add(60 * time.Second)
	kills := 0
	for kills < 5 && time.Now().Before(deadline) {
		cmd := exec.Command(os.Args[0], "run", spec, "-o", dir, "-q", "-j", "2")
		cmd.Env = append(os.Environ(), crashChild+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Kill once the child has stored a new result, a random moment
		// later: mid-trial, mid-write or between trials.
		before := fileSize(dir)
		wait := time.Duration(r.IntN(60)) * time.Millisecond
		killed := false
		for !killed {
			select {
			case <-done: // finished before the kill: nothing left to interrupt
				kills = 5
				killed = true
				continue
			case <-time.After(2 * time.Millisecond):
			}
			if fileSize(dir) > before {
				time.Sleep(wait)
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				kills++
				killed = true
			}
		}
		t.Logf("after kill %d: %d trials stored", kills, checkNoDuplicates(t, dir))
	}
	mustCLI(t, exitOK, "run", spec, "-o", dir, "-q", "-j", "2")
	checkNoDuplicates(t, dir)
	got := finished(t, dir)
	if len(got) != len(want) {
		t.Fatalf("%d finished trials after the kills; want %d", len(got), len(want))
	}
	for key, w := range want {
		if got[key] != w {
			t.Errorf("trial %s: %s after the kills; want %s", key, got[key], w)
		}
	}
}

func fileSize(dir string) int64 {
	fi, err := os.Stat(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// finished returns each finished trial's metrics (as JSON) by key.
func finished(t *testing.T, dir string) map[string]string {
	t.Helper()
	recs, warns, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		if le, ok := w.(*results.LineError); !ok || !le.Torn {
			t.Errorf("results: %v", w) // only a torn last line may be left by a kill
		}
	}
	out := map[string]string{}
	for _, r := range results.Latest(recs) {
		if r.Failed() {
			t.Errorf("trial %s failed: %s", r.Key, r.Error)
			continue
		}
		b, _ := json.Marshal(r.Points())
		out[r.Key] = string(b)
	}
	return out
}

// checkNoDuplicates fails if a finished trial was stored twice: a resumed
// run must skip it. It returns the number of finished trials stored.
func checkNoDuplicates(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		if os.IsNotExist(err) {
			return 0
		}
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		var r results.Result
		if json.Unmarshal([]byte(line), &r) != nil || r.Failed() {
			continue // a torn last line, or a failed attempt (retried)
		}
		if prev, dup := seen[r.Key]; dup {
			t.Fatalf("trial %s stored as finished on lines %d and %d", r.Key, prev+1, i+1)
		}
		seen[r.Key] = i
	}
	return len(seen)
}
