package text

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/param"
)

// rawTar returns the uncompressed tar of the named files.
func rawTar(tb testing.TB, files ...string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		if err := tw.WriteHeader(&tar.Header{Name: files[i], Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(files[i+1]))}); err != nil {
			tb.Fatal(err)
		}
		tw.Write([]byte(files[i+1]))
	}
	tw.Close()
	return buf.Bytes()
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// loadWith runs a registered loader on dir with the defaults and over.
func loadWith(name, dir string, over param.Values) (*datasets.Dataset, error) {
	l, err := datasets.Lookup(name)
	if err != nil {
		return nil, err
	}
	p := param.Defaults(l.Params)
	for k, v := range over {
		p[k] = v
	}
	return l.Load(context.Background(), datasets.Env{DataDir: dir}, p)
}

// FuzzNewsTar gzips an arbitrary tar and loads it as 20 Newsgroups: no
// panic, and either a dataset passing tabio.Check (classes = the groups
// with messages, split consistent) or an error naming the archive.
func FuzzNewsTar(f *testing.F) {
	var names []string
	for n, body := range newsFixture {
		names = append(names, n, body)
	}
	f.Add(rawTar(f, names...))
	f.Add(rawTar(f, "../../20news-bydate-train/a/1", "x y z", "20news-bydate-test/b/2", "x y"))
	f.Add(rawTar(f, "20news-bydate-train/a/1", "", "20news-bydate-test/a/2", "1 2 3"))
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d := loadTar(t, "20news", "n.tar.gz", raw, param.Values{"file": "n.tar.gz"})
		if d != nil && (len(d.Split) != d.Rows() || len(d.Classes) == 0) {
			t.Fatalf("%d split entries, %d classes for %d rows", len(d.Split), len(d.Classes), d.Rows())
		}
	})
}

// loadTar writes raw, gzipped, as rel in a new data directory and loads it
// with the plugin name and params over, within 5 s and without a panic.
// It returns nil after an error, which must name the archive, and
// otherwise the dataset, which must pass tabio.Check.
func loadTar(t *testing.T, name, rel string, raw []byte, over param.Values) *datasets.Dataset {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, gz(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("%s load of a %d-byte tar took over 5 s", name, len(raw))) })
	d, err := loadWith(name, dir, over)
	watchdog.Stop()
	if err != nil {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error does not name the archive: %v", err)
		}
		return nil
	}
	if err := tabio.Check(d); err != nil {
		t.Fatal(err)
	}
	return d
}

// FuzzLoadACL writes arbitrary negative and positive review files and
// loads them: no panic, and either a dataset passing tabio.Check with both
// classes present, or an error naming a file and, for a bad review, its
// line.
func FuzzLoadACL(f *testing.F) {
	f.Add([]byte("great:2 buy_it:1 #label#:positive\n"), []byte("bad:1 #label#:negative\n"), false)
	f.Add([]byte("a:1 #label#:negative\nb:1\n"), []byte("c:1 #label#:positive\n"), true)
	f.Add([]byte("a:NaN #label#:negative\n"), []byte("c:Inf #label#:positive\n"), false)
	f.Add([]byte("a:1 #label#:negative\r\n"), []byte("::1 #label#:positive\n"), false)
	f.Fuzz(func(t *testing.T, neg, pos []byte, gzipped bool) {
		dir := t.TempDir()
		kd := filepath.Join(dir, "amazon", "processed_acl", "books")
		if err := os.MkdirAll(kd, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"negative.review": neg, "positive.review": pos} {
			if gzipped {
				name, b = name+".gz", gz(b)
			}
			if err := os.WriteFile(filepath.Join(kd, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d, err := loadWith("processed-acl", dir, param.Values{"domain": "books", "weighting": "count"})
		if err != nil {
			if !strings.Contains(err.Error(), kd) {
				t.Fatalf("error does not name the domain directory: %v", err)
			}
			var le *tabio.LineError
			if errors.As(err, &le) {
				data := neg
				if strings.Contains(le.File, "positive") {
					data = pos
				}
				if !gzipped && le.Line > bytes.Count(data, []byte("\n"))+1 {
					t.Fatalf("error names line %d of a %d-line file: %v", le.Line, bytes.Count(data, []byte("\n"))+1, err)
				}
			}
			return
		}
		if err := tabio.Check(d); err != nil {
			t.Fatal(err)
		}
		c := d.ClassCounts()
		if c[0] == 0 || c[1] == 0 {
			t.Fatalf("class counts %v", c)
		}
		for i := 0; i < d.Rows(); i++ {
			d.X.Row(i, func(j int, v float64) {
				if v < 0 {
					t.Fatalf("row %d: count %v", i, v)
				}
			})
		}
	})
}
