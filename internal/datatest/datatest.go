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
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/memtest"
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

// ZipfText returns n documents of words/2 to 3·words/2 words each, drawn
// (seeded by seed) from a Zipf law over vocab words, each word its base-26
// letters, with a sentence's full stop now and then: text whose short
// phrases repeat and long ones mostly do not, as in a corpus, for
// measuring what code on documents allocates.
func ZipfText(seed uint64, n, words, vocab int) []string {
	rng := rand.New(rand.NewPCG(seed, uint64(words)))
	z := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	docs := make([]string, n)
	var b strings.Builder
	for i := range docs {
		b.Reset()
		for w := range words/2 + rng.IntN(words) {
			switch {
			case w == 0:
			case rng.IntN(12) == 0:
				b.WriteString(". ")
			default:
				b.WriteByte(' ')
			}
			for v := z.Uint64() + 1; v > 0; v /= 26 {
				b.WriteByte(byte('a' + v%26))
			}
		}
		docs[i] = b.String()
	}
	return docs
}

// CheckLoadMemory loads dataset plugin loader from dir, with set over its
// parameters' defaults, and checks that the loader's estimate
// (Loader.Memory) covers the load's live peak (memtest.LeastPeak over up
// to three loads, memtest.CheckPeak); what names the case in failures.
// It returns the estimate and the peak.
func CheckLoadMemory(t *testing.T, loader, dir, what string, set param.Values) (est, peak int64) {
	t.Helper()
	l, err := datasets.Lookup(loader)
	if err != nil {
		t.Fatal(err)
	}
	p := param.Defaults(l.Params)
	maps.Copy(p, set)
	env := datasets.Env{DataDir: dir}
	est = l.Memory(env, p)
	_, peak = memtest.LeastPeak(func() {
		if _, err := l.Load(t.Context(), env, p); err != nil {
			t.Fatal(err)
		}
	}, est, 3)
	memtest.CheckPeak(t, what, est, peak)
	return est, peak
}
