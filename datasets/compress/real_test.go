package compress_test

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/compress"
	_ "github.com/repro-ml/repro/datasets/text"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// newsgroups returns the 20 Newsgroups documents (skipping without the
// paper data).
func newsgroups(tb testing.TB) *datasets.Dataset {
	tb.Helper()
	dir := datatest.Paper(tb, "20news-bydate.tar.gz")
	return datatest.Load(tb, "20news", dir, param.Values{"keep_text": true})
}

// slice returns every step-th document.
func slice(docs []string, step int) []string {
	var out []string
	for i := 0; i < len(docs); i += step {
		out = append(out, docs[i])
	}
	return out
}

// TestRealNewsgroups compresses a slice of 20 Newsgroups
// (REPRO_COMPRESS_STEP, default every 16th document) and checks the
// binary/relaxed ratio the paper reports (≤ 1.006).
func TestRealNewsgroups(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	d := newsgroups(t)
	step := 16
	if s, err := strconv.Atoi(os.Getenv("REPRO_COMPRESS_STEP")); err == nil {
		step = s
	}
	docs := slice(d.Text, step)
	res, err := compress.Compress(context.Background(), docs, compress.Options{Lambda: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d docs, %d words, %d candidates: dictionary %d, pointers %d, lower bound %.6g relaxed %.6g binary %.6g (ratio %.5f), iterations %v, %d factorizations, %.1f s",
		len(docs), res.Words, res.Candidates, len(res.Dictionary), res.Pointers, res.LowerBound, res.Relaxed, res.Binary, res.Binary/res.Relaxed, res.Iterations, res.Factorizations, res.Seconds)
	if r := res.Binary / res.Relaxed; !(r <= 1.006) || math.IsNaN(r) {
		t.Errorf("binary/relaxed = %v; the paper: ≤ 1.006", r)
	}
}
