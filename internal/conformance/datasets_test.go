package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/param"
)

// A fixture is an input a dataset plugin is always checked on: a data
// directory of the repository and the params that point into it.
type fixture struct {
	dir    string         // relative to the module root; "" for embedded data
	params map[string]any // as a spec would write them
	// variants replaces the generated other values of a param, where the
	// generic neighbour does not suit this fixture.
	variants map[string][]any
	// tolerate names the params whose other values this fixture cannot
	// load, with the reason: their loads may fail, but must not panic.
	tolerate map[string]string
}

// fixtures are the inputs of the dataset plugins that read files. A plugin
// without an entry is loaded with its defaults and no data directory, which
// is how embedded datasets load; one that then asks for a file must be
// given a fixture here or be listed in paperOnly.
var fixtures = map[string][]fixture{
	"20news": {{dir: "internal/conformance/testdata", params: map[string]any{"file": "20news"}}},
	"imdb":   {{dir: "datasets/text/testdata"}},
	"text": {{dir: "docs/examples/austen", params: map[string]any{"file": "austen.jsonl", "label": "book", "split": "split"},
		tolerate: map[string]string{"format": "the fixture is JSON Lines (datasets/corpus tests the other formats)"}}},
	"processed-acl":   {{dir: "internal/conformance/testdata", params: map[string]any{"domain": "books"}, tolerate: map[string]string{"domain": "the fixture holds the books domain only"}}},
	"abalone":         {{dir: "datasets/uci/testdata", params: map[string]any{"file": "abalone.data"}}},
	"delve-house-16l": {{dir: "datasets/uci/testdata", params: map[string]any{"file": "Prototask.data.gz"}}},
	"dermatology": {{dir: "datasets/uci/testdata", params: map[string]any{"file": "dermatology.data"},
		tolerate: map[string]string{"missing": "the fixture has missing ages, which missing: error rejects"}}},
	"uci-splice": {{dir: "datasets/uci/testdata", params: map[string]any{"file": "splice.data"}}},
	"libsvm": {{dir: "datasets/libsvm/testdata", params: map[string]any{"file": "train.txt.gz", "test_file": "test.txt"},
		variants: map[string][]any{"features": {10}}}},
	"cora":     {{dir: "datasets/linqs/testdata", params: map[string]any{"content": "tiny.content.gz"}}},
	"citeseer": {{dir: "datasets/linqs/testdata", params: map[string]any{"content": "tiny.content.gz"}}},
	"linqs":    {{dir: "datasets/linqs/testdata", params: map[string]any{"content": "tiny.content.gz"}}},
	"csv": {{dir: "datasets/csv/testdata", params: map[string]any{"file": "tiny.data", "header": false, "label": "rings",
		"missing": "mean", "categorical": []any{"sex"}, "columns": []any{"sex", "length", "diameter", "rings"}},
		tolerate: map[string]string{
			"columns": "the fixture's four fields need four column names",
			"missing": "the fixture has a ? value, which missing: error rejects",
		}}},
}

// paperOnly lists the dataset plugins that read files and have no fixture,
// with the reason; they are checked on the paper data only.
var paperOnly = map[string]string{
	"isolet": "ISOLET rows are 617 values wide and the repository keeps no sample of them",
}

// paperParams gives the required params of a dataset plugin's load from the
// paper data directory.
var paperParams = map[string]map[string]any{
	"processed-acl": {"domain": "books"},
	"linqs":         {"content": "cora/cora.content.gz"},
	"csv":           {"file": "mcycle/mcycle.csv", "label": "accel"},
}

// moduleRootPath returns the path of rel, a slash-separated path relative
// to the repository's root, from this package's directory.
func moduleRootPath(rel string) string {
	return filepath.Join("..", "..", filepath.FromSlash(rel))
}

// TestDatasets loads every registered dataset plugin on its fixtures (its
// embedded data when it reads no file) and, without -short, from the paper
// data directory when the files are there, and checks each load with
// checkLoad; on its fixtures it also loads every declared param moved to
// another valid value.
func TestDatasets(t *testing.T) {
	for name := range fixtures {
		if _, err := datasets.Lookup(name); err != nil {
			t.Errorf("fixtures: %v", err)
		}
	}
	for name := range paperOnly {
		if _, err := datasets.Lookup(name); err != nil {
			t.Errorf("paperOnly: %v", err)
		}
	}
	for _, name := range datasets.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := datasets.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			fs, ok := fixtures[name]
			if !ok {
				fs = []fixture{{}}
			}
			for k, f := range fs {
				t.Run(fmt.Sprintf("fixture%d", k), func(t *testing.T) {
					if reason, paper := paperOnly[name]; paper && !ok {
						t.Skipf("no fixture: %s; checked on the paper data", reason)
					}
					checkFixture(t, name, l, f, !ok)
				})
			}
			if _, paper := paperOnly[name]; !ok && !paper {
				return // embedded: the paper data adds nothing
			}
			t.Run("paper", func(t *testing.T) {
				if testing.Short() {
					t.Skip("-short: the paper data is checked without -short")
				}
				dir := datatest.PaperDir()
				if dir == "" {
					t.Skipf("no paper data directory: set $%s", datasets.DataDirEnv)
				}
				for _, d := range l.Params {
					if _, given := paperParams[name][d.Name]; d.Required() && !given {
						t.Skipf("required param %s has no value for the paper data in paperParams", d.Name)
					}
				}
				p := resolve(t, "dataset "+name, l.Params, paperParams[name])
				env := datasets.Env{DataDir: dir, CacheDir: t.TempDir()}
				if _, err := load(l, env, p); missingFile(err) {
					t.Skipf("paper data not available: %v", err)
				}
				checkLoad(t, l, env, p)
			})
		})
	}
}

// checkFixture checks the loads of plugin name on fixture f, with its
// params and then with each declared param moved to another valid value.
// embedded says the plugin has no fixture and must load without files.
func checkFixture(t *testing.T, name string, l *datasets.Loader, f fixture, embedded bool) {
	p := resolve(t, "dataset "+name, l.Params, f.params)
	env := datasets.Env{CacheDir: t.TempDir()}
	if f.dir != "" {
		env.DataDir = moduleRootPath(f.dir)
	}
	if _, err := load(l, env, p); embedded && missingFile(err) {
		t.Fatalf("loading with no data directory: %v\nthe plugin reads files: give it a fixture in the suite's fixtures table (or list it in paperOnly, with the reason)", err)
	}
	base := checkLoad(t, l, env, p)
	if base == nil {
		return
	}
	for _, d := range l.Params {
		vs, ok := f.variants[d.Name]
		if !ok {
			vs = variants(d, p[d.Name])
		}
		for _, v := range vs {
			t.Run(variantName(d.Name, v), func(t *testing.T) {
				q := p.Clone()
				q[d.Name], _ = d.Convert(asYAML(v))
				ds, err := load(l, env, q)
				switch {
				case err != nil && f.tolerate[d.Name] != "":
					t.Logf("fails as the fixture expects (%s): %v", f.tolerate[d.Name], err)
				case err != nil:
					t.Errorf("load with %s: %v", q.Label(), err)
				case checkDataset(t, ds) && diffDataset(base, ds) == nil:
					t.Logf("%s changes nothing on this fixture", variantName(d.Name, v))
				}
			})
		}
	}
}

// checkLoad loads plugin l with params p three times and checks that the
// loads agree — also after the first one is scribbled over, so that no load
// hands out state another load shares — and that the dataset is valid. It
// returns the dataset, or nil after a failure.
func checkLoad(t *testing.T, l *datasets.Loader, env datasets.Env, p param.Values) *datasets.Dataset {
	t.Helper()
	if l.Validate != nil {
		if err := l.Validate(p); err != nil {
			t.Fatalf("Validate rejects %s: %v", p.Label(), err)
		}
	}
	first, err := load(l, env, p)
	if err != nil {
		t.Fatalf("load with %s: %v", p.Label(), err)
	}
	if !checkDataset(t, first) {
		return nil
	}
	second, err := load(l, env, p)
	if err != nil {
		t.Fatalf("second load: %v", err)
	}
	if d := diffDataset(first, second); d != nil {
		t.Errorf("two loads with the same params differ: %v", d)
	}
	scribble(first)
	third, err := load(l, env, p)
	if err != nil {
		t.Fatalf("third load: %v", err)
	}
	if d := diffDataset(second, third); d != nil {
		t.Errorf("changing a loaded dataset changes the next load: %v", d)
	}
	return second
}

// checkDataset reports whether d is valid and its features and targets
// are finite.
func checkDataset(t *testing.T, d *datasets.Dataset) bool {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Errorf("invalid dataset: %v", err)
		return false
	}
	ok := true
	if i := nonFinite(matrixValues(d.X)); i >= 0 {
		t.Errorf("dataset %q: the features hold %v", d.Name, matrixValues(d.X)[i])
		ok = false
	}
	if i := nonFinite(d.Y); i >= 0 {
		t.Errorf("dataset %q: target %d is %v", d.Name, i, d.Y[i])
		ok = false
	}
	for name, g := range d.Graphs {
		if err := g.Check(); err != nil {
			t.Errorf("dataset %q: graph %q: %v", d.Name, name, err)
			ok = false
		}
	}
	return ok
}

// scribble overwrites d's values in place.
func scribble(d *datasets.Dataset) {
	for i := range d.Y {
		d.Y[i] = -1
	}
	vals := matrixValues(d.X)
	for i := range vals {
		vals[i] = 12345
	}
	for i := range d.Features {
		d.Features[i] = "scribbled"
	}
	for i := range d.Classes {
		d.Classes[i] = "scribbled"
	}
	for _, g := range d.Graphs {
		for i := range g.Val {
			g.Val[i] = 12345
		}
	}
}

// load runs l, turning a panic into an error that carries the stack.
func load(l *datasets.Loader, env datasets.Env, p param.Values) (d *datasets.Dataset, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return l.Load(context.Background(), env, p)
}

func missingFile(err error) bool {
	var mf *datasets.MissingFileError
	return errors.As(err, &mf)
}
