package libsvm

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets/internal/tabio"
)

// FuzzRead feeds arbitrary text to Read: no panic, no giant allocation,
// and either a dataset passing tabio.Check whose columns cover every
// index read, or an error naming the file and an existing line.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"testdata/train.txt", "testdata/test.txt"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0), uint16(0))
	}
	for _, s := range []string{
		"1 1000000000000:1\n",
		"1 33554432:1\n-1 1:2\n",
		"1 -3:1\n", "1 0:1\n", "1 2:1 2:3\n", "1 3:1 2:1\n",
		"1e400 1:1\n", "1 1:1e400\n", "NaN 1:1\n", "1 1:Inf\n",
		"\ufeff+1 1:1\r\n-1 2:1\r\n", "0.5 1:1\n1.5 2:1\n", "1 qid:3 1:1 # c\n",
	} {
		f.Add([]byte(s), uint8(0), uint16(0))
		f.Add([]byte(s), uint8(1), uint16(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, task uint8, features uint16) {
		o := Options{Task: []string{TaskAuto, TaskClassification, TaskRegression}[task%3], Features: int(features)}
		d, err := Read(bytes.NewReader(data), "t.svm", o)
		if err != nil {
			if !strings.Contains(err.Error(), "t.svm") {
				t.Fatalf("error does not name the file: %v", err)
			}
			var le *tabio.LineError
			if n := bytes.Count(data, []byte("\n")) + 1; errors.As(err, &le) && le.Line > n {
				t.Fatalf("error names line %d of a %d-line input: %v", le.Line, n, err)
			}
			return
		}
		if err := tabio.Check(d); err != nil {
			t.Fatalf("loaded dataset fails the check: %v", err)
		}
		if d.Cols() > MaxFeatures || o.Features > 0 && d.Cols() != o.Features {
			t.Fatalf("%d columns (features option %d)", d.Cols(), o.Features)
		}
		if d.IsClassification() && len(d.Classes) < 2 {
			t.Fatalf("classification with classes %q", d.Classes)
		}
	})
}
