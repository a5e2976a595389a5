package runner

import (
	"context"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// buildStep is told, by fake-estimated's load and fake-build's Apply,
// which of them starts, and lets it go on when the test says so.
var buildStep struct {
	started chan string
	proceed chan struct{}
}

func init() {
	datasets.Register("fake-estimated", &datasets.Loader{
		Doc:    "fake-blobs whose load declares a memory estimate and waits for the test (test fixture)",
		Params: []param.Decl{{Name: "need", Type: param.Int, Default: 0, Min: param.Bound(0), Doc: "the estimate, bytes"}},
		Memory: func(_ datasets.Env, p param.Values) int64 { return int64(p.Int("need")) },
		Load: func(ctx context.Context, env datasets.Env, p param.Values) (*datasets.Dataset, error) {
			buildStep.started <- "load"
			<-buildStep.proceed
			blobs, _ := datasets.Lookup("fake-blobs")
			return blobs.Load(ctx, env, param.Values{"n": 40, "d": 2, "classes": 2, "spread": 1.0, "given": false})
		},
	})
	datasets.RegisterTransform("fake-build", &datasets.Transform{
		Doc:        "a corpus-level transform estimating its memory from the dataset (DataMemory: need bytes per row) and waiting for the test (test fixture)",
		Params:     []param.Decl{{Name: "need", Type: param.Int, Default: 0, Min: param.Bound(0), Doc: "bytes per row"}},
		DataMemory: func(d *datasets.Dataset, p param.Values) int64 { return int64(p.Int("need") * d.Rows()) },
		Apply: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, _ param.Values) (*datasets.Dataset, error) {
			buildStep.started <- "transform"
			<-buildStep.proceed
			return d, nil
		},
	})
}

// TestLoadHoldsEstimates checks that a dataset's load and its
// corpus-level transform hold their estimates (Loader.Memory,
// Transform.DataMemory, with a fit's overhead) in the run's budget while
// they run, and so wait for a fit holding memory when both do not fit
// under the limit; with room beside the fit they run at once.
func TestLoadHoldsEstimates(t *testing.T) {
	const fit = 4 << 20
	const perRow = 50 << 10 // on 40 rows, 2 MB
	transform := int64(perRow*40) + methods.FitOverhead
	for _, c := range []struct {
		name      string
		loader    int64 // the loader's estimate, 0 for none
		perRow    int   // the transform's, per row; 0 for no transform
		limit     int64
		wait      bool // the estimated step waits for the fit to end
		stepNeeds int64
	}{
		{"the load waits", 3 << 20, 0, fit + 3<<20 - 1, true, 3 << 20},
		{"the transform waits", 0, perRow, fit + transform - 1, true, transform},
		{"the load has room", 3 << 20, 0, fit + 3<<20, false, 3 << 20},
		{"the transform has room", 0, perRow, fit + transform, false, transform},
	} {
		t.Run(c.name, func(t *testing.T) {
			buildStep.started, buildStep.proceed = make(chan string), make(chan struct{})
			ctx := context.Background()
			b := newMemBudget(c.limit)
			if err := b.acquire(ctx, fit); err != nil { // a fit running
				t.Fatal(err)
			}
			held := int64(fit)
			ds := &spec.DatasetSpec{Name: "fake-estimated", ID: "e", Params: param.Values{"need": int(c.loader)}}
			steps := []string{"load"}
			if c.perRow > 0 {
				ds.Transforms = []spec.TransformSpec{{Name: "fake-build", Params: param.Values{"need": c.perRow}}}
				steps = append(steps, "transform")
			}
			done := make(chan error, 1)
			go func() {
				_, err := loadDatasetIn(ctx, datasets.Env{}, ds, c.limit, b)
				done <- err
			}()
			for _, step := range steps {
				estimated := step == "load" && c.loader > 0 || step == "transform"
				need := int64(0)
				if estimated {
					need = c.stepNeeds
				}
				if estimated && c.wait {
					select {
					case s := <-buildStep.started:
						t.Fatalf("the %s started beside the fit: %d + %d bytes, over the limit of %d", s, fit, need, c.limit)
					case <-time.After(50 * time.Millisecond):
					}
					b.release(fit) // the fit ends
					held = 0
				}
				if s := <-buildStep.started; s != step {
					t.Fatalf("the %s started, want the %s", s, step)
				}
				b.mu.Lock()
				used := b.used
				b.mu.Unlock()
				if used != held+need {
					t.Errorf("the %s runs with %d bytes held in all, want %d", step, used, held+need)
				}
				buildStep.proceed <- struct{}{}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if b.used != held {
				t.Errorf("after the load %d bytes held, want %d", b.used, held)
			}
		})
	}
}
