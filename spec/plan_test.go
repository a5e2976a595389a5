package spec

import (
	"testing"

	"github.com/repro-ml/repro/param"
)

// TestSamplesOfInIdentity checks that samples_of is part of a dataset's
// identity (and so of its trials' keys) only when it is set: the keys of
// results stored before samples_of existed stay valid.
func TestSamplesOfInIdentity(t *testing.T) {
	ds := DatasetSpec{ID: "a", Name: "blobs", Split: Split{Kind: "holdout", Params: param.Values{"test": 0.5, "stratify": false}}}
	if _, ok := datasetIdentity(&ds)["samples_of"]; ok {
		t.Error("a dataset without samples_of has it in its identity: earlier runs' keys would change")
	}
	ds.SamplesOf = "b"
	if got := datasetIdentity(&ds)["samples_of"]; got != "b" {
		t.Errorf("identity samples_of = %v, want b", got)
	}
}
