package tabio

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "bad.gz: reading gzip header (the name ends in .gz; is it gzip, and whole?)") {
		t.Errorf("error %v", err)
	}
	if got := Errorf("x.csv", 3, "want %d", 2).Error(); got != "x.csv:3: want 2" {
		t.Errorf("Errorf = %q", got)
	}
}

// TestLinesTruncatedGzip checks that the partial last line of a cut gzip
// stream is not handed to fn (it would be parsed as a short row) and that
// the error names the file and the last whole line.
func TestLinesTruncatedGzip(t *testing.T) {
	var text strings.Builder
	for i := 0; i < 2000; i++ {
		text.WriteString("1,2,3,4,5,6,7,8\n")
	}
	full := gzipped(text.String())
	p := filepath.Join(t.TempDir(), "cut.csv.gz")
	if err := os.WriteFile(p, full[:len(full)-8], 0o644); err != nil { // the CRC and size are gone
		t.Fatal(err)
	}
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	last := 0
	err = Lines(r, p, func(line int, s string) error {
		if s != "1,2,3,4,5,6,7,8" {
			t.Fatalf("line %d: partial line %q handed over", line, s)
		}
		last = line
		return nil
	})
	want := fmt.Sprintf("%s: after line %d: unexpected EOF", p, last)
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}

	// Cut in the middle of a line.
	if err := os.WriteFile(p, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r2, _ := Open(p)
	defer r2.Close()
	err = Lines(r2, p, func(line int, s string) error {
		if s != "1,2,3,4,5,6,7,8" {
			t.Fatalf("line %d: partial line %q handed over", line, s)
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("error %v", err)
	}
}

// TestParseFinite: what strconv.ParseFloat accepts but a data file does
// not mean is refused, each with its own message.
func TestParseFinite(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string
	}{
		{"1", 1, ""},
		{"-2.5e3", -2500, ""},
		{"+.5", 0.5, ""},
		{"5.", 5, ""},
		{"1e-400", 0, ""},
		{"0x1p3", 0, `"0x1p3" is a hexadecimal number; a data file holds decimal numbers`},
		{"0X1P-2", 0, `"0X1P-2" is a hexadecimal number; a data file holds decimal numbers`},
		{"1_000", 0, `"1_000" is not a number (digits separated by _; write 1000)`},
		{"1e1_0", 0, `"1e1_0" is not a number (digits separated by _; write 1e10)`},
		{"Inf", 0, `"Inf": infinite values are not allowed`},
		{"-infinity", 0, `"-infinity": infinite values are not allowed`},
		{"nan", 0, `"nan": NaN is not allowed (write missing values as ? or leave the field empty where the format allows)`},
		{"1e400", 0, `"1e400" overflows float64 (|x| > 1.8e308)`},
		{"x", 0, `"x" is not a number`},
		{"", 0, `"" is not a number`},
	} {
		got, err := ParseFinite(c.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("ParseFinite(%q) = %v, %q; want %v, %q", c.in, got, msg, c.want, c.err)
		}
	}
}

// TestCollect: Collect runs a collection for transient data of
// CollectAfter bytes or more, and none below.
func TestCollect(t *testing.T) {
	for _, c := range []struct {
		bytes int64
		want  bool
	}{{0, false}, {CollectAfter - 1, false}, {CollectAfter, true}, {1 << 40, true}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Collect(c.bytes)
		runtime.ReadMemStats(&after)
		// NumForcedGC counts runtime.GC's collections alone.
		if got := after.NumForcedGC > before.NumForcedGC; got != c.want {
			t.Errorf("Collect(%d): forced collection %v, want %v", c.bytes, got, c.want)
		}
	}
}
