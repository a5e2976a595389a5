package tabio

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func gzipped(s string) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(s))
	z.Close()
	return b.Bytes()
}

// FuzzOpenLines writes arbitrary bytes to a plain or .gz file and reads
// its lines: no panic; lines are numbered 1, 2, … without terminators; a
// failure (not gzip, truncated, corrupt) is an error naming the file.
func FuzzOpenLines(f *testing.F) {
	text := "a\r\nb\n\nc"
	full := gzipped(text)
	f.Add([]byte(text), false)
	f.Add(full, true)
	f.Add(full[:len(full)/2], true)
	f.Add(full[:len(full)-4], true)
	f.Add([]byte("not gzip at all"), true)
	f.Add([]byte("\ufeffx\ny"), false)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		name := "f.txt"
		if gz {
			name += ".gz"
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p)
		if err != nil {
			if !gz || !strings.Contains(err.Error(), p) {
				t.Fatalf("Open: %v", err)
			}
			return
		}
		defer r.Close()
		want := 1
		err = Lines(r, p, func(line int, s string) error {
			if line != want || strings.ContainsAny(s, "\n") || strings.HasSuffix(s, "\r") {
				t.Fatalf("line %d (want %d): %q", line, want, s)
			}
			want++
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error does not name the file: %v", err)
		}
		text := strings.TrimPrefix(string(data), "\ufeff")
		if err == nil && !gz && want-1 != len(strings.Split(strings.TrimSuffix(text, "\n"), "\n")) && len(text) > 0 {
			t.Fatalf("%d lines read from %q", want-1, data)
		}
	})
}

// FuzzParseFinite checks that ParseFinite accepts only finite decimal
// numbers strconv reads (plus underflows to zero): no hexadecimal floats,
// no underscores.
func FuzzParseFinite(f *testing.F) {
	for _, s := range []string{"1", "-2.5e3", "NaN", "inf", "1e400", "1e-400", "0x1p-3", "", "1_0", "+Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseFinite(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) || v != 0 {
				t.Fatalf("%q: %v, %v", s, v, err)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(s, "xX_") {
			t.Fatalf("%q gave %v", s, v)
		}
	})
}
