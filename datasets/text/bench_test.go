package text

import (
	"testing"

	"github.com/repro-ml/repro/param"
)

// BenchmarkLoad20News reads the real 20news-bydate.tar.gz and vectorizes it
// as Fig. 1 does (min_df 20, SMART stop words, log counts).
func BenchmarkLoad20News(b *testing.B) {
	dir := paperDir(b, "20news-bydate.tar.gz")
	for range b.N {
		load(b, "20news", dir, param.Values{"min_df": 20})
	}
}
