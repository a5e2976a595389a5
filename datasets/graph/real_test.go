package graph

import (
	"testing"
	"time"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/datasets"
	_ "github.com/repro-ml/repro/datasets/text"
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

// TestRealNewsgroupsGraph builds the paper's 20 Newsgroups co-occurrence
// graph (Fig. 1) and reports its size and cost.
func TestRealNewsgroupsGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("real 20 Newsgroups graph takes seconds")
	}
	dir := paperDir(t, "20news-bydate.tar.gz")
	start := time.Now()
	d := load(t, "20news", dir, param.Values{"min_df": 20})
	loaded := time.Since(start)
	out := apply(t, "cooccurrence-graph", d, nil)
	t.Logf("20news: %d docs × %d words, load %v, co-occurrence graph %v: %v",
		d.Rows(), d.Cols(), loaded, time.Since(start)-loaded, out.Stats)
	if out.Stats["graph.edges"] > 25*float64(d.Cols()) || out.Stats["graph.edges"] < float64(d.Cols()) {
		t.Errorf("graph edges %v for %d features and k = 25", out.Stats["graph.edges"], d.Cols())
	}
}

// TestRealSentimentGraphs builds the Fig. 3 and Fig. 2 graphs on the four
// Amazon domains and reports node and edge counts (compare with Table 1).
func TestRealSentimentGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("real sentiment graphs take seconds")
	}
	dir := paperDir(t, "amazon/processed_acl/kitchen/positive.review.gz")
	for _, dom := range []string{"books", "dvd", "electronics", "kitchen"} {
		start := time.Now()
		d := load(t, "processed-acl", dir, param.Values{"domain": dom, "min_df": 10})
		out := apply(t, "lexicon-correlation", d, nil)
		s := out.Stats
		t.Logf("%s (fig 3): %d reviews, %v features, %v lexicon words, %v directed links = %v undirected edges, %v without links; %v",
			dom, d.Rows(), s["graph.nodes"], s["graph.lexicon_words"], s["graph.edges"], s["graph.edges.undirected"], s["graph.no_out_links"], time.Since(start))
		if s["graph.edges"] != 2*s["graph.edges.undirected"] {
			t.Errorf("%s: mutual kNN graph not symmetric: %v", dom, s)
		}
		lex := load(t, "processed-acl", dir, param.Values{"domain": dom, "ngrams": 1, "vocabulary": "lexicon:bing", "max_features": 200})
		cl := apply(t, "lexicon-classes", lex, param.Values{"dissimilarity": true})
		t.Logf("%s (fig 2): the %d bing words in the most reviews; classes %v positive / %v negative",
			dom, lex.Cols(), cl.Stats["graph.class.positive"], cl.Stats["graph.class.negative"])
	}
}
