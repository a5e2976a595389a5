//go:build !unix

package results

import (
	"fmt"
	"os"
	"path/filepath"
)

// LockDir creates the output directory dir if needed. On systems without
// flock(2) it takes no lock: two runs on the same directory are not
// detected.
func LockDir(dir string) (unlock func(), err error) { return lockDomain(dir, Shard{}) }

func lockDomain(dir string, _ Shard) (unlock func(), err error) { return lockFile(dir, LockFile) }

func lockFile(dir, name string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	return func() {}, nil
}
