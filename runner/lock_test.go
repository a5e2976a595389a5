//go:build unix

package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/results"
)

// TestRunLocked checks that Run takes the output directory's lock domain
// (results.LockDir, results.LockShard): on a directory another run holds
// it fails at once with a *results.LockedError and writes nothing.
func TestRunLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	refused := func(err error, msg string) {
		t.Helper()
		var le *results.LockedError
		if !errors.As(err, &le) {
			t.Fatalf("err = %v, want a *results.LockedError", err)
		}
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("message %q; want it to contain %q", err, msg)
		}
		if _, err := os.Stat(filepath.Join(dir, results.ResultsFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused run touched %s: %v", results.ResultsFile, err)
		}
	}

	// A run of every trial holds the directory.
	unlock, err := results.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), blobsSpec(), Options{Dir: dir, Workers: 1})
	refused(err, "in use by another repro run")
	_, err = Run(context.Background(), blobsSpec(), Options{Dir: dir, Shard: results.Shard{I: 1, N: 2}})
	refused(err, "shard 1/2 cannot run beside it")
	unlock()

	// A shard of 2 holds it.
	u0, err := results.LockShard(dir, results.Shard{I: 0, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), blobsSpec(), Options{Dir: dir, Workers: 1})
	refused(err, "a run of every trial cannot run beside it")
	u0()
}
