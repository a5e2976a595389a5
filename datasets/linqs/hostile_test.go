package linqs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadGzip checks that a .content.gz that is not gzip, or is cut short,
// fails with an error naming the file.
func TestBadGzip(t *testing.T) {
	full, err := os.ReadFile("testdata/tiny.content.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ct := filepath.Join(dir, "x.cites")
	os.WriteFile(ct, nil, 0o644)
	for _, tc := range []struct{ name, data, want string }{
		{"plain.content.gz", "p1\t0\t1\tA\np2\t1\t0\tB\n", "plain.content.gz: reading gzip header"},
		{"cut.content.gz", string(full[:len(full)-10]), "cut.content.gz: after line"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadCitations(p, ct); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
