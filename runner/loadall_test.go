package runner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// rendezvous is a barrier the fake-rendezvous loader waits at: each load
// arrives and waits for the others a test expects to run at once.
var rendezvous struct {
	sync.Mutex
	want    int           // loads that must be running at once
	arrived int           // loads that arrived
	all     chan struct{} // closed when want have arrived
}

func init() {
	datasets.Register("fake-rendezvous", &datasets.Loader{
		Doc: "blobs that load only while another fake-rendezvous dataset loads too (test fixture)",
		Params: []param.Decl{
			{Name: "fail", Type: param.Bool, Default: false, Doc: "fail after the rendezvous"},
		},
		Load: func(ctx context.Context, env datasets.Env, p param.Values) (*datasets.Dataset, error) {
			rendezvous.Lock()
			rendezvous.arrived++
			if rendezvous.arrived == rendezvous.want {
				close(rendezvous.all)
			}
			all := rendezvous.all
			rendezvous.Unlock()
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				return nil, errors.New("loaded alone: no other dataset was loading")
			}
			if p.Bool("fail") {
				return nil, errors.New("broken on purpose")
			}
			blobs, _ := datasets.Lookup("fake-blobs")
			return blobs.Load(ctx, env, param.Values{"n": 60, "d": 2, "classes": 2, "spread": 1.0, "given": false})
		},
	})
}

func resetRendezvous(want int) {
	rendezvous.Lock()
	defer rendezvous.Unlock()
	rendezvous.want, rendezvous.arrived, rendezvous.all = want, 0, make(chan struct{})
}

func rendezvousSpec(fail ...bool) *spec.Spec {
	s := blobsSpec()
	s.Datasets = nil
	for i, f := range fail {
		s.Datasets = append(s.Datasets, spec.DatasetSpec{Name: "fake-rendezvous", ID: string(rune('a' + i)),
			Params: param.Values{"fail": f},
			Split:  spec.Split{Kind: "holdout", Params: param.Values{"test": 0.25, "stratify": true}}})
	}
	s.Methods = s.Methods[:1]
	s.Curve = spec.Curve{Sizes: []float64{10}, Trials: 1, Sampling: "balanced"}
	return s
}

// TestRunLoadsDatasetsAtOnce checks that the datasets of a run without a
// memory limit load concurrently: each fixture dataset loads only while
// the others do. (Under a limit, a dataset whose size is not known yet
// loads alone: TestRunResidentDatasets.)
func TestRunLoadsDatasetsAtOnce(t *testing.T) {
	resetRendezvous(3)
	sum, err := Run(context.Background(), rendezvousSpec(false, false, false), Options{Dir: t.TempDir(), Workers: 3, MemLimit: NoMemLimit})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || len(sum.Results) != 6 {
		t.Fatalf("%d results, %d failed; want 6 (3 datasets × 2 grid points)", len(sum.Results), sum.Failed)
	}
}

// TestRunLoadErrorInSpecOrder checks that when datasets loaded at once
// fail, the error names the first failing one in the spec.
func TestRunLoadErrorInSpecOrder(t *testing.T) {
	for range 5 {
		resetRendezvous(3)
		_, err := Run(context.Background(), rendezvousSpec(false, true, true), Options{Dir: t.TempDir(), Workers: 3, MemLimit: NoMemLimit})
		if err == nil || !strings.Contains(err.Error(), `dataset "b"`) || !strings.Contains(err.Error(), "broken on purpose") {
			t.Fatalf("error %v, want dataset \"b\" broken on purpose", err)
		}
	}
}
