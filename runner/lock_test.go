//go:build unix

package runner

import (
	"context"
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
	// Run on a locked directory fails fast and writes nothing.
	_, err = Run(context.Background(), blobsSpec(), Options{Dir: dir, Workers: 1})
	if !errors.As(err, &le) {
		t.Fatalf("Run on a locked dir: err = %v, want *LockedError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ResultsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Run on a locked dir touched %s: %v", ResultsFile, err)
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
