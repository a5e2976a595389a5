package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/spec"
)

// MemLimitEnv is the environment variable holding the default of
// `repro run --mem-limit`.
const MemLimitEnv = "REPRO_MEM_LIMIT"

// NoMemLimit as Options.MemLimit turns the memory check off.
const NoMemLimit = -1

// fallbackMemory is the machine's memory assumed where it cannot be read.
const fallbackMemory = 16 << 30

// DefaultMemLimit returns the memory the fits may need by default: half
// of ProcessMemory, the smallest of the physical memory, the cgroup's
// limit and what RLIMIT_AS leaves, so that a fit that would exhaust it
// fails with an error instead of the process. Half, because the loaded
// data and the garbage the collector has not yet reclaimed (at the
// default GOGC of 100 the heap grows to twice the live memory before a
// collection) need the rest.
func DefaultMemLimit() int64 { return ProcessMemory() / 2 }

// ProcessMemory returns the memory this process can use: the smallest of
// MachineMemory (the physical memory or the cgroup's limit) and
// AddressSpace (what RLIMIT_AS leaves it).
func ProcessMemory() int64 {
	m := MachineMemory()
	if as := AddressSpace(); as > 0 && as < m {
		return as
	}
	return m
}

// MachineMemory returns the physical memory, or the memory limit of the
// process's cgroup (cgroup v2 memory.max, v1 memory.limit_in_bytes, the
// smallest along the cgroup's ancestors) when one is set and lower; 16 GiB
// where neither can be read.
func MachineMemory() int64 {
	total := int64(0)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if kb := statusKB(b, "MemTotal:"); kb > 0 {
			total = kb << 10
		}
	}
	cg, _ := os.ReadFile("/proc/self/cgroup")
	for _, f := range cgroupLimitFiles("/sys/fs/cgroup", cg) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// "max" (v2 without a limit) does not parse; v1 without a limit
		// reads a number near 2⁶³, above the physical memory.
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v
		}
	}
	if total <= 0 {
		return fallbackMemory
	}
	return total
}

// cgroupLimitFiles returns the files under root (/sys/fs/cgroup) that may
// hold a memory limit of the cgroup described by cgroup (the content of
// /proc/self/cgroup): memory.max of the v2 cgroup and of each of its
// ancestors, memory.limit_in_bytes of the v1 memory cgroup and of its
// ancestors, and the root's two files (where the cgroup namespace makes
// the process's own cgroup the root).
func cgroupLimitFiles(root string, cgroup []byte) []string {
	files := []string{root + "/memory.max", root + "/memory/memory.limit_in_bytes"}
	for _, line := range strings.Split(string(cgroup), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		dir, name := "", ""
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, name = root, "memory.max"
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			dir, name = root+"/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean("/" + parts[2]); p != "/"; p = path.Dir(p) {
			files = append(files, dir+p+"/"+name)
		}
	}
	return files
}

// statusKB returns the value in kB of the line of b (/proc/meminfo or
// /proc/self/status) starting with key, 0 if there is none.
func statusKB(b []byte, key string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
				return kb
			}
		}
	}
	return 0
}

// AddressSpace returns what the address-space limit (RLIMIT_AS, as set by
// ulimit -v or prlimit --as) leaves the process: the limit less the
// virtual memory the process already maps (VmSize: the binary, the Go
// runtime's reservations for its heap metadata, the thread stacks and the
// heap so far: measured on linux/amd64, 1.2 GB for any Go program at
// start, 1.7 GB for repro once its flags are parsed, almost all of it
// reserved, not resident). 0 without a limit or where it cannot be read.
func AddressSpace() int64 {
	limit := addressSpaceLimit()
	if limit <= 0 {
		return 0
	}
	used := int64(0)
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		used = statusKB(b, "VmSize:") << 10
	}
	return max(limit-used, 1)
}

// ParseMemLimit parses a memory limit: a number of bytes with an optional
// unit, decimal (KB, MB, GB, TB) or binary (KiB, MiB, GiB, TiB), such as
// "8GB", "1.5 GiB" or "500MB"; "off" (or "none") is NoMemLimit.
func ParseMemLimit(s string) (int64, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "off", "none":
		return NoMemLimit, nil
	}
	num := strings.TrimRight(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")
	unit := strings.ToLower(strings.TrimSpace(t[len(num):]))
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[unit]
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || mult == 0 || !(v > 0) || v*mult >= 1<<62 {
		return 0, fmt.Errorf("memory limit %q: want a positive size such as 8GB, 1.5GiB or 500MB, or off", s)
	}
	return int64(v * mult), nil
}

// FormatBytes returns b in decimal units with three significant digits:
// "9.66 GB", "512 MB".
func FormatBytes(b int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}
	v, u := float64(b), 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + units[u]
}

// MemoryError is the error of a trial whose fit (or transform fitted per
// trial) would need more memory than the run's limit: it is refused
// before it allocates anything.
type MemoryError struct {
	// What is refused: `method "LR" at C=1` or `transform "pca" (fit:
	// pool)`.
	What  string
	Rows  int
	Cols  int
	Need  int64 // the plugin's estimate, bytes
	Limit int64 // the run's limit, bytes
}

func (e *MemoryError) Error() string {
	if e.Rows == 0 && e.Cols == 0 {
		// A load: its shape is not known before it reads.
		return fmt.Sprintf("%s: needs about %s, over the limit of %s (--mem-limit or $%s)",
			e.What, FormatBytes(e.Need), FormatBytes(e.Limit), MemLimitEnv)
	}
	return fmt.Sprintf("%s on %d rows × %d columns: needs about %s, over the limit of %s (--mem-limit or $%s)",
		e.What, e.Rows, e.Cols, FormatBytes(e.Need), FormatBytes(e.Limit), MemLimitEnv)
}

// loadMemory refuses, before it reads anything, the load of dataset ds
// whose loader's estimate (datasets.Loader.Memory: what it reads, keeps
// and builds, from its files' sizes) exceeds the run's limit: reading a
// table far beyond the limit would take the process down with it, not
// the one dataset's trials. A loader that declares no estimate, or a
// run without a limit, loads.
func loadMemory(env datasets.Env, ds *spec.DatasetSpec, limit int64) error {
	if limit <= 0 {
		return nil
	}
	l, err := datasets.Lookup(ds.Name)
	if err != nil || l.Memory == nil {
		return nil
	}
	if need := l.Memory(env, ds.Params); need > limit {
		return &MemoryError{What: fmt.Sprintf("loading dataset %q (%s)", ds.ID, ds.Name), Need: need, Limit: limit}
	}
	return nil
}

// transformNeed returns the memory transform tr (spec ts) needs on d by
// its estimate (datasets.Transform.MemoryOf) with a fit's overhead, and
// false when it declares none.
func transformNeed(tr *datasets.Transform, ts spec.TransformSpec, d *datasets.Dataset) (int64, bool) {
	est, ok := tr.MemoryOf(d, ts.Params)
	if !ok {
		return 0, false
	}
	return methods.Bytes(est, methods.FitOverhead), true
}

// transformMemory returns a *MemoryError if transform tr (spec ts) on d
// would need more memory than limit by its estimate
// (datasets.Transform.MemoryOf); nil when it has none or limit ≤ 0.
func transformMemory(tr *datasets.Transform, ts spec.TransformSpec, d *datasets.Dataset, limit int64) error {
	if limit <= 0 {
		return nil
	}
	need, ok := transformNeed(tr, ts, d)
	if !ok || need <= limit {
		return nil
	}
	r, c := d.X.Dims()
	what := fmt.Sprintf("transform %q (fit: %s)", ts.Name, ts.Fit)
	if !ts.PerTrial() {
		what = fmt.Sprintf("transform %q (on the whole dataset)", ts.Name)
	}
	return &MemoryError{What: what, Rows: r, Cols: c, Need: need, Limit: limit}
}

// checkMemory returns the memory fitting the trial's method on train
// needs, at its grid point or at the most demanding of the candidates its
// select rule chooses among, by the plugin's estimate
// (methods.Plugin.Memory) for predicting test rows too; and a
// *MemoryError if that is over the run's limit. TrialRun.Fit calls it
// first, so that the trial fails with that error, is recorded, and the
// run goes on.
func (t *TrialRun) checkMemory(train, test *datasets.Dataset) (int64, error) {
	limit := t.x.memLimit
	if limit <= 0 {
		return 0, nil
	}
	m := t.Trial.Method
	pl, err := methods.Lookup(m.Name)
	if err != nil {
		return 0, nil // the fit reports it
	}
	points := []int{t.Trial.Point}
	if t.Trial.Point < 0 {
		points = t.Trial.Choices()
	}
	tests := 0
	if test != nil {
		tests = test.Rows()
	}
	s := methods.ShapeOf(train, tests)
	most := int64(0)
	for _, g := range points {
		if g < 0 || g >= len(m.Grid) {
			continue
		}
		need := pl.MemoryOf(s, m.Grid[g])
		if need > limit {
			what := fmt.Sprintf("method %q", m.Label)
			if len(m.Grid) > 1 {
				what += " at " + m.Grid[g].Label()
			}
			return 0, &MemoryError{What: what, Rows: s.Rows, Cols: s.Cols, Need: need, Limit: limit}
		}
		most = max(most, need)
	}
	return most, nil
}

// reserve holds need bytes of the run's memory budget for the trial,
// waiting for other trials to release theirs when the budget cannot hold
// all of them: -j trials at once may each fit under the limit, but not
// together. A trial holds the most its fits have needed until
// releaseMemory; to grow its share it gives it back first, so that no
// trial waits while holding memory another waits for.
func (t *TrialRun) reserve(ctx context.Context, need int64) error {
	b := t.x.budget
	if b == nil || need <= t.reserved {
		return nil
	}
	b.release(t.reserved)
	t.reserved = 0
	if err := b.acquire(ctx, need); err != nil {
		return err
	}
	t.reserved = need
	return nil
}

// releaseMemory returns the trial's share of the memory budget.
func (t *TrialRun) releaseMemory() {
	if t.x.budget != nil {
		t.x.budget.release(t.reserved)
	}
	t.reserved = 0
}

// memBudget is the memory the run's fits and resident datasets may hold
// at once, shared by its workers and its loads: used is what the fits
// (and the transforms fitting or applying) running now reserved, data what
// the datasets loaded or loading hold (residents).
type memBudget struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	data    int64
	changed chan struct{} // closed and replaced at each release
}

func newMemBudget(limit int64) *memBudget {
	return &memBudget{limit: limit, changed: make(chan struct{})}
}

// acquire takes n bytes, waiting until they fit under the limit beside
// those already taken and the resident data (or no fit holds any: n alone
// may be what the limit allows, and the data stays until its trials,
// this one among them, end), or until ctx is done.
func (b *memBudget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.used == 0 || b.data+b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryAcquire takes n bytes if they fit under the limit now.
func (b *memBudget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.data+b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// release gives back n bytes.
func (b *memBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.notify()
	b.mu.Unlock()
}

// admitData takes n bytes for a dataset about to load if they fit under
// the limit beside the fits and the resident data, or if no dataset is
// resident: one dataset always loads, whatever it needs.
func (b *memBudget) admitData(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.data > 0 && b.data+b.used+n > b.limit {
		return false
	}
	b.data += n
	return true
}

// addData changes the bytes the resident datasets hold by delta: a
// dataset's measured size replacing its guess (admitData), or a released
// dataset's bytes given back (negative).
func (b *memBudget) addData(delta int64) {
	if delta == 0 {
		return
	}
	b.mu.Lock()
	b.data += delta
	if delta < 0 {
		b.notify()
	}
	b.mu.Unlock()
}

// notify wakes those waiting in acquire; b.mu is held.
func (b *memBudget) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// over returns the bytes the resident datasets hold above the limit, ≤ 0
// when they hold less.
func (b *memBudget) over() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data - b.limit
}
