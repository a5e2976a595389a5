// Package datatest finds the papers' datasets for tests, benchmarks and
// bench programs, so that none of them hard-codes where the data lives.
//
// The paper data directory is $REPRO_DATA when set, else the checkout's
// neighbour ../shared/data/paper (beside the module root), which is where
// this project's CI keeps it. Tests that need a file there skip, with the
// reason, when it is absent: the suite runs on a fresh machine too.
package datatest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// PaperDir returns the paper data directory ("" if neither $REPRO_DATA nor
// ../shared/data/paper beside the module root exists).
func PaperDir() string {
	if d := os.Getenv(datasets.DataDirEnv); d != "" {
		return d
	}
	return beside("data", "paper")
}

// EmbedDir returns ../shared/data/embed beside the module root, where the
// originals of the embedded datasets are ("" if absent).
func EmbedDir() string { return beside("data", "embed") }

// beside returns ../shared/<elem…> relative to the module root, if it exists.
func beside(elem ...string) string {
	root := moduleRoot()
	if root == "" {
		return ""
	}
	p := filepath.Join(append([]string{filepath.Dir(root), "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Paper returns the paper data directory if it holds file (a path relative
// to it), and otherwise skips tb with the reason.
func Paper(tb testing.TB, file string) string {
	tb.Helper()
	dir := PaperDir()
	if dir == "" {
		tb.Skipf("paper data not found: set $%s or put the shared data beside the checkout (needs %s)", datasets.DataDirEnv, file)
	}
	if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
		tb.Skipf("paper data file %s not available (set $%s): %v", file, datasets.DataDirEnv, err)
	}
	return dir
}

// Load runs the registered dataset plugin name on the data directory dir,
// with its parameter defaults overridden by over, and fails tb on an error.
func Load(tb testing.TB, name, dir string, over param.Values) *datasets.Dataset {
	tb.Helper()
	l, err := datasets.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	p := param.Defaults(l.Params)
	for k, v := range over {
		p[k] = v
	}
	d, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p)
	if err != nil {
		tb.Fatalf("dataset %q: %v", name, err)
	}
	return d
}

// TryLoad runs the registered dataset plugin name on the data directory
// dir with params given as a spec would give them: each value is converted
// and range-checked by its declaration, defaults fill the rest. An unknown
// plugin or param, or a bad value, fails tb; the loader's own error is
// returned for the test to inspect.
func TryLoad(tb testing.TB, name, dir string, params map[string]any) (*datasets.Dataset, error) {
	tb.Helper()
	l, err := datasets.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	v := Values(tb, "dataset "+strconv.Quote(name), l.Params, params)
	return l.Load(context.Background(), datasets.Env{DataDir: dir}, v)
}

// Values returns the defaults of decls overridden by params given as a spec
// would give them: each value is converted and range-checked by its
// declaration. An unknown param or a bad value fails tb, naming what (the
// plugin).
func Values(tb testing.TB, what string, decls []param.Decl, params map[string]any) param.Values {
	tb.Helper()
	v := param.Defaults(decls)
	for k, x := range params {
		decl, ok := param.Find(decls, k)
		if !ok {
			tb.Fatalf("%s: no param %q", what, k)
		}
		c, err := decl.Convert(x)
		if err != nil {
			tb.Fatalf("%s: param %s: %v", what, k, err)
		}
		v[k] = c
	}
	return v
}

// Rows returns m as a slice of dense rows, for comparing a loaded matrix
// with the expected values.
func Rows(m matrix.Matrix) [][]float64 {
	r, c := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		m.Row(i, func(j int, v float64) { out[i][j] = v })
	}
	return out
}
