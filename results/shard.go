package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ShardDir is the directory of an output directory that holds the
// results files of sharded runs, one per shard.
const ShardDir = "results"

// Shard names shard I (0-based) of a partition of a plan into N shards.
// The zero Shard is no sharding: the whole plan.
type Shard struct {
	I, N int
}

// String formats s as "I/N", the form ParseShard reads.
func (s Shard) String() string { return strconv.Itoa(s.I) + "/" + strconv.Itoa(s.N) }

// File returns the name of the shard's results file, relative to the
// output directory: results/shard-I-of-N.jsonl.
func (s Shard) File() string {
	return filepath.Join(ShardDir, fmt.Sprintf("shard-%d-of-%d.jsonl", s.I, s.N))
}

// lockName is the shard's lock file, relative to the output directory.
func (s Shard) lockName() string {
	return filepath.Join(ShardDir, fmt.Sprintf(".shard-%d-of-%d.lock", s.I, s.N))
}

// ParseShard reads "I/N": shard I, 0 ≤ I < N, of N.
func ParseShard(v string) (Shard, error) {
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want I/N, shard I (from 0) of N, e.g. 0/4", v)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want 0 ≤ I < N", v)
	}
	return Shard{I: i, N: n}, nil
}

// LockShard takes the locks a run of shard s of the output directory dir
// holds: the directory's lock shared with the other shards of s.N (see
// LockDir), and the shard's own (dir/results/.shard-I-of-N.lock), so that
// the shards of a job array run at once. It fails at once with a
// *LockedError when a run of every trial or shards of another count hold
// the directory, or another run holds the same shard.
func LockShard(dir string, s Shard) (unlock func(), err error) {
	undo, err := lockDomain(dir, s)
	if err != nil {
		return nil, err
	}
	own, err := lockFile(dir, s.lockName())
	if err != nil {
		undo()
		var le *LockedError
		if errors.As(err, &le) {
			le.Holder, le.Want = s, s
			return nil, le
		}
		return nil, fmt.Errorf("shard %s: %w", s, err)
	}
	return func() { own(); undo() }, nil
}

// OpenShardStore opens the results file of shard s in dir and returns the
// results of the shard's trials already stored: in the shard's file, and
// in the directory's results.jsonl (a local run started before), which
// it only reads.
func OpenShardStore(dir string, s Shard, in map[string]bool) (*Store, []Result, []error, error) {
	local, warns, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		return nil, nil, nil, err
	}
	var existing []Result
	for _, r := range local {
		if in[r.Key] {
			existing = append(existing, r)
		}
	}
	store, own, w, err := openStoreFile(filepath.Join(dir, s.File()))
	if err != nil {
		return nil, nil, nil, err
	}
	return store, preferFinished(append(existing, own...)), append(warns, w...), nil
}

// WithShards adds to the results of a local run's results.jsonl those
// of the shards' files in dir, which it only reads: a local run after a
// sharded one runs only what the shards left.
func WithShards(dir string, local []Result, warns []error) ([]Result, []error, error) {
	rs, ws, n, err := readShardFiles(dir)
	if err != nil || n == 0 {
		return local, warns, err
	}
	return preferFinished(append(local, rs...)), append(warns, ws...), nil
}

// preferFinished orders results from several files so that Latest keeps,
// for each key, the last successful result if there is one, else the last
// failed one: the files' order says nothing about which of two lines of a
// key is newer, but a trial that succeeded is never run again. (Within
// one file the order is already so.)
func preferFinished(rs []Result) []Result {
	out := make([]Result, 0, len(rs))
	for _, r := range rs {
		if r.Failed() {
			out = append(out, r)
		}
	}
	for _, r := range rs {
		if !r.Failed() {
			out = append(out, r)
		}
	}
	return out
}

// readShardFiles reads the results files of every shard of dir and
// returns their results, damaged lines, and how many files there were.
func readShardFiles(dir string) ([]Result, []error, int, error) {
	shards, err := ShardFiles(dir)
	if err != nil {
		return nil, nil, 0, err
	}
	var results []Result
	var warns []error
	for _, s := range shards {
		rs, ws, err := ReadResults(filepath.Join(dir, s.File()))
		if err != nil {
			return nil, nil, 0, err
		}
		results = append(results, rs...)
		warns = append(warns, ws...)
	}
	return results, warns, len(shards), nil
}

// ShardFiles returns the shards whose results files dir holds, ordered by
// N then I.
func ShardFiles(dir string) ([]Shard, error) {
	entries, err := os.ReadDir(filepath.Join(dir, ShardDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Shard
	for _, e := range entries {
		var s Shard
		if _, err := fmt.Sscanf(e.Name(), "shard-%d-of-%d.jsonl", &s.I, &s.N); err != nil || e.Name() != filepath.Base(s.File()) {
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool {
		return out[a].N < out[b].N || out[a].N == out[b].N && out[a].I < out[b].I
	})
	return out, nil
}

// ReadAllResults reads every results file of the output directory dir:
// results.jsonl of a local run and the shards' files. Where a key has a
// successful and a failed line in different files the successful one is
// the latest (Latest). It returns the results, the damaged lines of every
// file, and whether dir holds any results file at all.
func ReadAllResults(dir string) (results []Result, warns []error, found bool, err error) {
	path := filepath.Join(dir, ResultsFile)
	_, statErr := os.Stat(path)
	results, warns, err = ReadResults(path)
	if err != nil {
		return nil, nil, false, err
	}
	rs, ws, n, err := readShardFiles(dir)
	if err != nil {
		return nil, nil, false, err
	}
	if n > 0 {
		results, warns = preferFinished(append(results, rs...)), append(warns, ws...)
	}
	return results, warns, statErr == nil || n > 0, nil
}
