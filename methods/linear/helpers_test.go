package linear

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// synthClass returns n rows of d features drawn around K class means, with
// a fraction zero of the entries set to zero (so the CSR copy is sparse).
func synthClass(seed uint64, n, d, K int, sep, zero float64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 7))
	means := drawMeans(rng, d, K, sep)
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	classes := make([]string, K)
	for k := range classes {
		classes[k] = string(rune('a' + k))
	}
	for i := 0; i < n; i++ {
		k := i % K
		y[i] = float64(k)
		row := X.RawRow(i)
		for j := range row {
			if rng.Float64() < zero {
				continue
			}
			row[j] = means[k][j] + rng.NormFloat64()
		}
	}
	return &datasets.Dataset{Name: "synth", X: X, Y: y, Classes: classes}
}

// sparseCopy returns d with its features stored as CSR.
func sparseCopy(d *datasets.Dataset) *datasets.Dataset {
	out := *d
	out.X = matrix.ToCSR(d.X)
	return &out
}

// pm returns the ±1 targets of class 1 against the rest.
func pm(y []float64) []float64 { return signs(nil, y, 1) }

func newMethod(t testing.TB, name string, p map[string]any) methods.Method {
	t.Helper()
	pl, err := methods.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v := param.Defaults(pl.Params)
	for k, x := range p {
		decl, ok := param.Find(pl.Params, k)
		if !ok {
			t.Fatalf("%s has no param %q", name, k)
		}
		c, err := decl.Convert(x)
		if err != nil {
			t.Fatalf("%s: %s: %v", name, k, err)
		}
		v[k] = c
	}
	m, err := methods.New(name, v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func fit(t testing.TB, name string, p map[string]any, train *datasets.Dataset) methods.Model {
	t.Helper()
	m, err := newMethod(t, name, p).Fit(context.Background(), train, &methods.Env{Seed: 1})
	if err != nil {
		t.Fatalf("%s %v: %v", name, p, err)
	}
	return m
}

func accuracy(p *methods.Prediction, y []float64) float64 {
	ok := 0
	for i := range y {
		if p.Label(i) == int(y[i]) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(y))
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

func maxAbs(a []float64) float64 {
	m := 0.0
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func drawMeans(rng *rand.Rand, d, K int, sep float64) [][]float64 {
	means := make([][]float64, K)
	for k := range means {
		means[k] = make([]float64, d)
		for j := range means[k] {
			means[k][j] = sep * rng.NormFloat64()
		}
	}
	return means
}

// bayesAccuracy returns the accuracy (%) on data of the Bayes rule of
// synthClass(seed, ·, d, K, sep, 0): the nearest true class mean.
func bayesAccuracy(data *datasets.Dataset, seed uint64, d, K int, sep float64) float64 {
	means := drawMeans(rand.New(rand.NewPCG(seed, 7)), d, K, sep)
	ok := 0
	for i := 0; i < data.Rows(); i++ {
		best, bestD := 0, math.Inf(1)
		for k, mu := range means {
			s := 0.0
			for j, m := range mu {
				e := data.X.At(i, j) - m
				s += e * e
			}
			if s < bestD {
				best, bestD = k, s
			}
		}
		if best == int(data.Y[i]) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(data.Rows())
}
