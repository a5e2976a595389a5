package command

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tempPrefix starts the name of every temporary directory of a program,
// followed by the pid of the repro that made it: "repro-cmd-4242-…".
const tempPrefix = "repro-cmd-"

var sweepOnce sync.Once

// tempDir makes a temporary directory for a program under $TMPDIR, named
// for this process. The first call of a run removes the directories that
// runs no longer alive left behind (a run killed with kill -9 removes
// nothing).
func tempDir() (string, error) {
	sweepOnce.Do(func() { sweep(os.TempDir()) })
	return os.MkdirTemp("", tempPrefix+strconv.Itoa(os.Getpid())+"-")
}

// sweep removes the directories under tmp named tempPrefix+PID-… whose
// process PID no longer exists.
func sweep(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		num, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(num)
		if !ok || err != nil || pid <= 0 || pid == self || alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}
