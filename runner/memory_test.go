package runner

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

func TestParseMemLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{in: "8GB", want: 8e9},
		{in: "1.5 GiB", want: 3 << 29},
		{in: "500mb", want: 500e6},
		{in: "4096", want: 4096},
		{in: "2k", want: 2000},
		{in: " off ", want: NoMemLimit},
		{in: "None", want: NoMemLimit},
		{in: "", err: true},
		{in: "0GB", err: true},
		{in: "-1GB", err: true},
		{in: "8 furlongs", err: true},
		{in: "NaN", err: true},
		{in: "1e30", err: true},
	} {
		got, err := ParseMemLimit(c.in)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("ParseMemLimit(%q) = %d, %v; want %d, error %t", c.in, got, err, c.want, c.err)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for b, want := range map[int64]string{
		0: "0 B", 999: "999 B", 1000: "1 KB", 9_663_676_416: "9.66 GB", 512e6: "512 MB", math.MaxInt64: "9.22 EB",
	} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestDefaultMemLimit(t *testing.T) {
	if l := DefaultMemLimit(); l <= 0 || l > MachineMemory() {
		t.Errorf("DefaultMemLimit() = %d; machine memory %d", l, MachineMemory())
	}
}

// TestMemBudget: fits that fit the budget together run at once; one that
// does not waits for a release, or for its context; a fit alone always
// runs.
func TestMemBudget(t *testing.T) {
	b := newMemBudget(100)
	ctx := context.Background()
	if err := b.acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	if err := b.acquire(ctx, 40); err != nil {
		t.Fatal(err)
	}
	got := make(chan error)
	go func() { got <- b.acquire(ctx, 30) }()
	select {
	case err := <-got:
		t.Fatalf("acquired 30 beside 100 of 100: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.release(40) // 60 + 30 fit
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("acquire still waiting after a release made room")
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- b.acquire(cctx, 50) }()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire: %v", err)
	}
	b.release(60)
	b.release(30)
	if b.used != 0 {
		t.Fatalf("used %d after every release", b.used)
	}
	if err := b.acquire(ctx, 500); err != nil || b.used != 500 {
		t.Fatalf("a fit alone: %v, used %d", err, b.used)
	}
}

// fake-memory's fits: how many run at once, and the most that did.
var memFits struct {
	sync.Mutex
	now, most int
}

func init() {
	methods.Register("fake-memory", &methods.Plugin{
		Doc:   "nearest centroid whose memory estimate is its need parameter; counts the fits running at once (test fixture)",
		Kinds: methods.Classification,
		Params: []param.Decl{
			{Name: "need", Type: param.Int, Default: 0, Min: param.Bound(0), Doc: "the memory estimate, bytes"},
		},
		Memory: func(_ methods.Shape, p param.Values) int64 { return int64(p.Int("need")) },
		New:    func(param.Values) (methods.Method, error) { return memMethod{}, nil },
	})
}

type memMethod struct{}

func (memMethod) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	memFits.Lock()
	memFits.now++
	memFits.most = max(memFits.most, memFits.now)
	memFits.Unlock()
	time.Sleep(20 * time.Millisecond)
	memFits.Lock()
	memFits.now--
	memFits.Unlock()
	return (&centroid{}).Fit(ctx, train, env)
}

// TestRunMemoryBudget: fits that each fit the limit but not together run
// one at a time at -j 4, and all finish; a fit over the limit fails
// alone with the memory error.
func TestRunMemoryBudget(t *testing.T) {
	const need = 1 << 20
	per := need + methods.FitOverhead
	for _, c := range []struct {
		limit int64
		most  int // fits at once, at most
	}{
		{limit: int64(2*per - 1), most: 1},
		{limit: int64(3*per - 1), most: 2},
	} {
		memFits.most = 0
		sp := blobsSpec()
		sp.Methods = []spec.MethodSpec{method("fake-memory", "mem", "fixed", []string{"need"}, []any{need})}
		sp.Baseline = ""
		sum, err := Run(context.Background(), sp, Options{Dir: t.TempDir(), Workers: 4, MemLimit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Failed != 0 || len(sum.Results) != len(sum.Plan.Trials) {
			t.Fatalf("limit %d: %d of %d trials failed", c.limit, sum.Failed, len(sum.Plan.Trials))
		}
		if memFits.most < 1 || memFits.most > c.most {
			t.Errorf("limit %d: %d fits at once, want 1 to %d", c.limit, memFits.most, c.most)
		}
	}
	sp := blobsSpec()
	sp.Methods = []spec.MethodSpec{
		method("fake-memory", "big", "fixed", []string{"need"}, []any{need}),
		method("fake-memory", "small", "fixed", []string{"need"}, []any{1000}),
	}
	sp.Baseline = ""
	sum, err := Run(context.Background(), sp, Options{Dir: t.TempDir(), Workers: 2, MemLimit: need})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		want := ""
		if r.Method == "big" {
			want = `method "big" on `
		}
		if want == "" && r.Error != "" || !strings.HasPrefix(r.Error, want) || want != "" && !strings.Contains(r.Error, "needs about 1.31 MB, over the limit of 1.05 MB") {
			t.Errorf("%s trial: error %q", r.Method, r.Error)
		}
	}
	if sum.Failed == 0 || sum.Failed*2 != len(sum.Results) {
		t.Errorf("%d of %d trials failed; want the big method's", sum.Failed, len(sum.Results))
	}
}

// TestCgroupLimitFiles: the memory limit is looked for in the process's
// own cgroup and its ancestors (v2 memory.max, v1 memory.limit_in_bytes),
// not only at the root of /sys/fs/cgroup.
func TestCgroupLimitFiles(t *testing.T) {
	for _, c := range []struct {
		name, cgroup string
		want         []string
	}{
		{name: "none", want: []string{"R/memory.max", "R/memory/memory.limit_in_bytes"}},
		{name: "v2", cgroup: "0::/user.slice/job.scope\n", want: []string{
			"R/memory.max", "R/memory/memory.limit_in_bytes", "R/user.slice/job.scope/memory.max", "R/user.slice/memory.max"}},
		{name: "v2 root", cgroup: "0::/\n", want: []string{"R/memory.max", "R/memory/memory.limit_in_bytes"}},
		{name: "v1", cgroup: "5:cpu,cpuacct:/a\n4:memory:/docker/abc\n", want: []string{
			"R/memory.max", "R/memory/memory.limit_in_bytes", "R/memory/docker/abc/memory.limit_in_bytes", "R/memory/docker/memory.limit_in_bytes"}},
	} {
		if got := cgroupLimitFiles("R", []byte(c.cgroup)); !slices.Equal(got, c.want) {
			t.Errorf("%s: cgroupLimitFiles = %q, want %q", c.name, got, c.want)
		}
	}
	if p := ProcessMemory(); p <= 0 || p > MachineMemory() {
		t.Errorf("ProcessMemory() = %d; machine memory %d", p, MachineMemory())
	}
}
