//go:build unix

package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockDir takes an exclusive lock on the output directory dir (creating
// it if needed), held through the advisory flock(2) lock on dir/.lock, so
// that two runs on the same directory do not interleave their results. It
// does not wait: if another process (or another LockDir in this process)
// holds the lock it returns a *LockedError at once. The lock is released
// by calling unlock, or by the kernel when the process exits, so a killed
// run never leaves a stale lock behind.
func LockDir(dir string) (unlock func(), err error) { return lockFile(dir, LockFile) }

// lockFile locks dir/name as LockDir locks dir/.lock, creating the
// directories on the way.
func lockFile(dir, name string) (unlock func(), err error) {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
			return nil, &LockedError{Dir: dir, PID: pid}
		}
		return nil, fmt.Errorf("%s: lock: %w", path, err)
	}
	// Record the holder for the message a second run prints.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		syscall.Flock(fd, syscall.LOCK_UN)
		f.Close()
	}, nil
}
