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

// TestBadClass checks that a class that is not UTF-8 or holds a NUL byte
// is an error at its line, not a class of its own (issue 10, item 12), and
// that a line without word values is refused.
func TestBadClass(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, want string }{
		{"nul.content", "p1\t0\t1\tA\np2\t1\t0\tA\x00\n", `nul.content:2: class: label "A\x00" contains a NUL byte`},
		{"latin1.content", "p1\t0\t1\tCaf\xe9\np2\t1\t0\tB\n", `latin1.content:1: class: label "Caf\xe9" is not valid UTF-8`},
		{"nowords.content", "p1\tA\np2\tB\n", "nowords.content:1: 2 fields, want: paper id, word values, class"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadContent(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestRefusals checks the content and cites files the loader refuses
// (issue 31): paper ids that are not UTF-8, in either file, and a content
// file of one class, each with its exact error.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	good := "p1\t0\t1\tA\np2\t1\t0\tB\n"
	for _, tc := range []struct{ name, content, cites, want string }{
		{"latin1 id in content", "p1\t0\t1\tA\nr\xe9f\t1\t0\tB\n", "",
			"c.content:2: paper id \"r\\xe9f\" is not valid UTF-8 (a damaged file, or one in another encoding: convert it to UTF-8)"},
		{"latin1 id in cites", good, "p1\tp2\np2\tr\xe9f\n",
			"c.cites:2: paper id \"r\\xe9f\" is not valid UTF-8 (a damaged file, or one in another encoding: convert it to UTF-8)"},
		{"one class", "p1\t0\t1\tA\np2\t1\t0\tA\n", "",
			`c.content: every paper has class "A"; a classification dataset needs at least two classes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, ct := filepath.Join(dir, "c.content"), filepath.Join(dir, "c.cites")
			os.WriteFile(cp, []byte(tc.content), 0o644)
			os.WriteFile(ct, []byte(tc.cites), 0o644)
			_, _, err := LoadCitations(cp, ct)
			if err == nil || err.Error() != filepath.Join(dir, tc.want) {
				t.Errorf("error %v\nwant %s", err, filepath.Join(dir, tc.want))
			}
		})
	}
}
