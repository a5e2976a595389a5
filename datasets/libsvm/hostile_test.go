package libsvm

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestHostileInput checks by hand the malformed LIBSVM lines a user may
// feed the loader: each either loads or fails with an error naming the
// file, the line and what was expected.
func TestHostileInput(t *testing.T) {
	tests := []struct {
		name, in string
		o        Options
		want     string // error substring; "" = must load
		rows     int
		cols     int
	}{
		{name: "empty file", in: "", want: "t.svm: no examples"},
		{name: "huge index 1e12", in: "1 1:1\n-1 1000000000000:1\n", want: `t.svm:2: "1000000000000:1": index 1000000000000 exceeds the limit of 33554432 features`},
		{name: "index beyond int64", in: "1 99999999999999999999:1\n", want: `t.svm:1: "99999999999999999999:1": index 99999999999999999999 exceeds the limit`},
		{name: "index in float notation", in: "1 1e12:1\n", want: `t.svm:1: "1e12:1": index "1e12" is not a positive integer`},
		{name: "index at the limit loads without allocating per column", in: "1 33554432:1\n-1 1:1\n", rows: 2, cols: MaxFeatures},
		{name: "features option beyond the limit", in: "1 1:1\n-1 1:2\n", o: Options{Features: MaxFeatures + 1}, want: "t.svm: features = 33554433, want 0 (infer) to 33554432"},
		{name: "negative index", in: "1 -3:1\n", want: `t.svm:1: "-3:1": index "-3" is not a positive integer (indices are 1-based)`},
		{name: "zero index", in: "1 1:1\n1 0:1\n", want: `t.svm:2: "0:1": index "0" is not a positive integer`},
		{name: "duplicate index", in: "1 2:1 2:3\n", want: `t.svm:1: "2:3": index 2 after 2 (indices must strictly increase)`},
		{name: "unsorted indices", in: "1 3:1 2:1\n", want: `t.svm:1: "2:1": index 2 after 3`},
		{name: "NaN value", in: "1 1:NaN\n", want: `t.svm:1: "1:NaN": value "NaN": NaN is not allowed`},
		{name: "Inf value", in: "1 1:-Inf\n", want: `t.svm:1: "1:-Inf": value "-Inf": infinite values are not allowed`},
		{name: "1e400 value", in: "1 1:1e400\n", want: `t.svm:1: "1:1e400": value "1e400" overflows float64`},
		{name: "1e400 label", in: "1e400 1:1\n", want: `t.svm:1: label "1e400" overflows float64`},
		{name: "empty value", in: "1 1:\n", want: `t.svm:1: "1:": value "" is not a number`},
		{name: "empty index", in: "1 :1\n", want: `t.svm:1: ":1": index "" is not a positive integer`},
		{name: "all one class", in: "1 1:1\n1 2:1\n", want: "t.svm: every example has label 1; a classification dataset needs at least two classes"},
		{name: "all one value as regression", in: "1 1:1\n1 2:1\n", o: Options{Task: TaskRegression}, rows: 2, cols: 2},
		{name: "BOM and CRLF", in: "\ufeff+1 1:1\r\n-1 2:1\r\n", rows: 2, cols: 2},
		// Issue 10, item 12.
		{name: "labels only", in: "# labels\n+1\n-1 # no pairs\n", want: "t.svm:2: no index:value pair on any line of t.svm (a file of labels only?)"},
		{name: "labels and qid only", in: "+1 qid:1\n-1 qid:1\n", want: "t.svm:1: no index:value pair on any line"},
		{name: "NUL in a label", in: "+1 1:1\n-1\x00 1:1\n", want: `t.svm:2: label "-1\x00" is not a number`},
		{name: "non-UTF-8 label", in: "+1 1:1\n\xff 1:1\n", want: `t.svm:2: label "\xff" is not a number`},
		// Issue 31: what strconv accepts but a data file does not mean.
		{name: "hexadecimal value", in: "1 1:0x1p3\n", want: `t.svm:1: "1:0x1p3": value "0x1p3" is a hexadecimal number; a data file holds decimal numbers (want a finite number)`},
		{name: "underscore value", in: "1 1:1_000\n", want: `t.svm:1: "1:1_000": value "1_000" is not a number (digits separated by _; write 1000) (want a finite number)`},
		{name: "hexadecimal label", in: "0x1 1:1\n", want: `t.svm:1: label "0x1" is a hexadecimal number; a data file holds decimal numbers (want a finite number first: label index:value ...)`},
		{name: "signed index", in: "1 +3:1\n", want: `t.svm:1: "+3:1": index "+3" is not a positive integer (indices are 1-based)`},
		{name: "comment and qid only", in: "# c\n+1 qid:2 # x\n-1 qid:2 1:0\n", rows: 2, cols: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d, err := Read(strings.NewReader(tc.in), "t.svm", tc.o)
			runtime.ReadMemStats(&after)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want it to contain %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows() != tc.rows || d.Cols() != tc.cols {
				t.Errorf("%d×%d, want %d×%d", d.Rows(), d.Cols(), tc.rows, tc.cols)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 8<<20 {
				t.Errorf("allocated %d MiB for %d bytes of input", a>>20, len(tc.in))
			}
		})
	}
}

// TestLoadBadGzip checks that a .gz file that is not gzip, or is cut
// short, fails with an error naming the file.
func TestLoadBadGzip(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile("testdata/train.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"plain.txt.gz", "+1 1:1\n-1 2:1\n", "plain.txt.gz: reading gzip header (the name ends in .gz; is it gzip, and whole?): gzip: invalid header"},
		{"cut.txt.gz", string(full[:len(full)-12]), "cut.txt.gz: after line"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load([]string{p}, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
