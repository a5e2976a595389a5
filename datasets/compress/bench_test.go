package compress_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/repro-ml/repro/datasets/compress"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// BenchmarkCompressNewsgroups compresses 1×, 2×, 4×, 8× and 16× slices of
// 20 Newsgroups (every 32nd, 16th, 8th, 4th and 2nd document) at k = 5,
// λ = 0.03, and the whole corpus: the paper's linear-time claim is a
// log-log slope of time against words ≤ 1.1. It reports words/s, the
// iterations and the process's CPU seconds (robust to other jobs on the
// machine, unlike wall time), and logs the digests of each result (see
// resultHash), the least-squares log-log slopes of wall and CPU time
// against words over the slices run and the slope of the last doubling.
// Run with -benchtime 1x (and GOMAXPROCS=1 for CPU seconds comparable
// with wall time); it skips without the paper data.
func BenchmarkCompressNewsgroups(b *testing.B) {
	d := newsgroups(b)
	var words, wall, cpu []float64
	for _, step := range []int{32, 16, 8, 4, 2, 1} {
		docs := slice(d.Text, step)
		name := fmt.Sprintf("%dx", 32/step)
		if step == 1 {
			name = "all"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, c := compressReport(b, docs)
				f, st := resultHash(res)
				b.Logf("%s: %d documents, %d words: %.1f CPU-s, %.1f s wall; features %s, statistics %s", name, len(docs), res.Words, c, res.Seconds, f, st)
				words, wall, cpu = append(words, float64(res.Words)), append(wall, res.Seconds), append(cpu, c)
			}
		})
	}
	if len(words) >= 2 {
		b.Logf("log-log slope of time against words over %d slices: wall %.3f, CPU %.3f (paper: linear, ≤ 1.1)",
			len(words), logSlope(words, wall), logSlope(words, cpu))
		n := len(words)
		last := func(y []float64) float64 { return logSlope(words[n-2:], y[n-2:]) }
		b.Logf("slope of the last doubling (%.0f to %.0f words): wall %.3f, CPU %.3f", words[n-2], words[n-1], last(wall), last(cpu))
	}
}

// compressReport compresses docs at k = 5, λ = 0.03 and reports words,
// words/s (wall), the process's CPU seconds, the dictionary's size,
// binary/relaxed, the ADMM iterations, the candidate pointers and the CPU
// time per candidate and iteration; it returns the result and the CPU
// seconds.
func compressReport(b *testing.B, docs []string) (*compress.Result, float64) {
	c0 := cpuSeconds()
	res, err := compress.Compress(context.Background(), docs, compress.Options{Lambda: 0.03})
	if err != nil {
		b.Fatal(err)
	}
	c := cpuSeconds() - c0
	b.ReportMetric(float64(res.Words), "words")
	b.ReportMetric(float64(res.Words)/res.Seconds, "words/s")
	b.ReportMetric(c, "cpu-s")
	b.ReportMetric(float64(len(res.Dictionary)), "dictionary")
	b.ReportMetric(res.Binary/res.Relaxed, "binary/relaxed")
	it := 0
	for _, n := range res.Iterations {
		it += n
	}
	b.ReportMetric(float64(it), "iterations")
	b.ReportMetric(float64(res.Candidates), "candidates")
	// The CPU time per candidate pointer and ADMM iteration: the time's
	// slope against words is that of the candidates, of the iterations
	// and of this cost per unit together.
	b.ReportMetric(c*1e9/float64(res.Candidates)/float64(it), "cpu-ns/candidate-iteration")
	return res, c
}

// logSlope returns the least-squares slope of log y against log x.
func logSlope(x, y []float64) float64 {
	var sx, sy, sxx, sxy float64
	for i := range x {
		lx, ly := math.Log(x[i]), math.Log(y[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	n := float64(len(x))
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// BenchmarkCompressIMDb compresses the 50,000 IMDb reviews at k = 5,
// λ = 0.03, reporting as BenchmarkCompressNewsgroups does. Run with
// -benchtime 1x; it skips without the paper data.
func BenchmarkCompressIMDb(b *testing.B) {
	dir := datatest.Paper(b, "imdb/aclImdb_labeled.tar.gz")
	d := datatest.Load(b, "imdb", dir, param.Values{"keep_text": true, "min_df": 5})
	for b.Loop() {
		compressReport(b, d.Text)
	}
}
