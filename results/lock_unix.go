//go:build unix

package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockDir takes the lock of the output directory dir (creating it if
// needed) for a run of every trial — a full run, a report — so that two
// runs on one directory do not interleave their results. It is held
// through the advisory flock(2) lock on dir/.lock, exclusively: a shard
// run holds the same lock shared (LockShard), so the two exclude each
// other. LockDir does not wait: if another process (or another LockDir
// or LockShard in this process) holds the lock it returns a *LockedError
// at once, saying who. The lock is released by calling unlock, or by the
// kernel when the process exits, so a killed run never leaves a stale
// lock behind.
func LockDir(dir string) (unlock func(), err error) { return lockDomain(dir, Shard{}) }

// lockDomain takes dir/.lock for s: exclusively for a run of every trial
// (s.N == 0), else shared with the shards of s.N alone. Under the guard
// lock, so that no other process takes or reads .lock meanwhile: a run
// that finds .lock free takes it exclusively and records itself; a shard
// then turns its lock into a shared one. A shard that finds it held
// takes it shared if it can — only shards hold it so — and keeps it if
// the record, written by the first of those shards, has its N.
func lockDomain(dir string, s Shard) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	guard, err := os.OpenFile(filepath.Join(dir, guardFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	defer guard.Close() // releases the guard
	if err := flock(guard, syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("%s: lock: %w", guard.Name(), err)
	}
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	refuse := func() error {
		defer f.Close()
		b := make([]byte, 64)
		n, _ := f.ReadAt(b, 0)
		pid, holder := parseLockRecord(b[:n])
		return &LockedError{Dir: dir, PID: pid, Holder: holder, Want: s}
	}
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		// Alone: record the holder for the message a second run prints.
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(lockRecord(os.Getpid(), s)), 0)
		}
		if s.N > 0 {
			if err := flock(f, syscall.LOCK_SH); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: lock: %w", f.Name(), err)
			}
		}
	case !errors.Is(err, syscall.EWOULDBLOCK):
		f.Close()
		return nil, fmt.Errorf("%s: lock: %w", f.Name(), err)
	case s.N == 0:
		return nil, refuse()
	default:
		if err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, refuse() // a run of every trial
			}
			f.Close()
			return nil, fmt.Errorf("%s: lock: %w", f.Name(), err)
		}
		b := make([]byte, 64)
		n, _ := f.ReadAt(b, 0)
		if _, holder := parseLockRecord(b[:n]); holder.N != s.N {
			flock(f, syscall.LOCK_UN)
			return nil, refuse()
		}
	}
	return func() {
		flock(f, syscall.LOCK_UN)
		f.Close()
	}, nil
}

// lockFile takes an exclusive lock on dir/name, creating the directories
// on the way, as LockDir does but alone: a shard's own lock.
func lockFile(dir, name string) (unlock func(), err error) {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 64)
			n, _ := f.ReadAt(b, 0)
			pid, _ := parseLockRecord(b[:n])
			return nil, &LockedError{Dir: dir, PID: pid}
		}
		return nil, fmt.Errorf("%s: lock: %w", path, err)
	}
	// Record the holder for the message a second run prints.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(lockRecord(os.Getpid(), Shard{})), 0)
	}
	return func() {
		flock(f, syscall.LOCK_UN)
		f.Close()
	}, nil
}

// flock applies flock(2) operation how to f, again when interrupted.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
