package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repro-ml/repro/param"
)

// The hostile programs of issue 43: files that are not what a learner
// writes, output without end, children that try to outlive the run.

// hostile returns the argument vector running testdata/hostile.sh in mode.
func hostile(t *testing.T, mode string, args ...string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the guard that kills a program's children is Linux's")
	}
	path, err := filepath.Abs("testdata/hostile.sh")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"/bin/sh", path, mode}, args...)
}

// A model file that is a link to /dev/zero, a FIFO or a 2 GB file fails
// its fit with an error naming the file, before any of it is read.
func TestHostileModelFile(t *testing.T) {
	tests := []struct {
		mode string
		args []string
		want string
	}{
		{"link-zero", nil, "model file {model} /"},
		{"fifo", nil, "is a named pipe, not a regular file"},
		{"huge", []string{"2000000000"}, "has 2000000000 bytes, more than its bound of"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			m := newCommand(t, param.Values{"train": append(append(hostile(t, tt.mode, "{model}"), tt.args...), "{train}"),
				"predict": fake(t, "predict", "{test}", "{model}")})
			start := time.Now()
			_, err := m.Fit(context.Background(), binary(true), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Fit: %v; want an error containing %q", err, tt.want)
			}
			if tt.mode == "link-zero" && !strings.Contains(err.Error(), "is a symbolic link") {
				t.Errorf("Fit: %v; want it to say the model is a symbolic link", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Fit took %v; want the file refused without reading it", d)
			}
		})
	}
}

// Predictions without end on stdout, or a predictions file far beyond
// rows × classes, fail the prediction at their bound; the flooding
// program is stopped by its broken pipe, not left to its timeout.
func TestHostilePredictions(t *testing.T) {
	d := binary(false)
	for _, tt := range []struct {
		name    string
		predict []string
		want    string
	}{
		{"stdout flood", hostile(t, "flood", "{test}"), "wrote its predictions on standard output for 5 rows: more than"},
		{"huge file", hostile(t, "huge", "{predictions}", "100000000", "{test}"), "predictions file {predictions} /"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newCommand(t, param.Values{"timeout": 20.0, "train": fake(t, "train", "{train}", "{model}"), "predict": tt.predict})
			mod, err := m.Fit(context.Background(), d, nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = mod.(*model).PredictErr(d.X)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("PredictErr: %v; want an error containing %q", err, tt.want)
			}
			if bound := predictionBound(5, 2); !strings.Contains(err.Error(), strconv.FormatInt(bound, 10)) {
				t.Errorf("PredictErr: %v; want it to name the bound %d", err, bound)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("PredictErr took %v; want the flood stopped at its bound", d)
			}
		})
	}
}

// readPids waits for the program to write the pids of its children to
// path.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: %q", path, b)
			}
			pids = append(pids, pid)
		}
		return pids
	}
	t.Fatalf("the program wrote no %s", path)
	return nil
}

// running reports whether pid is a process that has not exited: in /proc
// and not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// checkDead fails t unless every pid has exited within 5 s (at once, but
// the machine may be loaded).
func checkDead(t *testing.T, pids []int, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if running(pid) {
			t.Errorf("process %d (%s) still runs: /proc/%d/stat exists and is not a zombie", pid, what, pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// At its timeout a program dies with every process it started, a child
// in a session of its own (setsid) included.
func TestTimeoutKillsSetsidChild(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	// The timeout leaves time to start the children on a loaded machine.
	m := newCommand(t, param.Values{"timeout": 1.5, "train": hostile(t, "setsid", pids, "{train}"), "predict": fake(t, "predict", "{test}")})
	_, err := m.Fit(context.Background(), binary(false), nil)
	var pe *ProgramError
	if !errors.As(err, &pe) || !pe.TimedOut {
		t.Fatalf("Fit: %v; want a timeout", err)
	}
	checkDead(t, readPids(t, pids), "a child of a program killed at its timeout")
}

// A program that exits 0 while a child it left in the background holds
// its stderr succeeds at once, and the child is killed.
func TestBackgroundChildHoldingStderr(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	m := newCommand(t, param.Values{"timeout": 30.0, "train": hostile(t, "bg-stderr", pids, "{model}", "{train}"), "predict": fake(t, "predict", "{test}", "{model}")})
	start := time.Now()
	if _, err := m.Fit(context.Background(), binary(false), nil); err != nil {
		t.Fatalf("Fit: %v; want the program judged on its exit status 0", err)
	}
	if d := time.Since(start); d >= waitDelay {
		t.Errorf("Fit took %v; want it back when the program exits, not after the pipes' wait delay", d)
	}
	checkDead(t, readPids(t, pids), "a background child of a program that exited")
}

// helperEnv makes the test binary a run that fits the setsid program and
// is then killed with kill -9 (TestKilledRunLeavesNothing).
const helperEnv = "REPRO_TEST_KILLED_RUN"

func TestKilledRunHelper(t *testing.T) {
	pids := os.Getenv(helperEnv)
	if pids == "" {
		t.Skip("run by TestKilledRunLeavesNothing")
	}
	m := newCommand(t, param.Values{"timeout": 60.0, "train": hostile(t, "setsid", pids, "{train}"), "predict": fake(t, "predict", "{test}")})
	m.Fit(context.Background(), binary(false), nil)
}

// When the run is killed with kill -9, the program it was running and
// every process that program started die with it, and the next run
// removes the killed run's temporary directory.
func TestKilledRunLeavesNothing(t *testing.T) {
	hostile(t, "setsid") // skips where there is no guard
	tmp := t.TempDir()
	pids := filepath.Join(tmp, "pids")
	run := exec.Command(os.Args[0], "-test.run=^TestKilledRunHelper$", "-test.count=1")
	run.Env = append(os.Environ(), helperEnv+"="+pids, "TMPDIR="+tmp)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	children := readPids(t, pids)
	dirs, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+strconv.Itoa(run.Process.Pid)+"-*"))
	if len(dirs) == 0 {
		t.Errorf("no %s%d-* directory under %s while the killed run fitted", tempPrefix, run.Process.Pid, tmp)
	}
	run.Process.Kill()
	run.Wait()
	checkDead(t, children, "a child of a program whose run was killed")
	sweep(tmp)
	if left, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+"*")); len(left) > 0 {
		t.Errorf("after the next run's start: %v left; want the killed run's directories removed", left)
	}
}

// sweep removes the directories of runs no longer alive, and only those.
func TestSweep(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	dead := tempPrefix + strconv.Itoa(gone.Process.Pid) + "-1"
	live := tempPrefix + strconv.Itoa(os.Getpid()) + "-2"
	parent := tempPrefix + strconv.Itoa(os.Getppid()) + "-3"
	other := "repro-command-12345"
	for _, d := range []string{dead, live, parent, other} {
		if err := os.MkdirAll(filepath.Join(tmp, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweep(tmp)
	for d, want := range map[string]bool{dead: false, live: true, parent: true, other: true} {
		if _, err := os.Stat(filepath.Join(tmp, d)); (err == nil) != want {
			t.Errorf("%s: exists %v after sweep; want %v", d, err == nil, want)
		}
	}
}
