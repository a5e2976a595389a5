package reduce

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/matrix"
)

// TestFitPCACached: the first fit writes the file, the second reads it
// back with every value exactly as fitted (dense or sparse storage of the
// same rows share it); other rows or options fit anew; a damaged file is
// refitted and rewritten.
func TestFitPCACached(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	D, S := binaryRows(30, 8, 3)
	want, err := FitPCA(ctx, D, Options{})
	if err != nil {
		t.Fatal(err)
	}
	same := func(got *PCA) bool {
		return slices.Equal(got.Mean, want.Mean) && slices.Equal(got.Scale, want.Scale) &&
			slices.Equal(got.Variances, want.Variances) && mat.Equal(got.Components, want.Components)
	}
	files := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "pca", "*.gob"))
		return m
	}
	for i, X := range []matrix.Matrix{D, S} {
		got, err := FitPCACached(ctx, dir, X, Options{})
		if err != nil || !same(got) {
			t.Fatalf("call %d: err %v, or the analysis differs from FitPCA's", i, err)
		}
		if n := len(files()); n != 1 {
			t.Fatalf("call %d: %d cache files, want 1", i, n)
		}
	}
	// The second call read the file: damage it and the next refits.
	f := files()[0]
	p, err := readPCA(f)
	if err != nil || !same(p) {
		t.Fatalf("readPCA: %v", err)
	}
	if err := os.WriteFile(f, []byte("not a gob"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := FitPCACached(ctx, dir, D, Options{}); err != nil || !same(got) {
		t.Fatalf("after damage: %v", err)
	}
	if _, err := readPCA(f); err != nil {
		t.Errorf("the damaged file was not rewritten: %v", err)
	}
	// Other options, other rows: new files.
	if _, err := FitPCACached(ctx, dir, D, Options{Standardize: true}); err != nil {
		t.Fatal(err)
	}
	E, _ := binaryRows(30, 8, 4)
	if _, err := FitPCACached(ctx, dir, E, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(files()); n != 3 {
		t.Errorf("%d cache files, want 3 (one per rows and options)", n)
	}
	// No directory: no cache.
	if got, err := FitPCACached(ctx, "", D, Options{}); err != nil || !same(got) {
		t.Errorf("without a directory: %v", err)
	}
}
