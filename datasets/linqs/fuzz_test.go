package linqs

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets/internal/tabio"
)

func gunzip(tb testing.TB, name string) []byte {
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzLoadCitations writes arbitrary content and cites files and loads
// them: no panic, and either a dataset passing tabio.Check whose graph is
// n×n over its papers, or an error naming one of the files (and an existing
// line when it gives one).
func FuzzLoadCitations(f *testing.F) {
	content := gunzip(f, "testdata/tiny.content.gz")
	cites, err := os.ReadFile("testdata/tiny.cites")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(content, cites)
	f.Add([]byte("p1 0 1 A\np2 1 0 B\n"), []byte("p1 p2\np2 p2\nq p1\np1 p2\n"))
	f.Add([]byte("p1 0 1 A\np1 1 0 B\n"), []byte(""))
	f.Add([]byte("p1 0 2 A\n"), []byte("p1\n"))
	f.Add([]byte("\ufeffp1\t1\tA\r\np2\t0\tB\r\n"), []byte("p1 p2 p3\n"))
	f.Fuzz(func(t *testing.T, content, cites []byte) {
		dir := t.TempDir()
		cp, ct := filepath.Join(dir, "t.content"), filepath.Join(dir, "t.cites")
		if err := os.WriteFile(cp, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ct, cites, 0o644); err != nil {
			t.Fatal(err)
		}
		d, c, err := LoadCitations(cp, ct)
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, cp) && !strings.Contains(msg, ct) {
				t.Fatalf("error names neither file: %v", err)
			}
			var le *tabio.LineError
			if errors.As(err, &le) {
				data := content
				if le.File == ct {
					data = cites
				}
				if n := bytes.Count(data, []byte("\n")) + 1; le.Line > n {
					t.Fatalf("error names line %d of a %d-line file: %v", le.Line, n, err)
				}
			}
			return
		}
		if err := tabio.Check(d); err != nil {
			t.Fatal(err)
		}
		if len(d.Classes) < 2 || len(c.IDs) != d.Rows() {
			t.Fatalf("%d classes, %d ids for %d rows", len(d.Classes), len(c.IDs), d.Rows())
		}
		if err := c.Graph.Check(); err != nil || c.Graph.R != d.Rows() || c.Graph.C != d.Rows() {
			t.Fatalf("graph %d×%d for %d papers: %v", c.Graph.R, c.Graph.C, d.Rows(), err)
		}
		for _, v := range c.Graph.Val {
			if v != 1 {
				t.Fatalf("edge weight %v", v)
			}
		}
	})
}
