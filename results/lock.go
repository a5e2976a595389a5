package results

import (
	"fmt"
	"strconv"
	"strings"
)

// LockFile is the name of the lock file in an output directory.
const LockFile = ".lock"

// guardFile is the lock a process holds, for a moment, while it takes or
// refuses the directory's lock (LockDir, LockShard), so that what
// LockFile records about its holders is read and written by one process
// at a time.
const guardFile = ".lock-guard"

// An output directory is one lock domain: a run of every trial holds
// DIR/.lock alone (LockDir); the shards of one count N share it
// (LockShard), each also holding its own shard lock. So a run of every
// trial and a shard run never run at once on one directory, nor shards of
// different counts (0/2 beside 0/3), while the shards of a job array do.
// DIR/.lock records its holder: "PID" for a run of every trial, "PID shard
// I/N" for the first shard of a sharded run.

// LockedError is returned by LockDir, LockShard (and runner.Run) when another run
// holds the output directory, or the shard.
type LockedError struct {
	Dir string
	// PID is the process holding the lock, when known (0 otherwise); of
	// a sharded run, the first of its shards to start.
	PID int
	// Holder is the shard run holding the directory (the first of its
	// shards to start), or the zero Shard for a run of every trial.
	Holder Shard
	// Want is the shard the refused run asked for, or the zero Shard for
	// a run of every trial.
	Want Shard
}

func (e *LockedError) Error() string {
	pid := ""
	if e.PID > 0 {
		pid = fmt.Sprintf(" (pid %d)", e.PID)
	}
	wait := "wait for it to finish, or give this run another directory with -o"
	var who string
	switch {
	case e.Holder.N == 0 && e.Want.N == 0:
		who = "another repro run" + pid
	case e.Holder.N == 0:
		who = fmt.Sprintf("a run of every trial%s: shard %s cannot run beside it", pid, e.Want)
	case e.Holder == e.Want:
		who = fmt.Sprintf("another run of shard %s%s", e.Holder, pid)
	case e.Want.N == 0:
		who = fmt.Sprintf("a run split into %d shards (shard %s%s and maybe others): a run of every trial cannot run beside it", e.Holder.N, e.Holder, shardPID(e.PID))
		wait = "wait for its shards to finish, or give this run another directory with -o"
	default:
		who = fmt.Sprintf("a run split into %d shards (shard %s%s and maybe others): shard %s cannot run beside it, the shards of one directory split it alike", e.Holder.N, e.Holder, shardPID(e.PID), e.Want)
		wait = fmt.Sprintf("wait for its shards to finish, run shards of %d (--shard I/%d), or give this run another directory with -o", e.Holder.N, e.Holder.N)
	}
	return fmt.Sprintf("output directory %s is in use by %s; %s", e.Dir, who, wait)
}

// shardPID is ", pid P" when the pid is known.
func shardPID(pid int) string {
	if pid > 0 {
		return fmt.Sprintf(", pid %d,", pid)
	}
	return ""
}

// lockRecord is what LockFile says of a holder s: its pid, and for a
// shard "shard I/N".
func lockRecord(pid int, s Shard) string {
	if s.N == 0 {
		return strconv.Itoa(pid) + "\n"
	}
	return fmt.Sprintf("%d shard %s\n", pid, s)
}

// parseLockRecord reads a lockRecord: the holder's pid (0 if unknown) and
// shard (zero for a run of every trial).
func parseLockRecord(b []byte) (pid int, s Shard) {
	f := strings.Fields(string(b))
	if len(f) > 0 {
		pid, _ = strconv.Atoi(f[0])
	}
	if len(f) >= 3 && f[1] == "shard" {
		s, _ = ParseShard(f[2])
	}
	return pid, s
}
