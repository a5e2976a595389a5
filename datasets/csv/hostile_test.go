package csv

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHostileInput checks by hand the malformed and awkward tables a user
// may feed the loader: each either loads to the expected table or fails
// with an error naming the file, the line where there is one, and what was
// expected.
func TestHostileInput(t *testing.T) {
	label := func(l string) Options { o := DefaultOptions(); o.Label = l; return o }
	noHeader := func(l string) Options { o := label(l); o.Header = false; return o }
	tests := []struct {
		name     string
		in       string
		o        Options
		want     string // error substring; "" = must load
		x        [][]float64
		features []string
		classes  []string
	}{
		{name: "empty file", in: "", o: label("y"), want: "t.csv: empty file, want a header line"},
		{name: "empty file, no header", in: "", o: noHeader("0"), want: "t.csv: no data rows (empty file)"},
		{name: "blank lines only", in: "\n\n\r\n", o: label("y"), want: "t.csv: empty file"},
		{name: "header only", in: "a,y\n", o: label("y"), want: "t.csv: no data rows after the header line"},
		{name: "BOM, label by name", in: "\ufeffy,a\nu,1\nv,2\n", o: label("y"),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"u", "v"}},
		{name: "CRLF line ends", in: "a,y\r\n1,u\r\n2,v\r\n", o: label("y"),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"u", "v"}},
		{name: "CRLF, whitespace separator", in: "a y\r\n1 u\r\n2 v\r\n", o: func() Options { o := label("y"); o.Sep = Whitespace; return o }(),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"u", "v"}},
		{name: "trailing comma in the header", in: "a,y,\n1,u,\n", o: label("y"), want: "t.csv:1: header: column 3 has no name (a trailing separator?)"},
		{name: "trailing comma, no header", in: "1,u,\n2,v,\n", o: noHeader("1"), want: `t.csv:1: column "x3": missing value "" (set missing: mean or drop-rows; a trailing separator?)`},
		{name: "quoted field with a comma", in: "a,y\n1,\"u,w\"\n2,v\n", o: label("y"),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"u,w", "v"}},
		{name: "quoted field with a newline; error line after it", in: "a,y\n1,\"u\nw\"\nx,v\n", o: label("y"), want: `t.csv:4: column "a": "x" is not a number`},
		{name: "unterminated quote", in: "a,y\n1,\"u\n", o: label("y"), want: "t.csv:2:"},
		{name: "ragged row", in: "a,b,y\n1,2,u\n3,v\n", o: label("y"), want: "t.csv:3: 2 fields, want 3"},
		{name: "label column missing", in: "a,b\n1,2\n", o: label("y"), want: `t.csv: label column "y" not found; columns: a, b`},
		{name: "no label given", in: "a,b\n1,2\n", o: label(""), want: "t.csv: no label column given"},
		{name: "all rows one class", in: "a,y\n1,u\n2,u\n", o: label("y"), want: `t.csv: label column "y": every row has class "u"; a classification dataset needs at least two classes`},
		{name: "one class left after classes filter", in: "a,y\n1,u\n2,v\n", o: func() Options { o := label("y"); o.Classes = []string{"u"}; return o }(), want: `every row has class "u"`},
		{name: "NaN feature", in: "a,y\nNaN,1\n2,2\n", o: label("y"), want: `t.csv:2: column "a": "NaN": NaN is not allowed`},
		{name: "Inf feature", in: "a,y\n-inf,1\n2,2\n", o: label("y"), want: `t.csv:2: column "a": "-inf": infinite values are not allowed`},
		{name: "1e400 feature", in: "a,y\n1e400,1\n2,2\n", o: label("y"), want: `t.csv:2: column "a": "1e400" overflows float64`},
		{name: "1e-400 feature underflows to zero", in: "a,y\n1e-400,1\n2,2\n", o: label("y"),
			x: [][]float64{{0}, {2}}, features: []string{"a"}},
		{name: "1e400 regression target", in: "a,y\n1,1e400\n2,2\n", o: func() Options { o := label("y"); o.Task = TaskRegression; return o }(), want: `t.csv:2: label column "y": "1e400" overflows float64`},
		{name: "NaN target read as a class under auto", in: "a,y\n1,NaN\n2,2\n", o: label("y"),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"2", "NaN"}},
		// Issue 10, item 12: a damaged label is no class of its own, and a
		// table without feature columns is no dataset.
		{name: "non-UTF-8 label", in: "a,y\n1,u\n2,\xff\xfe\n3,v\n", o: label("y"), want: `t.csv:3: label column "y": label "\xff\xfe" is not valid UTF-8`},
		{name: "NUL in a label", in: "a,y\n1,u\n2,v\x00w\n", o: label("y"), want: `t.csv:3: label column "y": label "v\x00w" contains a NUL byte`},
		{name: "NUL label as regression", in: "a,y\n1,1\n2,\x00\n", o: func() Options { o := label("y"); o.Task = TaskRegression; return o }(), want: `t.csv:3: label column "y": label "\x00" contains a NUL byte`},
		{name: "control character in a label", in: "a,y\n1,u\x07\n2,v\n", o: label("y"), want: `t.csv:2: label column "y": label "u\a" contains the control character U+0007`},
		{name: "label-only table", in: "y\nu\nv\n", o: label("y"), want: `t.csv:1: no feature columns: the table has only the label column "y"`},
		{name: "label-only table, no header", in: "u\nv\n", o: noHeader("0"), want: `t.csv:1: no feature columns: the table has only the label column "x1"`},
		{name: "every feature dropped", in: "\na,b,y\n1,2,u\n3,4,v\n", o: func() Options { o := label("y"); o.Drop = []string{"a", "b"}; return o }(), want: `t.csv:2: no feature columns: every column other than the label "y" is dropped`},
		// Issue 31: what strconv accepts but a data file does not mean.
		{name: "hexadecimal float feature", in: "a,y\n0x1p3,u\n2,v\n", o: label("y"), want: `t.csv:2: column "a": "0x1p3" is a hexadecimal number; a data file holds decimal numbers (want a finite number; list the column in categorical or drop)`},
		{name: "underscore feature", in: "a,y\n1_000,u\n2,v\n", o: label("y"), want: `t.csv:2: column "a": "1_000" is not a number (digits separated by _; write 1000) (want a finite number; list the column in categorical or drop)`},
		{name: "hexadecimal label under auto", in: "a,y\n1,2\n2,0x1p3\n", o: label("y"), want: `t.csv:3: label column "y": "0x1p3" is a hexadecimal number; a data file holds decimal numbers (task: classification reads it as a class name)`},
		{name: "hexadecimal regression target", in: "a,y\n1,2\n2,0x1p3\n", o: func() Options { o := label("y"); o.Task = TaskRegression; return o }(), want: `t.csv:3: label column "y": "0x1p3" is a hexadecimal number; a data file holds decimal numbers (a regression target must be a finite number; use task: classification for class labels)`},
		{name: "hexadecimal label as a class", in: "a,y\n1,2\n2,0x1p3\n", o: func() Options { o := label("y"); o.Task = TaskClassification; return o }(),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"0x1p3", "2"}},
		{name: "non-UTF-8 column name", in: "a\xe9,y\n1,u\n2,v\n", o: label("y"), want: `t.csv:1: header: column name "a\xe9" is not valid UTF-8 (a damaged file, or one in another encoding: convert it to UTF-8)`},
		{name: "non-UTF-8 categorical value", in: "c,y\nb\xe9,u\nx,v\n", o: func() Options { o := label("y"); o.Categorical = []string{"c"}; return o }(), want: `t.csv:2: column "c": value "b\xe9" is not valid UTF-8 (a damaged file, or one in another encoding: convert it to UTF-8)`},
		{name: "UTF-8 labels are fine", in: "a,y\n1,café\n2,日本\n", o: label("y"),
			x: [][]float64{{1}, {2}}, features: []string{"a"}, classes: []string{"café", "日本"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(strings.NewReader(tc.in), "t.csv", tc.o)
			if tc.x == nil {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want it to contain %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := dense(d); !reflect.DeepEqual(got, tc.x) {
				t.Errorf("X = %v, want %v", got, tc.x)
			}
			if !reflect.DeepEqual(d.Features, tc.features) {
				t.Errorf("features %q, want %q", d.Features, tc.features)
			}
			if !reflect.DeepEqual(d.Classes, tc.classes) {
				t.Errorf("classes %q, want %q", d.Classes, tc.classes)
			}
		})
	}
}

// TestLoadBadGzip checks that a .gz file that is not gzip, or is cut
// short, fails with an error naming the file.
func TestLoadBadGzip(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile("testdata/tiny.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Header, o.Label = false, "-1"
	for _, tc := range []struct{ name, data, want string }{
		{"plain.data.gz", "M,0.455,0.365,15\n", "plain.data.gz: reading gzip header (the name ends in .gz; is it gzip, and whole?): gzip: invalid header"},
		{"cut.data.gz", string(full[:len(full)/2]), "cut.data.gz: reading the record after line"},
		{"empty.data.gz", "", "empty.data.gz: reading gzip header (the name ends in .gz; is it gzip, and whole?): EOF"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
