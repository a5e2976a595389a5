package text

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/internal/memtest"
	"github.com/repro-ml/repro/param"
)

// TestLoaderMemory checks the text corpora's estimates (Loader.Memory)
// against the live peak of their loads, documents kept, on archives of
// two sizes: never below it, and within memtest.Ratio times it.
func TestLoaderMemory(t *testing.T) {
	sizes := []int{50, 3000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		dir := t.TempDir()
		var news, imdb []string
		for i, doc := range datatest.ZipfText(uint64(n), n, 250, 20000) {
			split := []string{"train", "test"}[i%2]
			news = append(news, fmt.Sprintf("20news-bydate-%s/group.%d/%d", split, i%20, i), "Subject: "+doc)
			imdb = append(imdb, fmt.Sprintf("aclImdb/%s/%s/%d_%d.txt", split, []string{"neg", "pos"}[i/2%2], i, 1+i%10), doc+"<br /><br />"+doc[:len(doc)/3])
		}
		if err := os.WriteFile(filepath.Join(dir, "20news-bydate.tar.gz"), gz(rawTar(t, news...)), 0o644); err != nil {
			t.Fatal(err)
		}
		writeIMDb(t, dir, imdb...)
		// 20 Newsgroups unpacked: a directory of files.
		for i := 0; i < len(news); i += 2 {
			f := filepath.Join(dir, "unpacked", news[i])
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(news[i+1]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"20news", "imdb", "20news unpacked"} {
			name, file, _ := strings.Cut(name, " ")
			l, err := datasets.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if l.Memory == nil {
				t.Fatalf("%s declares no memory estimate", name)
			}
			p := param.Defaults(l.Params)
			p["keep_text"] = true
			if file != "" {
				p["file"] = file
			}
			env := datasets.Env{DataDir: dir}
			var d *datasets.Dataset
			est := l.Memory(env, p)
			_, peak := memtest.LeastPeak(func() {
				if d, err = l.Load(t.Context(), env, p); err != nil {
					t.Fatal(err)
				}
			}, est, 3)
			memtest.CheckPeak(t, fmt.Sprintf("%s %s: %d documents, %d terms", name, file, d.Rows(), d.Cols()), est, peak)
		}
	}
}

// TestLoaderMemoryReal checks the estimates on the paper's files
// (skipping without them), where they were measured.
func TestLoaderMemoryReal(t *testing.T) {
	if testing.Short() {
		t.Skip("real loads take seconds")
	}
	for name, file := range map[string]string{"20news": "20news-bydate.tar.gz", "imdb": "imdb/aclImdb_labeled.tar.gz"} {
		dir := paperDir(t, file)
		datatest.CheckLoadMemory(t, name, dir, name+" ("+file+")", param.Values{"keep_text": true})
	}
}
