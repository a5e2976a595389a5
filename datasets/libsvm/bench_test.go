package libsvm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// benchFile returns the file BenchmarkRead parses: $REPRO_LIBSVM_BENCH
// when set (the 20 Newsgroups training file bench/liblinear -export
// writes), else a synthetic one of its shape: 11,314 rows of 79 indices
// out of 11,806 on average, log(1+count) values written in full.
func benchFile(b *testing.B) []byte {
	if f := os.Getenv("REPRO_LIBSVM_BENCH"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for i := 0; i < 11314; i++ {
		buf = strconv.AppendInt(buf, int64(rng.IntN(20)), 10)
		j := 0
		for k := 0; k < 79; k++ {
			j += 1 + rng.IntN(2*11806/79-1)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, math.Log1p(float64(1+rng.IntN(4))), 'g', -1, 64)
		}
		buf = append(buf, '\n')
	}
	return buf
}

// BenchmarkRead measures LIBSVM parsing in MB/s (bench/README.md compares
// it with liblinear-train's reading of the same file).
func BenchmarkRead(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.svm", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadBytesPerEntry checks what Load allocates for a plain file and
// for a training and a test file: the CSR's 12 bytes a stored entry (an
// int32 index, a float64 value) and 16 a row (pointer and label), 8 more
// a row for the given split's marks, and a fixed part of 2.5 MiB (the 256 KiB buffer
// that sizes the files, the scanner's, the feature names) — no copy of
// the entries. Allocation counts bytes whether the memory is touched or
// not, so this bounds the peak from above, load-independent.
func TestLoadBytesPerEntry(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, cols, perRow = 20000, 5000, 40
	write := func(name string, rows int) string {
		var buf []byte
		for i := 0; i < rows; i++ {
			buf = strconv.AppendInt(buf, int64(rng.IntN(3)), 10)
			j := 0
			for k := 0; k < perRow; k++ {
				j += 1 + rng.IntN(2*cols/perRow-1)
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(j), 10)
				buf = append(buf, ':')
				buf = strconv.AppendFloat(buf, math.Log1p(float64(1+rng.IntN(4))), 'g', -1, 64)
			}
			buf = append(buf, '\n')
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	train, test := write("train", rows), write("test", rows/2)
	for _, tc := range []struct {
		name  string
		files []string
		rows  int
	}{
		{"one file", []string{train}, rows},
		{"train and test", []string{train, test}, rows + rows/2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d, err := Load(tc.files, Options{})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			nnz := d.X.NNZ()
			if _, ok := d.X.(*matrix.CSR); !ok || nnz < tc.rows*perRow*9/10 {
				t.Fatalf("got %T with %d entries, want a CSR of about %d", d.X, nnz, tc.rows*perRow)
			}
			got := int64(after.TotalAlloc - before.TotalAlloc)
			limit := int64(12*nnz+24*tc.rows) + 5<<19
			t.Logf("%d entries, %d rows: %d bytes allocated, %.2f per entry", nnz, tc.rows, got, float64(got)/float64(nnz))
			if got > limit {
				t.Errorf("Load allocated %d bytes for %d entries and %d rows, want at most %d (12 an entry, 24 a row, 2.5 MiB)", got, nnz, tc.rows, limit)
			}
		})
	}
}
