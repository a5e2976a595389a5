package text

import (
	"testing"
	"time"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

// paperDir returns the directory of the paper data sets, or skips.
func paperDir(t testing.TB, file string) string {
	t.Helper()
	return datatest.Paper(t, file)
}

func load(t testing.TB, name, dir string, over param.Values) *datasets.Dataset {
	t.Helper()
	return datatest.Load(t, name, dir, over)
}

func TestRealNewsgroups(t *testing.T) {
	if testing.Short() {
		t.Skip("real 20 Newsgroups load takes a few seconds")
	}
	dir := paperDir(t, "20news-bydate.tar.gz")
	for _, strip := range []bool{false, true} {
		start := time.Now()
		d := load(t, "20news", dir, param.Values{"min_df": 20, "strip_headers": strip})
		train, test := d.SplitRows()
		t.Logf("strip_headers=%v: %d train + %d test, %d classes, vocabulary (min_df 20, SMART stop words) %d words, nnz %d, %v",
			strip, len(train), len(test), len(d.Classes), d.Cols(), d.X.NNZ(), time.Since(start))
		if len(train) != 11314 || len(test) != 7532 || len(d.Classes) != 20 {
			t.Errorf("got %d train + %d test in %d groups, want 11314 + 7532 in 20", len(train), len(test), len(d.Classes))
		}
		// The paper's vocabulary has 11,376 words; ours must be close.
		if c := d.Cols(); c < 9000 || c > 14000 {
			t.Errorf("vocabulary %d words, paper 11,376", c)
		}
	}
}

func TestRealProcessedACL(t *testing.T) {
	if testing.Short() {
		t.Skip("real Amazon loads take seconds")
	}
	dir := paperDir(t, "amazon/processed_acl/kitchen/positive.review.gz")
	for _, dom := range []string{"books", "dvd", "electronics", "kitchen"} {
		d := load(t, "processed-acl", dir, param.Values{"domain": dom, "min_df": 10})
		c := d.ClassCounts()
		t.Logf("%s: %d reviews (%v), unigrams+bigrams in >= 10 reviews: %d", dom, d.Rows(), c, d.Cols())
		if c[0] != 1000 || c[1] != 1000 {
			t.Errorf("%s: class counts %v, want 1000 each", dom, c)
		}
	}
}
