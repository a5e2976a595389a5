package csv

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
)

// FuzzRead feeds arbitrary tables to Read under a few option settings: it
// must not panic, and must return either a dataset that passes tabio.Check
// (finite values, consistent shapes, two or more classes for
// classification) or an error naming the file, whose line, when it gives
// one, exists in the input.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"testdata/tiny.data"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false, uint8(0), uint8(2), uint8(2), "-1")
	}
	for _, s := range []string{
		"a,b,y\n1,2,u\n3,4,v\n",
		"\ufeffa,b,y\r\n1,2,u\r\n3,4,v\r\n",
		"a,b,y,\n1,2,u,\n",
		"a,\"b,c\",y\n1,\"2\n\",u\n3,4,v\n",
		"a y\n1 2\n3 x\n",
		"x,y\n1e400,1\nNaN,2\n",
		"a,y\n?,1\n2,?\n,3\n",
	} {
		f.Add([]byte(s), true, uint8(0), uint8(0), uint8(0), "y")
		f.Add([]byte(s), true, uint8(1), uint8(1), uint8(1), "0")
	}
	f.Fuzz(func(t *testing.T, data []byte, header bool, sep, task, missing uint8, label string) {
		o := DefaultOptions()
		o.Header, o.Label = header, label
		o.Sep = []string{",", Whitespace, ";", "\t"}[sep%4]
		o.Task = []string{TaskAuto, TaskClassification, TaskRegression}[task%3]
		o.Missing = []string{MissingError, MissingDropRows, MissingMean}[missing%3]
		if missing&4 != 0 {
			o.Categorical = []string{"a"}
		}
		d, err := Read(bytes.NewReader(data), "t.csv", o)
		checkResult(t, data, d, err)
		if err == nil && d.IsClassification() && len(d.Classes) < 2 {
			t.Fatalf("classification with classes %q", d.Classes)
		}
	})
}

// checkResult asserts the outcome contract shared by the fuzz targets.
func checkResult(t *testing.T, data []byte, d *datasets.Dataset, err error) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, "t.csv") {
			t.Fatalf("error does not name the file: %v", err)
		}
		var le *tabio.LineError
		if errors.As(err, &le) && le.Line > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("error names line %d of a %d-line input: %v", le.Line, bytes.Count(data, []byte("\n"))+1, err)
		}
		return
	}
	if err := tabio.Check(d); err != nil {
		t.Fatalf("loaded dataset fails the check: %v", err)
	}
	if d.Rows() == 0 {
		t.Fatal("loaded dataset has no rows")
	}
}
