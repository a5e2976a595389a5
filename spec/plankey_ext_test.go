package spec_test

import (
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/spec"
)

// TestKeysWhole checks that NewPlan's keys, marshalled once per method
// variant and completed per size and trial, are the keys of the whole
// identity marshalled at once, for counts, fractions, large sizes and
// seeds, and a protocol's params.
func TestKeysWhole(t *testing.T) {
	big := blobsSpec()
	big.Seed = 1<<63 + 12345
	big.Curve.Sizes = []float64{2, 0.125, 1, 1e6, 1 << 53}
	big.Curve.Trials = 12
	for name, sp := range map[string]*spec.Spec{"blobs": blobsSpec(), "big": big, "active": activeSpec("fake-first")} {
		plan, err := spec.NewPlan(sp)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range plan.Trials {
			want, err := spec.WholeKey(sp, tr)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Key != want {
				t.Fatalf("%s: %s size %s trial %d: key %s, want %s", name, tr.Series(), param.Format(tr.Size), tr.Index, tr.Key, want)
			}
		}
	}
}
