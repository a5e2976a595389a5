package compress_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/repro-ml/repro/datasets/compress"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// BenchmarkCompressNewsgroups compresses 1×, 2×, 4× and 8× slices of 20
// Newsgroups (every 32nd, 16th, 8th and 4th document) at k = 5, λ = 0.03,
// and the whole corpus: the paper's linear-time claim is a log-log slope
// of time against words ≤ 1.1. It reports words/s and the iterations.
// Run with -benchtime 1x; it skips without the paper data.
func BenchmarkCompressNewsgroups(b *testing.B) {
	d := newsgroups(b)
	for _, step := range []int{32, 16, 8, 4, 1} {
		docs := slice(d.Text, step)
		name := fmt.Sprintf("%dx", 32/step)
		if step == 1 {
			name = "all"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := compress.Compress(context.Background(), docs, compress.Options{Lambda: 0.03})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Words), "words")
				b.ReportMetric(float64(res.Words)/res.Seconds, "words/s")
				b.ReportMetric(float64(len(res.Dictionary)), "dictionary")
				b.ReportMetric(res.Binary/res.Relaxed, "binary/relaxed")
				it := 0
				for _, n := range res.Iterations {
					it += n
				}
				b.ReportMetric(float64(it), "iterations")
			}
		})
	}
}

// BenchmarkCompressIMDb compresses the 50,000 IMDb reviews at k = 5,
// λ = 0.03. Run with -benchtime 1x; it skips without the paper data.
func BenchmarkCompressIMDb(b *testing.B) {
	dir := datatest.Paper(b, "imdb/aclImdb_labeled.tar.gz")
	d := datatest.Load(b, "imdb", dir, param.Values{"keep_text": true, "min_df": 5})
	for b.Loop() {
		res, err := compress.Compress(context.Background(), d.Text, compress.Options{Lambda: 0.03})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Words), "words")
		b.ReportMetric(float64(len(res.Dictionary)), "dictionary")
		b.ReportMetric(res.Binary/res.Relaxed, "binary/relaxed")
	}
}
