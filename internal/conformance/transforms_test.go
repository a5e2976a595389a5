package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// transformParams gives values to the required params of transform
// plugins; a transform with a required param missing here fails
// TestTransforms, which names it.
var transformParams = map[string]map[string]any{
	"relabel": {"classes": map[string]string{"positive": "yes", "negative": "no"}},
}

// shortValues is the most stored feature values of a dataset that the
// transforms are applied to with -short.
const shortValues = 100000

// corpus returns a small labelled word-count dataset whose columns are
// words of the embedded sentiment lexicons and neutral words, each in many
// documents, with its documents as text (each word repeated as often as it
// is counted, in column order) for the transforms that read word
// sequences: the input every transform is checked on.
func corpus() *datasets.Dataset {
	words := []string{"good", "great", "excellent", "love", "nice", "wonderful",
		"bad", "poor", "terrible", "hate", "awful", "boring",
		"movie", "plot", "actor", "scene", "story", "film", "music", "ending"}
	rng := rand.New(rand.NewPCG(9, 2008))
	b := matrix.NewBuilder(len(words))
	d := &datasets.Dataset{Name: "conformance-corpus", Classes: []string{"negative", "positive"}, Features: words}
	for i := range 40 {
		var doc []string
		y := i % 2
		for j := range words {
			p := 0.4
			if j < 6 && y == 1 || j >= 6 && j < 12 && y == 0 {
				p = 0.7
			}
			if rng.Float64() < p {
				c := 1 + rng.IntN(3)
				b.Add(j, float64(c))
				for range c {
					doc = append(doc, words[j])
				}
			}
		}
		b.EndRow()
		d.Text = append(d.Text, strings.Join(doc, " "))
		d.Y = append(d.Y, float64(y))
	}
	d.X = b.Build()
	return d
}

// TestTransforms applies every registered transform at its declared
// defaults to the corpus and checks that it is deterministic, leaves its
// input unchanged, keeps the rows and targets, gives a valid dataset, does
// not look at the labels, and honours a cancelled context; then it applies
// each declared param moved to another valid value, and applies the
// defaults to every dataset the suite loads without the paper data, where
// an error is allowed but a panic or an invalid result is not.
func TestTransforms(t *testing.T) {
	for name := range transformParams {
		if _, err := datasets.LookupTransform(name); err != nil {
			t.Errorf("transformParams: %v", err)
		}
	}
	loaded := loadedDatasets(t)
	for _, name := range datasets.TransformNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := corpus()
			tr, err := datasets.LookupTransform(name)
			if err != nil {
				t.Fatal(err)
			}
			p := resolve(t, "transform "+name, tr.Params, transformParams[name])
			env := datasets.Env{CacheDir: t.TempDir()}
			base := checkApply(t, tr, env, in, p)
			if base == nil {
				return
			}
			// Labels: the same rows with every label flipped. A
			// supervised transform declares that it reads them.
			flipped := cloneDataset(in)
			for i, y := range flipped.Y {
				flipped.Y[i] = 1 - y
			}
			if tr.Supervised {
				// declared: it may read them
			} else if out, err := apply(context.Background(), tr, env, flipped, p); err != nil {
				t.Errorf("apply to the corpus with its labels flipped: %v", err)
			} else if d := diffDataset(base, out, "Y"); d != nil && !tr.Supervised {
				t.Errorf("the output depends on the labels (a transform must not look at them): %v", d)
			}
			checkApplyCancelled(t, tr, env, in, p)
			for _, d := range tr.Params {
				for _, v := range variants(d, p[d.Name]) {
					t.Run("params/"+variantName(d.Name, v), func(t *testing.T) {
						q := p.Clone()
						q[d.Name] = v
						out := checkApply(t, tr, env, in, q)
						if out != nil && diffDataset(base, out) == nil {
							t.Logf("%s changes nothing on the corpus", variantName(d.Name, v))
						}
					})
				}
			}
			for _, ds := range loaded {
				t.Run("on/"+ds.Name, func(t *testing.T) {
					if n := len(matrixValues(ds.X)); testing.Short() && n > shortValues {
						t.Skipf("-short: %d stored values, more than %d; run without -short", n, shortValues)
					}
					orig := cloneDataset(ds)
					out, err := apply(context.Background(), tr, env, ds, p)
					if d := diffDataset(orig, ds); d != nil {
						t.Errorf("Apply changed its input: %v", d)
					}
					if err != nil {
						t.Logf("fails (allowed): %v", err)
						return
					}
					if checkDataset(t, out) && out.Rows() != ds.Rows() && !tr.Rows {
						t.Errorf("%d rows out for %d in", out.Rows(), ds.Rows())
					}
				})
			}
		})
	}
}

// checkApply applies tr with params p to in twice and checks the result:
// the same both times, valid, finite, with in's rows and targets, and in
// unchanged. It returns the result, or nil after a failure.
func checkApply(t *testing.T, tr *datasets.Transform, env datasets.Env, in *datasets.Dataset, p param.Values) *datasets.Dataset {
	t.Helper()
	orig := cloneDataset(in)
	out, err := apply(context.Background(), tr, env, in, p)
	if err != nil {
		t.Errorf("apply with %s: %v", p.Label(), err)
		return nil
	}
	if d := diffDataset(orig, in); d != nil {
		t.Errorf("Apply changed its input: %v", d)
	}
	if !checkDataset(t, out) {
		return nil
	}
	if !tr.Supervised && (out.Rows() != in.Rows() || !sameFloats(out.Y, in.Y) || !slices.Equal(out.Classes, in.Classes)) {
		t.Errorf("%d rows out for %d in, targets or classes changed; a transform keeps the rows and their labels", out.Rows(), in.Rows())
	}
	again, err := apply(context.Background(), tr, env, cloneDataset(orig), p)
	if err != nil {
		t.Errorf("second apply: %v", err)
	} else if d := diffDataset(out, again); d != nil {
		t.Errorf("two applies with the same params differ: %v", d)
	}
	return out
}

// checkApplyCancelled applies tr under an already cancelled context: it
// may finish (the corpus is small) but an error must wrap context.Canceled
// and come within promptly.
func checkApplyCancelled(t *testing.T, tr *datasets.Transform, env datasets.Env, in *datasets.Dataset, p param.Values) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := apply(ctx, tr, env, cloneDataset(in), p)
	took := time.Since(start)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("apply with a cancelled context: error %v; want one wrapping context.Canceled", err)
	}
	if took > promptly {
		t.Errorf("apply with a cancelled context took %v; want at most %v", took, promptly)
	}
}

// apply runs tr on d, turning a panic into an error that carries the
// stack: Apply for a corpus-level transform; for one fitted per trial, Fit
// on d's rows (without labels unless the transform is supervised, as the
// runner hands them over) and then its Transform of d.
func apply(ctx context.Context, tr *datasets.Transform, env datasets.Env, d *datasets.Dataset, p param.Values) (out *datasets.Dataset, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	if tr.Apply != nil {
		return tr.Apply(ctx, env, d, p)
	}
	view := *d
	if !tr.Supervised {
		view.Y, view.Classes = nil, nil
	}
	f, err := tr.Fit(ctx, env, &view, p)
	if err != nil {
		return nil, err
	}
	if out, err = f.Transform(d); err != nil {
		return nil, err
	}
	// The runner keeps the rows' labels across a fitted transform.
	c := *out
	c.Y, c.Classes = d.Y, d.Classes
	return &c, nil
}

// loadedDatasets returns every dataset the suite loads without the paper
// data: the embedded ones and each plugin's first fixture, named by plugin.
func loadedDatasets(t *testing.T) []*datasets.Dataset {
	t.Helper()
	var out []*datasets.Dataset
	for _, name := range datasets.Names() {
		l, err := datasets.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if fs := fixtures[name]; len(fs) > 0 {
			f = fs[0]
		} else if _, paper := paperOnly[name]; paper {
			continue
		}
		p := resolve(t, "dataset "+name, l.Params, f.params)
		env := datasets.Env{}
		if f.dir != "" {
			env.DataDir = moduleRootPath(f.dir)
		}
		d, err := load(l, env, p)
		if err != nil {
			continue // TestDatasets reports it
		}
		d.Name = name
		out = append(out, d)
	}
	return out
}
