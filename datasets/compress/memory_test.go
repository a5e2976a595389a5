package compress_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/internal/memtest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// zipfCorpus returns docs documents of about words words each over a
// vocabulary of 5,000 (datatest.ZipfText).
func zipfCorpus(docs, words int) *datasets.Dataset {
	return &datasets.Dataset{Name: "zipf", X: matrix.NewDense(docs, 0, nil), Text: datatest.ZipfText(uint64(docs), docs, words, 5000)}
}

// TestMemory checks kgrams' and compress's estimates (DataMemory) against
// the live peak of a run on corpora of two sizes, at several k: never
// below it, so that the runner holds enough while they run, and within
// memtest.Ratio times it.
func TestMemory(t *testing.T) {
	sizes := [][2]int{{60, 80}, {600, 300}}
	ks := map[string][]int{"kgrams": {1, 3, 5, 8}, "compress": {1, 5}}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, name := range []string{"kgrams", "compress"} {
		tr, err := datasets.LookupTransform(name)
		if err != nil {
			t.Fatal(err)
		}
		if tr.DataMemory == nil {
			t.Fatalf("%s declares no DataMemory", name)
		}
		for _, sz := range sizes {
			d := zipfCorpus(sz[0], sz[1])
			for _, k := range ks[name] {
				p := param.Defaults(tr.Params)
				p["k"] = k
				var out *datasets.Dataset
				est, _ := tr.MemoryOf(d, p)
				_, peak := memtest.LeastPeak(func() {
					if out, err = tr.Apply(context.Background(), datasets.Env{}, d, p); err != nil {
						t.Fatal(err)
					}
				}, est, 3)
				memtest.CheckPeak(t, fmt.Sprintf("%s k=%d on %d docs (%d features)", name, k, sz[0], out.Cols()), est, peak)
			}
		}
	}
}

// TestMemoryNewsgroups checks the estimates on every 16th document of 20
// Newsgroups (skipping without the paper's data), the corpus they were
// measured on.
func TestMemoryNewsgroups(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	d := newsgroups(t)
	docs := slice(d.Text, 16)
	d = &datasets.Dataset{Name: d.Name, X: matrix.NewDense(len(docs), 0, nil), Text: docs}
	for _, name := range []string{"kgrams", "compress"} {
		tr, err := datasets.LookupTransform(name)
		if err != nil {
			t.Fatal(err)
		}
		p := param.Defaults(tr.Params)
		est, _ := tr.MemoryOf(d, p)
		_, peak := memtest.LeastPeak(func() {
			if _, err = tr.Apply(context.Background(), datasets.Env{}, d, p); err != nil {
				t.Fatal(err)
			}
		}, est, 3)
		memtest.CheckPeak(t, fmt.Sprintf("%s on %d documents of 20 Newsgroups", name, len(d.Text)), est, peak)
	}
}
