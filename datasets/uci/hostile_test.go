package uci

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

// TestBadLabels checks that a damaged class label (NUL, bytes that are not
// UTF-8) is an error naming the file and line in the UCI loaders, not a
// class of its own, and that dropping every attribute is an error (issue
// 10, item 12).
func TestBadLabels(t *testing.T) {
	dir := t.TempDir()
	row := strings.Repeat("1,", 33) + "40,"
	seq := strings.Repeat("ACGT", 15)
	for _, tc := range []struct {
		loader, file, data string
		over               param.Values
		want               string
	}{
		{"dermatology", "nul.data", row + "1\n" + row + "2\x00\n", nil, `nul.data:2: label column "class": label "2\x00" contains a NUL byte`},
		{"dermatology", "latin1.data", row + "\xe91\n" + row + "2\n", nil, `latin1.data:1: label column "class": label "\xe91" is not valid UTF-8`},
		{"dermatology", "ok.data", row + "1\n" + row + "2\n", param.Values{"drop": DermatologyColumns[:34]}, `ok.data:1: no feature columns: every column other than the label "class" is dropped`},
		{"uci-splice", "splice.data", "EI, A, " + seq + "\nN\x00, B, " + seq + "\n", nil, `splice.data:2: class "N\x00", want EI, IE or N`},
	} {
		if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := datasets.Lookup(tc.loader)
		if err != nil {
			t.Fatal(err)
		}
		p := param.Defaults(l.Params)
		p["file"] = tc.file
		for k, v := range tc.over {
			p[k] = v
		}
		if _, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want it to contain %q", tc.loader, tc.file, err, tc.want)
		}
	}
}
