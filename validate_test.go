package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

// corpusRuns counts the runs of the cli-counted-corpus transform.
var corpusRuns atomic.Int64

// cli-counted-corpus is a test fixture for TestValidateLoadsNoData: a
// corpus transform (one that runs when its dataset loads, as compress
// does) that returns the dataset unchanged and counts its runs. It is a
// transform, not a dataset plugin, so that the lists of dataset names in
// the golden errors stay those users see.
func init() {
	datasets.RegisterTransform("cli-counted-corpus", &datasets.Transform{
		Doc: "returns the dataset unchanged, counting its runs (test fixture)",
		Apply: func(_ context.Context, _ datasets.Env, d *datasets.Dataset, _ param.Values) (*datasets.Dataset, error) {
			corpusRuns.Add(1)
			return d, nil
		},
	})
}

// TestValidateLoadsNoData: repro validate without --data loads no dataset
// and runs no corpus transform, with $REPRO_DATA set or not (a static
// validate of Paskov's Table 1 took minutes and 6 GB compressing corpora
// it never needed); with --data it does both, once.
func TestValidateLoadsNoData(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "counted.yaml")
	if err := os.WriteFile(spec, []byte(`name: counted
datasets:
  - name: iris
    transforms: [{name: cli-counted-corpus}]
    split: {kind: holdout, test: 50}
methods:
  - name: logreg-l2
curve: {sizes: [40], trials: 2}
metrics: [accuracy]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	// validate --data caches corpus transforms under ./out: a fresh
	// directory makes each run of the test count them.
	t.Chdir(t.TempDir())
	for _, env := range []string{"", data} {
		t.Setenv(datasets.DataDirEnv, env)
		stdout, _ := mustCLI(t, exitOK, "validate", spec)
		if !strings.Contains(stdout, "1 dataset × 1 method (1 grid point) × 1 size × 2 trials = 2 trials, 2 fits") {
			t.Errorf("$%s=%q: plan not printed:\n%s", datasets.DataDirEnv, env, stdout)
		}
		if n := corpusRuns.Load(); n != 0 {
			t.Fatalf("$%s=%q: validate loaded the dataset and ran its corpus transform %d time(s); want neither without --data", datasets.DataDirEnv, env, n)
		}
	}
	stdout, _ := mustCLI(t, exitOK, "validate", "--data", data, spec)
	if !strings.Contains(stdout, "(checked against the data in "+data+": iris 150 × 4)") {
		t.Errorf("--data: stdout\n%s", stdout)
	}
	if n := corpusRuns.Load(); n != 1 {
		t.Errorf("--data: the corpus transform ran %d times; want 1 (the dataset loaded once)", n)
	}
}
