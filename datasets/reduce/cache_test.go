package reduce

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// TestFitPCACached: the first fit writes the file, the second reads it
// back with every value exactly as fitted (dense or sparse storage of the
// same rows share it); other rows or options fit anew; a damaged file —
// truncated, extended, one bit flipped, another file — is reported, never
// used: refitted and rewritten.
func TestFitPCACached(t *testing.T) {
	ctx := context.Background()
	var warned []error
	env := datasets.Env{CacheDir: t.TempDir(), Warn: func(err error) { warned = append(warned, err) }}
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
		m, _ := filepath.Glob(filepath.Join(env.CacheDir, "pca", "*.pca"))
		return m
	}
	for i, X := range []matrix.Matrix{D, S} {
		got, err := FitPCACached(ctx, env, X, Options{})
		if err != nil || !same(got) {
			t.Fatalf("call %d: err %v, or the analysis differs from FitPCA's", i, err)
		}
		if n := len(files()); n != 1 {
			t.Fatalf("call %d: %d cache files, want 1", i, n)
		}
	}
	f := files()[0]
	good, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	// The file is what the second call read: a valid file of another
	// analysis in its place is what the next call returns.
	other, err := FitPCA(ctx, D, Options{Components: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := writePCA(f, other); err != nil {
		t.Fatal(err)
	}
	if got, err := FitPCACached(ctx, env, D, Options{}); err != nil || len(got.Variances) != 2 {
		t.Fatalf("with another analysis's file: err %v, %d components, want the file's 2", err, len(got.Variances))
	}
	if len(warned) != 0 {
		t.Fatalf("warnings on valid files: %v", warned)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1 << 3 // a component's bit: the size still fits
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"truncated", "checksum", good[:len(good)-8]},
		{"extended", "checksum", append(slices.Clone(good), 0, 0, 0, 0, 0, 0, 0, 0)},
		{"bit flipped", "checksum", flipped},
		{"empty", "not a cache file", nil},
		{"gob", "not a cache file", []byte("\x0e\xff\x81\x03\x01\x01\x07pcaFile")},
	} {
		if err := os.WriteFile(f, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		warned = nil
		got, err := FitPCACached(ctx, env, D, Options{})
		if err != nil || !same(got) {
			t.Fatalf("%s: err %v, or a damaged file's values were used", tc.name, err)
		}
		if len(warned) != 1 || !strings.Contains(warned[0].Error(), f) || !strings.Contains(warned[0].Error(), tc.want) {
			t.Errorf("%s: warnings %v, want one naming %s and %q", tc.name, warned, f, tc.want)
		}
		if p, err := readPCA(f); err != nil || !same(p) {
			t.Errorf("%s: the damaged file was not rewritten: %v", tc.name, err)
		}
	}
	// Other options, other rows: new files.
	if _, err := FitPCACached(ctx, env, D, Options{Standardize: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := FitPCACached(ctx, env, D, Options{Variance: 0.9}); err != nil {
		t.Fatal(err)
	}
	E, _ := binaryRows(30, 8, 4)
	if _, err := FitPCACached(ctx, env, E, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(files()); n != 4 {
		t.Errorf("%d cache files, want 4 (one per rows and options)", n)
	}
	// No directory: no cache.
	if got, err := FitPCACached(ctx, datasets.Env{}, D, Options{}); err != nil || !same(got) {
		t.Errorf("without a directory: %v", err)
	}
}

// TestReadPCACounts: a checksummed file whose counts do not fill it
// (or would overflow) is damaged, not a panic or a huge allocation.
func TestReadPCACounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.pca")
	for _, c := range [][3]uint64{{cacheFormat, 4, 2}, {cacheFormat, 1 << 62, 4}, {cacheFormat, 3, 1 << 63}, {cacheFormat, 0, 0}, {1, 3, 2}} {
		buf := []byte(pcaMagic)
		for _, v := range c {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		buf = appendFloats(buf, make([]float64, 2*3+2+3*2)) // d 3, m 2
		buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readPCA(path); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("counts %v: err %v, want damaged", c, err)
		}
	}
}
