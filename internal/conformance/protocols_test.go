package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

// protocolParams gives the suite's values of protocol params for the small
// runs of TestProtocols (active: a few batches of an odd size, so that the
// last one is cut by the budget). A protocol with a required param missing
// here fails TestProtocols, which names it.
var protocolParams = map[string]map[string]any{
	"active": {"initial": 10, "batch": 7, "budget": 38},
}

// cancelParams gives the protocol params of the run TestProtocols cancels:
// enough work in one trial that it cannot end before the cancellation.
var cancelParams = map[string]map[string]any{
	"active": {"initial": 10, "batch": 20, "budget": 400},
}

// TestProtocols runs a small experiment under every registered protocol —
// two iris datasets (one with a transform fitted on the training rows),
// a method with a grid of two variants and one choosing by cross-validation
// — and checks that:
//   - every trial succeeds, its metrics and select score finite;
//   - its observations come in strictly increasing x, one per fit the
//     protocol's Steps promises (one when Steps is nil), and a protocol
//     run per size observes at the trial's size only;
//   - the results at -j 1 and -j 4 are the same, compared trial key by
//     trial key, timings aside;
//   - a run cancelled while a trial is running returns within promptly
//     of the cancellation, reports Interrupted, and does not let the
//     running trial complete (cancelRun).
func TestProtocols(t *testing.T) {
	for name := range protocolParams {
		if _, err := runner.LookupProtocol(name); err != nil {
			t.Errorf("protocolParams: %v", err)
		}
	}
	for _, name := range spec.Protocols.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pr, err := runner.LookupProtocol(name)
			if err != nil {
				t.Fatal(err)
			}
			if pr.Doc == "" || pr.Run == nil {
				t.Fatalf("Doc and Run must be set (Doc %q)", pr.Doc)
			}
			p := resolve(t, "protocol "+name, pr.Params, protocolParams[name])
			sp := parseSpec(t, protocolSpec(name, pr, protocolParams[name], "iris", "holdout, test: 50, stratify: true",
				`{name: logreg-l2, label: fixed, params: {C: [0.1, 1]}}`,
				`{name: logreg-l2, label: cv, params: {C: [0.01, 10]}, select: {rule: cv, folds: 3}}`))
			one := runSpec(t, sp, t.TempDir(), 1)
			steps := 1
			if pr.Steps != nil {
				steps = pr.Steps(p)
			}
			for i := range one.Results {
				r := &one.Results[i]
				checkFinite(t, r)
				pts := r.Points()
				if len(pts) != steps {
					t.Errorf("%s %s trial %d: %d observations, want %d (Steps)", r.Dataset, r.Method, r.Trial, len(pts), steps)
				}
				for k := 1; k < len(pts); k++ {
					if !(pts[k].X > pts[k-1].X) {
						t.Errorf("%s %s trial %d: observation %d at x = %v after x = %v; want x strictly increasing", r.Dataset, r.Method, r.Trial, k, pts[k].X, pts[k-1].X)
					}
				}
				if pr.PerSize && (len(pts) != 1 || pts[0].X != float64(r.Size)) {
					t.Errorf("%s %s trial %d: a protocol run per size observes at x = %v, want its size %d", r.Dataset, r.Method, r.Trial, pts[0].X, r.Size)
				}
			}
			four := runSpec(t, sp, t.TempDir(), 4)
			sameResults(t, one.Results, four.Results)
			t.Run("cancel", func(t *testing.T) { cancelRun(t, name, pr) })
		})
	}
}

// protocolSpec returns the YAML spec of a run of protocol name with params
// p (in the order the protocol declares them) on dataset with split kind
// and params split, of the methods given, and its iris twin with a
// transform fitted on each training set.
func protocolSpec(name string, pr *runner.Protocol, p map[string]any, dataset, split string, methods ...string) string {
	curve := "{trials: 2}"
	if pr.PerSize {
		curve = "{sizes: [20, 40], trials: 2}"
	}
	ms := ""
	for _, m := range methods {
		ms += "  - " + m + "\n"
	}
	return fmt.Sprintf(`name: conform-protocol
seed: 9
datasets:
  - {name: %[2]s, split: {kind: %[3]s}}
  - {name: %[2]s, id: fitted, transforms: [{name: standardize, fit: train}], split: {kind: %[3]s}}
methods:
%[4]sprotocol: {name: %[1]s%[5]s}
curve: %[6]s
metrics: [accuracy]
`, name, dataset, split, ms, yamlParams(param.Names(pr.Params), p), curve)
}

// sameResults checks that a and b hold the same results, paired by trial
// key, timings aside.
func sameResults(t *testing.T, a, b []results.Result) {
	t.Helper()
	strip := func(rs []results.Result) map[string]results.Result {
		out := map[string]results.Result{}
		for _, r := range rs {
			r.FitSeconds, r.SelectSeconds = 0, 0
			out[r.Key] = r
		}
		return out
	}
	ma, mb := strip(a), strip(b)
	if len(ma) != len(a) || len(ma) != len(mb) {
		t.Fatalf("%d and %d results, %d and %d distinct keys", len(a), len(b), len(ma), len(mb))
	}
	for k, ra := range ma {
		rb, ok := mb[k]
		if !ok {
			t.Errorf("trial %s (%s %s trial %d): no result at -j 4", k, ra.Dataset, ra.Method, ra.Trial)
			continue
		}
		if !reflect.DeepEqual(ra, rb) {
			ja, _ := json.Marshal(ra)
			jb, _ := json.Marshal(rb)
			i := 0
			for i < min(len(ja), len(jb)) && ja[i] == jb[i] {
				i++
			}
			from := max(0, i-60)
			t.Errorf("trial %s (%s %s size %d trial %d): results differ between -j 1 and -j 4 at\n-j 1: …%s\n-j 4: …%s",
				k, ra.Dataset, ra.Method, ra.Size, ra.Trial, ja[from:min(len(ja), i+60)], jb[from:min(len(jb), i+60)])
		}
	}
}

// cancelDelay is how long after its trials start cancelRun cancels a run.
const cancelDelay = 300 * time.Millisecond

// cancelRun runs protocol name on the embedded DNA splice data (3186 rows,
// 180 columns) with a slow learner (logistic regression run to a tight
// tolerance, several seconds a fit on a loaded machine), one trial at a
// time, cancels the run cancelDelay after its trials start and checks that
// Run returns within promptly of the cancellation, reports Interrupted,
// and ran no trial to its end: the trial running at the cancellation must
// see it and stop.
func cancelRun(t *testing.T, name string, pr *runner.Protocol) {
	sp := parseSpec(t, protocolSpec(name, pr, cancelParams[name], "dna-splice", "holdout, test: 500",
		`{name: logreg-l2, label: slow, params: {C: 1000, tol: 1e-12, max_iter: 100000, multiclass: softmax}}`))
	sp.Datasets = sp.Datasets[:1]
	if pr.PerSize {
		sp.Curve.Sizes = []float64{2500}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu        sync.Mutex
		cancelled time.Time
	)
	prog := &startHook{start: func() {
		time.AfterFunc(cancelDelay, func() {
			mu.Lock()
			cancelled = time.Now()
			mu.Unlock()
			cancel()
		})
	}}
	sum, err := runner.Run(ctx, sp, runner.Options{Dir: t.TempDir(), Workers: 1, Progress: prog})
	returned := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if cancelled.IsZero() {
		t.Fatalf("the run ended before it was cancelled: %d trials ran; the suite's cancelled run is too small", sum.Ran)
	}
	if d := returned.Sub(cancelled); d > promptly {
		t.Errorf("Run returned %v after the cancellation, want within %v", d.Round(time.Millisecond), promptly)
	}
	if !sum.Interrupted {
		t.Error("a cancelled run does not report Interrupted")
	}
	if sum.Ran > 0 {
		t.Errorf("%d trials ran to their end after a cancellation %v into the first: the trial running at the cancellation did not stop", sum.Ran, cancelDelay)
	}
	if slices.ContainsFunc(sum.Results, func(r results.Result) bool { return r.Failed() }) {
		t.Error("a trial cut short by the cancellation was recorded as failed, not left to run again")
	}
}

// startHook is a runner.Progress that calls start when the trials start.
type startHook struct{ start func() }

func (h *startHook) Start(total, done int) { h.start() }
func (h *startHook) Done(*results.Result)  {}
func (h *startHook) Finish()               {}
