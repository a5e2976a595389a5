//go:build unix

package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "exp")
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file, so a second LockDir in the same
	// process conflicts just as another process would.
	_, err = LockDir(dir)
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second LockDir: err = %v, want *LockedError", err)
	}
	if le.Dir != dir || le.PID != os.Getpid() {
		t.Errorf("LockedError = %+v, want Dir %s, PID %d", le, dir, os.Getpid())
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("message %q does not name the directory", err)
	}
	unlock()
	unlock2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir after unlock: %v", err)
	}
	unlock2()
}

func TestLockDirNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LockDir(file)
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("LockDir on a file: err = %v, want an error naming %s", err, file)
	}
}

// TestLockDomain: an output directory is one lock domain. A run of every
// trial excludes any shard run and is excluded by one; the shards of one
// count share the directory; shards of another count are refused while
// any shard of the first runs, the first to start included or not; each
// refusal says who holds the directory.
func TestLockDomain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	locked := func(err error, holder, want Shard, msg string) {
		t.Helper()
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("err = %v, want a *LockedError", err)
		}
		if le.Holder != holder || le.Want != want || le.PID != os.Getpid() || le.Dir != dir {
			t.Errorf("LockedError = %+v, want holder %v, want %v, pid %d, dir %s", le, holder, want, os.Getpid(), dir)
		}
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("message %q; want it to contain %q", err, msg)
		}
	}
	lock := func(s Shard) func() {
		t.Helper()
		unlock, err := LockShard(dir, s)
		if err != nil {
			t.Fatalf("shard %s: %v", s, err)
		}
		return unlock
	}

	// A run of every trial, then shards.
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockShard(dir, Shard{I: 0, N: 2})
	locked(err, Shard{}, Shard{I: 0, N: 2}, "in use by a run of every trial (pid")
	_, err = LockShard(dir, Shard{I: 1, N: 2})
	locked(err, Shard{}, Shard{I: 1, N: 2}, "shard 1/2 cannot run beside it")
	unlock()

	// Shards of 2, then a run of every trial and shards of 3.
	u0, u1 := lock(Shard{I: 0, N: 2}), lock(Shard{I: 1, N: 2})
	_, err = LockDir(dir)
	locked(err, Shard{I: 0, N: 2}, Shard{}, "in use by a run split into 2 shards (shard 0/2, pid ")
	locked(err, Shard{I: 0, N: 2}, Shard{}, "a run of every trial cannot run beside it")
	_, err = LockShard(dir, Shard{I: 0, N: 3})
	locked(err, Shard{I: 0, N: 2}, Shard{I: 0, N: 3}, "run shards of 2 (--shard I/2)")
	_, err = LockShard(dir, Shard{I: 1, N: 2})
	locked(err, Shard{I: 1, N: 2}, Shard{I: 1, N: 2}, "in use by another run of shard 1/2")
	// The first shard leaves; the second still holds the directory.
	u0()
	_, err = LockShard(dir, Shard{I: 2, N: 3})
	locked(err, Shard{I: 0, N: 2}, Shard{I: 2, N: 3}, "shard 2/3 cannot run beside it")
	u0 = lock(Shard{I: 0, N: 2}) // a shard of 2 may rejoin
	u0()
	u1()

	// Free again: shards of 3 take it, and now refuse shards of 2.
	u := lock(Shard{I: 2, N: 3})
	_, err = LockShard(dir, Shard{I: 1, N: 2})
	locked(err, Shard{I: 2, N: 3}, Shard{I: 1, N: 2}, "a run split into 3 shards (shard 2/3, pid ")
	u()
	unlock, err = LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir once every shard left: %v", err)
	}
	unlock()
}
