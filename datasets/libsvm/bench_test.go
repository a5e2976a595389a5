package libsvm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
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
