package tabio

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOpenGzipAndLines(t *testing.T) {
	dir := t.TempDir()
	text := "a\r\nb\n\nc"
	plain := filepath.Join(dir, "f.txt")
	gz := filepath.Join(dir, "f.txt.gz")
	if err := os.WriteFile(plain, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(gz)
	z := gzip.NewWriter(f)
	io.WriteString(z, text)
	z.Close()
	f.Close()
	for _, p := range []string{plain, gz} {
		r, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		err = Lines(r, p, func(line int, s string) error {
			got = append(got, s+"@"+string(rune('0'+line)))
			return nil
		})
		r.Close()
		if err != nil || !reflect.DeepEqual(got, []string{"a@1", "b@2", "@3", "c@4"}) {
			t.Errorf("%s: %q, %v", p, got, err)
		}
	}
	bad := filepath.Join(dir, "bad.gz")
	os.WriteFile(bad, []byte("not gzip"), 0o644)
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "bad.gz: reading gzip header") {
		t.Errorf("error %v", err)
	}
	if got := Errorf("x.csv", 3, "want %d", 2).Error(); got != "x.csv:3: want 2" {
		t.Errorf("Errorf = %q", got)
	}
}
