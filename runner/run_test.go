package runner

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// method builds a MethodSpec with the grid of the given values (each a
// list of values per param, expanded in the order given).
func runSpec(t *testing.T, sp *spec.Spec, dir string, workers int, progress Progress) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), sp, Options{Dir: dir, Workers: workers, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// strip removes what may legitimately differ between runs: timings.
func strip(rs []results.Result) []results.Result {
	out := make([]results.Result, len(rs))
	for i, r := range rs {
		r.FitSeconds, r.SelectSeconds = 0, 0
		out[i] = r
	}
	return out
}

func TestRunDeterministicAcrossWorkers(t *testing.T) {
	a := runSpec(t, blobsSpec(), t.TempDir(), 1, nil)
	b := runSpec(t, blobsSpec(), t.TempDir(), 4, nil)
	if len(a.Results) != len(a.Plan.Trials) {
		t.Fatalf("%d results for %d trials", len(a.Results), len(a.Plan.Trials))
	}
	if a.Failed != 0 {
		t.Fatalf("%d failed trials: %v", a.Failed, a.Results[0].Error)
	}
	if !reflect.DeepEqual(strip(a.Results), strip(b.Results)) {
		t.Error("-j 1 and -j 4 gave different results")
	}
	// 2 fixed variants + 1 cv + 1 oracle, 3 sizes, 3 trials.
	if got, want := len(a.Plan.Trials), 4*3*3; got != want {
		t.Errorf("plan has %d trials, want %d", got, want)
	}
	for _, r := range a.Results {
		if r.Size == 0 || r.TrainRows != r.Size || r.TestRows != 60 {
			t.Errorf("%s size %d: train %d test %d, want train = size and test 60", r.Method, r.Size, r.TrainRows, r.TestRows)
		}
		if r.Method == "centroid-oracle" && !r.Oracle {
			t.Error("test-rule result not flagged oracle")
		}
		if acc := r.Metrics["accuracy"]; acc < 34 || acc > 100 {
			t.Errorf("%s: accuracy %v not better than chance on separable blobs", r.Method, acc)
		}
	}
	// 0.5 of the 180-row pool is 90 rows. Results are in plan order.
	n := 0
	for i, tr := range a.Plan.Trials {
		if tr.Size == 0.5 {
			n++
			if got := a.Results[i].Size; got != 90 {
				t.Errorf("fraction 0.5 resolved to %d rows, want 90", got)
			}
		}
	}
	if n == 0 {
		t.Error("no trial of size 0.5 in the plan")
	}
}

func TestRunPairedSamples(t *testing.T) {
	// Every method sees the same sample seeds for the same (size, trial),
	// and nested samples share their seed across sizes.
	sum := runSpec(t, blobsSpec(), t.TempDir(), 2, nil)
	seeds := map[int]uint64{}
	for _, r := range sum.Results {
		if s, ok := seeds[r.Trial]; ok && s != r.Seeds.Sample {
			t.Fatalf("trial %d: sample seeds differ across methods or sizes", r.Trial)
		}
		seeds[r.Trial] = r.Seeds.Sample
	}
	if seeds[0] == seeds[1] {
		t.Error("trials 0 and 1 share a sample seed")
	}
}

// cancelAfter cancels a context after n finished trials.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Start(int, int) {}
func (c *cancelAfter) Finish()        {}
func (c *cancelAfter) Done(*results.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		c.cancel()
	}
}

func TestRunCancelAndResume(t *testing.T) {
	dir := t.TempDir()
	sp := blobsSpec()
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := Run(ctx, sp, Options{Dir: dir, Workers: 2, Progress: &cancelAfter{n: 5, cancel: cancel}})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Ran < 5 || sum.Ran >= len(sum.Plan.Trials) {
		t.Fatalf("interrupted=%v ran=%d of %d", sum.Interrupted, sum.Ran, len(sum.Plan.Trials))
	}
	first := sum.Ran
	sum2 := runSpec(t, blobsSpec(), dir, 3, nil)
	if sum2.Skipped != first || sum2.Ran != len(sum2.Plan.Trials)-first {
		t.Errorf("resume skipped %d ran %d; want %d and %d", sum2.Skipped, sum2.Ran, first, len(sum2.Plan.Trials)-first)
	}
	all, warns, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	keys := map[string]int{}
	for _, r := range all {
		keys[r.Key]++
	}
	if len(all) != len(sum2.Plan.Trials) || len(keys) != len(sum2.Plan.Trials) {
		t.Errorf("store has %d lines, %d keys; want %d each (no duplicate, none lost)", len(all), len(keys), len(sum2.Plan.Trials))
	}
	ref := runSpec(t, blobsSpec(), t.TempDir(), 1, nil)
	if !reflect.DeepEqual(strip(sum2.Results), strip(ref.Results)) {
		t.Error("interrupted-and-resumed run differs from an uninterrupted one")
	}
}

func TestRunTornAndCorruptLines(t *testing.T) {
	dir := t.TempDir()
	sum := runSpec(t, blobsSpec(), dir, 2, nil)
	path := filepath.Join(dir, results.ResultsFile)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	// Corrupt line 3, and cut the last line in half as a kill would.
	lines[2] = "{\"key\": \"x\", garbage\n"
	last := lines[len(lines)-1]
	lines[len(lines)-1] = last[:len(last)/2]
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)

	_, warns, err := results.ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 {
		t.Fatalf("got %d warnings, want 2 (corrupt line 3, torn last line): %v", len(warns), warns)
	}
	if le := warns[0].(*results.LineError); le.Line != 3 || le.Torn {
		t.Errorf("first warning %v, want corrupt line 3", le)
	}
	if le := warns[1].(*results.LineError); le.Line != len(lines) || !le.Torn {
		t.Errorf("second warning %v, want torn line %d", le, len(lines))
	}
	sum2 := runSpec(t, blobsSpec(), dir, 2, nil)
	if sum2.Ran != 2 {
		t.Errorf("rerun ran %d trials, want 2 (the corrupt and the torn one)", sum2.Ran)
	}
	if !reflect.DeepEqual(strip(sum2.Results), strip(sum.Results)) {
		t.Error("results after repair differ from the original run")
	}
	// The torn tail was truncated: every line but the corrupt one parses.
	_, warns, _ = results.ReadResults(path)
	if len(warns) != 1 {
		t.Errorf("after repair %d warnings, want only the corrupt middle line: %v", len(warns), warns)
	}
}

func TestRunChangedSpecRerunsOnlyChangedTrials(t *testing.T) {
	dir := t.TempDir()
	runSpec(t, blobsSpec(), dir, 2, nil)
	sp := blobsSpec()
	sp.Methods[1] = method("fake-centroid", "centroid-cv", "cv", []string{"shrink", "noise"}, []any{0.0, 0.3}, []any{0.0})
	sum := runSpec(t, sp, dir, 2, nil)
	if want := 3 * 3; sum.Ran != want {
		t.Errorf("changed one method's grid: ran %d trials, want %d", sum.Ran, want)
	}
	// Adding a grid value to a fixed method adds only the new variant.
	sp = blobsSpec()
	sp.Methods[0] = method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0, 0.5, 0.7}, []any{0.1})
	sum = runSpec(t, sp, dir, 2, nil)
	if want := 3 * 3; sum.Ran != want {
		t.Errorf("added a grid value: ran %d trials, want %d", sum.Ran, want)
	}
}

func TestRunFailuresRecordedAndRetried(t *testing.T) {
	dir := t.TempDir()
	sp := blobsSpec()
	sp.Methods = []spec.MethodSpec{
		method("fake-fail", "fail", "fixed", []string{"at"}, []any{12}),
		method("fake-panic", "panic", "fixed", nil),
	}
	sum := runSpec(t, sp, dir, 2, nil)
	// fail: sizes 12 fails (3 trials); panic: every trial (9).
	if sum.Failed != 3+9 {
		t.Fatalf("failed = %d, want 12", sum.Failed)
	}
	for _, r := range sum.Results {
		if r.Method == "panic" && !strings.Contains(r.Error, "panic: assignment to entry in nil map") {
			t.Errorf("panic trial error = %q", r.Error)
		}
		if r.Method == "fail" && r.Size == 12 && !strings.Contains(r.Error, "failing as asked") {
			t.Errorf("fail trial error = %q", r.Error)
		}
	}
	sum2 := runSpec(t, sp, dir, 2, nil)
	if sum2.Ran != 12 || sum2.Skipped != 6 {
		t.Errorf("rerun ran %d skipped %d; want the 12 failed retried and 6 skipped", sum2.Ran, sum2.Skipped)
	}
}

func TestRunSplits(t *testing.T) {
	tests := []struct {
		split     spec.Split
		given     bool
		size      float64
		wantTrain int
		wantTest  int
	}{
		{spec.Split{Kind: "given"}, true, 50, 50, 80},                                                           // 240 rows, last third test
		{spec.Split{Kind: "holdout", Params: param.Values{"test": 40.0, "stratify": false}}, false, 1, 200, 40}, // whole pool
		{spec.Split{Kind: "rest"}, false, 100, 100, 140},
		{spec.Split{Kind: "train"}, false, 1, 240, 240}, // in-sample: test = training rows
	}
	for _, tt := range tests {
		sp := blobsSpec()
		sp.Datasets[0].Params["given"] = tt.given
		sp.Datasets[0].Split = tt.split
		sp.Methods = sp.Methods[:1]
		sp.Curve = spec.Curve{Sizes: []float64{tt.size}, Trials: 2, Sampling: "random"}
		sum := runSpec(t, sp, t.TempDir(), 2, nil)
		for _, r := range sum.Results {
			if r.Failed() {
				t.Fatalf("%s: %s", tt.split.Kind, r.Error)
			}
			if r.TrainRows != tt.wantTrain || r.TestRows != tt.wantTest {
				t.Errorf("%s: train %d test %d, want %d and %d", tt.split.Kind, r.TrainRows, r.TestRows, tt.wantTrain, tt.wantTest)
			}
		}
	}
}

func TestRunOneVsRest(t *testing.T) {
	sp := blobsSpec()
	sp.Datasets[0].Tasks = "one-vs-rest"
	sp.Methods = sp.Methods[:1]
	sp.Metrics = []string{"binary_errors", "accuracy"}
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatal(r.Error)
		}
		be := r.Metrics["binary_errors"]
		// 60 test rows × 3 tasks: at most 180 errors, and far fewer on blobs.
		if be < 0 || be > 90 {
			t.Errorf("binary_errors = %v out of plausible range", be)
		}
		// The per-task parts are stored beside the total and add up to it.
		parts := 0.0
		for _, c := range []string{"a", "b", "c"} {
			v, ok := r.Metrics["binary_errors/"+c]
			if !ok {
				t.Fatalf("no binary_errors/%s in %v", c, r.Metrics)
			}
			parts += v
		}
		if parts != be {
			t.Errorf("per-task errors sum to %v, total %v", parts, be)
		}
	}
}

func TestRunArtifacts(t *testing.T) {
	dir := t.TempDir()
	sp := blobsSpec()
	sp.Methods = sp.Methods[:1]
	sum := runSpec(t, sp, dir, 2, nil)
	r := sum.Results[0]
	if len(r.Artifacts) != 1 {
		t.Fatalf("artifacts = %v, want one", r.Artifacts)
	}
	b, err := os.ReadFile(filepath.Join(dir, r.Artifacts[0]))
	if err != nil || !strings.Contains(string(b), `"centroids"`) {
		t.Errorf("artifact file: %v %s", err, b)
	}
}

func TestRunGrownGridKeepsResultsAndSeeds(t *testing.T) {
	// A one-value grid grown to two values keeps the trial keys of the old
	// point; its stored results must then look exactly like a fresh run's:
	// the same method seed (noise > 0 uses it) and the new variant label.
	one := blobsSpec()
	one.Methods = []spec.MethodSpec{method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0}, []any{0.5})}
	two := blobsSpec()
	two.Methods = []spec.MethodSpec{method("fake-centroid", "centroid", "fixed", []string{"shrink", "noise"}, []any{0.0, 0.5}, []any{0.5})}
	dir := t.TempDir()
	runSpec(t, one, dir, 2, nil)
	grown := runSpec(t, two, dir, 2, nil)
	if grown.Skipped != 9 || grown.Ran != 9 {
		t.Errorf("grown grid: skipped %d ran %d, want 9 and 9", grown.Skipped, grown.Ran)
	}
	fresh := runSpec(t, two, t.TempDir(), 2, nil)
	if !reflect.DeepEqual(strip(grown.Results), strip(fresh.Results)) {
		for i := range fresh.Results {
			if a, b := strip(grown.Results)[i], strip(fresh.Results)[i]; !reflect.DeepEqual(a, b) {
				t.Errorf("result %d differs:\nresumed %+v\nfresh   %+v", i, a, b)
				break
			}
		}
	}
}

func TestForPlanTypesChosenFromGrid(t *testing.T) {
	// A cv result read back from JSON holds float64 values; ForPlan gives
	// them the grid's types, so stored and fresh results compare equal.
	sp := blobsSpec()
	sp.Methods = []spec.MethodSpec{method("fake-fail", "f", "cv", []string{"at"}, []any{-1, -2})}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	r := results.Result{Key: plan.Trials[0].Key, Chosen: map[string]any{"at": float64(-2)}}
	got := spec.ForPlan(plan, []results.Result{r})
	if len(got) != 1 || got[0].Chosen["at"] != -2 || got[0].Method != "f" || got[0].Dataset != "blobs" {
		t.Errorf("ForPlan gave %+v", got)
	}
	if r.Chosen["at"] != float64(-2) {
		t.Error("ForPlan modified its input")
	}
}

// TestRunSelectScore checks the recorded score of a choice: none under
// the fixed rule, the chosen point's test metric under the test rule (the
// final fit repeats the choosing fit), a validation mean under cv.
func TestRunSelectScore(t *testing.T) {
	sum := runSpec(t, blobsSpec(), t.TempDir(), 2, nil)
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatal(r.Error)
		}
		switch r.Method {
		case "centroid":
			if r.SelectScore != nil {
				t.Errorf("fixed rule: select score %v, want none", *r.SelectScore)
			}
		case "centroid-oracle":
			if r.SelectScore == nil || *r.SelectScore != r.Metrics["accuracy"] {
				t.Errorf("test rule, size %d trial %d: select score %v, want the test accuracy %v", r.Size, r.Trial, r.SelectScore, r.Metrics["accuracy"])
			}
		case "centroid-cv":
			if r.SelectScore == nil || *r.SelectScore < 0 || *r.SelectScore > 100 {
				t.Errorf("cv rule, size %d trial %d: select score %v, want a validation accuracy", r.Size, r.Trial, r.SelectScore)
			}
		}
	}
}

// TestRunSelectOver checks select.over: a cv rule limited to one varying
// param makes one series per value of the other, and chooses only the
// param it is over.
func TestRunSelectOver(t *testing.T) {
	sp := blobsSpec()
	m := method("fake-centroid", "sweep", "cv", []string{"shrink", "noise"}, []any{0.0, 0.3, 0.9}, []any{0.0, 0.2})
	m.Select.Over = []string{"shrink"}
	sp.Methods = []spec.MethodSpec{m}
	sp.Baseline = ""
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	// 2 noise variants × 3 sizes × 3 trials, each choosing among 3 shrinks.
	if len(plan.Trials) != 18 {
		t.Fatalf("%d trials, want 18", len(plan.Trials))
	}
	if got, want := plan.Fits(), 18*(3*3+1); got != want {
		t.Errorf("Fits = %d, want %d", got, want)
	}
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	series := map[string]int{}
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatal(r.Error)
		}
		series[spec.SeriesName(r.Method, r.Variant)]++
		if _, ok := r.Chosen["shrink"]; !ok || len(r.Chosen) != 1 {
			t.Errorf("chosen %v, want shrink only", r.Chosen)
		}
	}
	want := map[string]int{"sweep (noise=0)": 9, "sweep (noise=0.2)": 9}
	if !reflect.DeepEqual(series, want) {
		t.Errorf("series %v, want %v", series, want)
	}
	if got := m.SeriesNames(); !reflect.DeepEqual(got, []string{"sweep", "sweep (noise=0)", "sweep (noise=0.2)"}) {
		t.Errorf("SeriesNames = %v", got)
	}
}

// A NaN metric — the AUC of a test set with a single class — is stored
// like any other value: the run does not fail, and the trial is done.
func TestRunNaNMetricStored(t *testing.T) {
	dir := t.TempDir()
	sp := blobsSpec()
	sp.Datasets[0].Params["classes"] = 2
	sp.Datasets[0].Split = spec.Split{Kind: "holdout", Params: param.Values{"test": 1.0, "stratify": false}}
	sp.Methods = sp.Methods[:1]
	sp.Curve = spec.Curve{Sizes: []float64{20}, Trials: 2, Sampling: "random"}
	sp.Baseline = ""
	sum, err := Run(context.Background(), sp, Options{Dir: dir, Workers: 2})
	if err != nil {
		t.Fatalf("run with a NaN metric: %v", err)
	}
	for _, r := range sum.Results {
		if r.Failed() || !math.IsNaN(r.Metrics["auc"]) || math.IsNaN(r.Metrics["accuracy"]) {
			t.Errorf("result %s: error %q metrics %v; want accuracy and a NaN auc", r.Key, r.Error, r.Metrics)
		}
	}
	stored, warns, err := results.ReadResults(filepath.Join(dir, results.ResultsFile))
	if err != nil || len(warns) > 0 {
		t.Fatalf("reading back: %v %v", err, warns)
	}
	if len(stored) != len(sum.Results) || !math.IsNaN(stored[0].Metrics["auc"]) {
		t.Fatalf("stored %d results (want %d), first metrics %v", len(stored), len(sum.Results), stored[0].Metrics)
	}
	if again := runSpec(t, sp, dir, 2, nil); again.Ran != 0 {
		t.Errorf("rerun ran %d trials, want 0", again.Ran)
	}
}

// A count beyond the pool, however large, fails its trial with a message
// rather than overflowing into a slice panic.
func TestResolveSize(t *testing.T) {
	tests := []struct {
		size    float64
		m, want int
		err     string
	}{
		{20, 100, 20, ""},
		{100, 100, 100, ""},
		{1, 100, 100, ""},
		{0.5, 101, 51, ""},
		{0.001, 100, 1, ""},
		{101, 100, 0, "training size 101 exceeds the training pool of 100 rows"},
		{1e30, 100, 0, "training size 1e+30 exceeds"},
		{9.3e18, 100, 0, "exceeds"},
		{0, 100, 0, "want a count"},
		{math.NaN(), 100, 0, "want a count"},
	}
	for _, tc := range tests {
		n, err := resolveSize(tc.size, tc.m)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("resolveSize(%g, %d) = %d, %v; want an error containing %q", tc.size, tc.m, n, err, tc.err)
			}
			continue
		}
		if err != nil || n != tc.want {
			t.Errorf("resolveSize(%g, %d) = %d, %v; want %d", tc.size, tc.m, n, err, tc.want)
		}
	}
}

// A last line that is a whole result without its newline (a file saved by
// an editor, or a write cut just before the '\n') is kept, not dropped and
// rerun, and the next append starts a line of its own. Two values on one
// line are a corrupt line, not the first of them.
func TestStoreLastLineWithoutNewline(t *testing.T) {
	dir := t.TempDir()
	first := runSpec(t, blobsSpec(), dir, 2, nil)
	path := filepath.Join(dir, results.ResultsFile)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	lines[1] = strings.TrimSuffix(lines[1], "\n") + " " + strings.TrimSuffix(lines[1], "\n") + "\n"
	dropped := strings.Index(lines[0], "\n")
	keyOf := func(line string) string {
		var r results.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		return r.Key
	}
	lostKey := keyOf(lines[0][:dropped])
	lines = lines[1:]                                          // one trial to run again
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644) // last line has no '\n'

	_, warns, err := results.ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].(*results.LineError).Line != 1 || warns[0].(*results.LineError).Torn {
		t.Fatalf("warnings %v; want only line 1 (two values) as corrupt", warns)
	}
	sum := runSpec(t, blobsSpec(), dir, 2, nil)
	if sum.Ran != 2 {
		t.Errorf("rerun ran %d trials, want 2 (the removed one and the corrupt one), not the unterminated last", sum.Ran)
	}
	if !reflect.DeepEqual(strip(sum.Results), strip(first.Results)) {
		t.Error("results differ from the first run")
	}
	stored, warns, _ := results.ReadResults(path)
	if len(warns) != 1 {
		t.Errorf("after rerun: %v; want the corrupt line 1 only", warns)
	}
	found := false
	for _, r := range stored {
		found = found || r.Key == lostKey
	}
	if !found || len(stored) != len(first.Results) {
		t.Errorf("stored %d results (want %d) with the rerun trial %v", len(stored), len(first.Results), found)
	}
}

// Cross-validation by AUC on a training set so small that some validation
// folds hold one class: the score is the mean over the folds where AUC is
// defined, instead of every grid point failing.
func TestRunCVUndefinedFolds(t *testing.T) {
	sp := blobsSpec()
	sp.Datasets[0].Params["classes"] = 2
	cv := method("fake-centroid", "centroid-cv", "cv", []string{"shrink", "noise"}, []any{0.0, 0.9}, []any{0.0})
	cv.Select = spec.Select{Rule: "cv", Folds: 5, Metric: "auc"}
	sp.Methods = []spec.MethodSpec{cv}
	sp.Curve = spec.Curve{Sizes: []float64{6}, Trials: 3, Sampling: "balanced"}
	sp.Baseline = ""
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	for _, r := range sum.Results {
		if r.Failed() {
			t.Errorf("trial %d: %s", r.Trial, r.Error)
		}
	}
}

// A key stored twice as finished with different metrics is warned of; a
// line missing a metric of the spec is not finished and its trial runs
// again; a huge worker count is capped with a warning.
func TestStoreConflictsAndIncompleteLines(t *testing.T) {
	sp := blobsSpec()
	sp.Methods = sp.Methods[:1]
	sp.Curve.Sizes = sp.Curve.Sizes[:1]
	dir := t.TempDir()
	first := runSpec(t, sp, dir, 2, nil)
	path := filepath.Join(dir, results.ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var a, b results.Result
	if err := json.Unmarshal([]byte(lines[0]), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &b); err != nil {
		t.Fatal(err)
	}
	a.Metrics["accuracy"] += 1
	delete(b.Metrics, "auc")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []results.Result{a, b} {
		line, _ := json.Marshal(r)
		f.Write(append(line, '\n'))
	}
	f.Close()
	sum, err := Run(context.Background(), sp, Options{Dir: dir, Workers: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, w := range sum.Warnings {
		warned = append(warned, w.Error())
	}
	all := strings.Join(warned, "\n")
	if !strings.Contains(all, "stored twice with different metrics") || !strings.Contains(all, "workers requested; capped at") {
		t.Errorf("warnings:\n%s\nwant the conflicting line and the capped workers", all)
	}
	if sum.Ran != 1 || sum.Skipped != len(first.Plan.Trials)-1 {
		t.Errorf("ran %d, skipped %d; want the incomplete trial rerun and the others kept", sum.Ran, sum.Skipped)
	}
}

// TestRunSamplesOf checks samples_of: an entry that takes another's
// samples meets the same test sets, training samples and folds in every
// trial (on the same data, the same scores), while an entry that draws its
// own does not; and an entry with other rows is refused before any trial.
func TestRunSamplesOf(t *testing.T) {
	sp := blobsSpec()
	sp.Methods = sp.Methods[1:] // cv and test rules, noise 0: no method randomness
	sp.Baseline = ""
	own := sp.Datasets[0]
	shared, fresh := own, own
	shared.ID, shared.SamplesOf = "shared", own.ID
	fresh.ID = "fresh"
	sp.Datasets = append(sp.Datasets, shared, fresh)
	sum := runSpec(t, sp, t.TempDir(), 2, nil)
	type cell struct {
		method      string
		size, trial int
	}
	score := map[string]map[cell]float64{}
	for _, r := range sum.Results {
		if r.Failed() {
			t.Fatal(r.Error)
		}
		if score[r.Dataset] == nil {
			score[r.Dataset] = map[cell]float64{}
		}
		score[r.Dataset][cell{r.Method, r.Size, r.Trial}] = r.Metrics["accuracy"] + 1000*r.Metrics["auc"]
	}
	differ := 0
	for c, v := range score[own.ID] {
		if got := score["shared"][c]; got != v {
			t.Errorf("%v: shared %v, want %v as on %s", c, got, v, own.ID)
		}
		if score["fresh"][c] != v {
			differ++
		}
	}
	if len(score[own.ID]) != 18 || differ == 0 {
		t.Errorf("%d cells, %d differ on the entry drawing its own samples; want 18 cells, some differing", len(score[own.ID]), differ)
	}

	other := sp.Datasets[1]
	other.Params = other.Params.Clone()
	other.Params["n"] = 200
	sp.Datasets = []spec.DatasetSpec{own, other}
	_, err := Run(context.Background(), sp, Options{Dir: t.TempDir(), Workers: 2})
	if err == nil || !strings.Contains(err.Error(), `datasets[1].samples_of: dataset "shared" has 200 rows and "blobs" 240`) {
		t.Errorf("other rows: error %v, want one at datasets[1].samples_of naming both row counts", err)
	}
}

func TestLoadAndRunRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(goodSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path, []string{"curve.trials=1", "curve.sizes=[12, 30]"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	sum := runSpec(t, s, out, 2, nil)
	if sum.Failed != 0 || len(sum.Results) != len(sum.Plan.Trials) {
		t.Fatalf("failed %d, %d results for %d trials", sum.Failed, len(sum.Results), len(sum.Plan.Trials))
	}
	// repro report / check reload DIR/spec.yaml: the same plan.
	s2, err := spec.Load(filepath.Join(out, spec.SpecFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(planKeys(t, s), planKeys(t, s2)) {
		t.Error("DIR/spec.yaml reloads to a different plan")
	}
	// And a rerun from the stored spec runs nothing.
	if sum2 := runSpec(t, s2, out, 2, nil); sum2.Ran != 0 {
		t.Errorf("rerun from spec.yaml ran %d trials, want 0", sum2.Ran)
	}
}

// A plugin whose New panics fails its trials with the panic; the plan,
// which never builds methods, is unaffected.
func TestPluginPanicInNewFailsTrial(t *testing.T) {
	s := mustParse(t, `name: t
datasets: [{name: fake-blobs, split: {kind: holdout, test: 50}}]
methods: [{name: fake-newpanic}]
curve: {sizes: [10]}
metrics: [accuracy]
`)
	sum, err := Run(context.Background(), s, Options{Dir: t.TempDir(), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) != 1 || !strings.Contains(sum.Results[0].Error, "panic: fake-newpanic: New panics") {
		t.Errorf("results %+v; want the plugin's panic reported", sum.Results)
	}
}
