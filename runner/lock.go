package runner

import "fmt"

// LockFile is the name of the lock file in an output directory.
const LockFile = ".lock"

// LockedError is returned by LockDir (and Run) when another run holds the
// output directory's lock.
type LockedError struct {
	Dir string
	// PID is the process holding the lock, when known (0 otherwise).
	PID int
}

func (e *LockedError) Error() string {
	who := "another repro run"
	if e.PID > 0 {
		who = fmt.Sprintf("another repro run (pid %d)", e.PID)
	}
	return fmt.Sprintf("output directory %s is in use by %s; wait for it to finish, or give this run another directory with -o", e.Dir, who)
}
