package conformance_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// A problem is a small learning problem every method of its kind is fitted
// on: a training set and rows to predict, both dense or both sparse.
type problem struct {
	name        string
	kind        methods.Kind
	train, test *datasets.Dataset
}

// The suite's problems: two- and three-class classification and
// regression on 6 columns (three groups of two, a chain feature graph,
// about a third of the entries zero) and regression on one column (the
// shape of kernel regression's mcycle).
var problemNames = []string{"binary", "three-class", "regression", "regression-1d"}

// problems returns the suite's problems with features of the given storage,
// "dense" (*matrix.Dense) or "sparse" (*matrix.CSR).
func problems(storage string) []problem {
	var out []problem
	for k, name := range problemNames {
		rng := rand.New(rand.NewPCG(uint64(k)+1, 2008))
		var (
			p     problem
			d     int
			nc    int // classes
			ntr   = 40
			nte   = 16
			label func(x []float64) float64
		)
		p.name = name
		switch name {
		case "binary", "three-class":
			p.kind, d = methods.Classification, 6
			nc = 2
			if name == "three-class" {
				nc, ntr = 3, 45
			}
			w := randRows(rng, nc, d)
			label = func(x []float64) float64 {
				best, arg := math.Inf(-1), 0
				for c := range nc {
					s := dot(w[c], x) + 0.3*rng.NormFloat64()
					if s > best {
						best, arg = s, c
					}
				}
				return float64(arg)
			}
		case "regression":
			p.kind, d = methods.Regression, 6
			w := randRows(rng, 1, d)[0]
			label = func(x []float64) float64 { return 3 + dot(w, x) + 0.1*rng.NormFloat64() }
		case "regression-1d":
			p.kind, d, ntr = methods.Regression, 1, 30
			label = func(x []float64) float64 { return math.Sin(2*x[0]) + 0.1*rng.NormFloat64() }
		}
		rows := func(n int) *datasets.Dataset {
			ds := &datasets.Dataset{Name: "conformance-" + name}
			data := make([]float64, n*d)
			for i := range n {
				x := data[i*d : (i+1)*d]
				for j := range x {
					switch {
					case d == 1:
						x[j] = 3 * rng.Float64()
					case rng.Float64() < 0.35:
						// zero: sparse storage has something to skip
					default:
						x[j] = rng.NormFloat64()
					}
				}
				ds.Y = append(ds.Y, label(x))
			}
			ds.X = matrix.NewDense(n, d, data)
			if storage == "sparse" {
				ds.X = matrix.ToCSR(ds.X)
			}
			return ds
		}
		p.train, p.test = rows(ntr), rows(nte)
		for _, ds := range []*datasets.Dataset{p.train, p.test} {
			for c := range nc {
				ds.Classes = append(ds.Classes, fmt.Sprintf("class%d", c))
			}
			for j := range d {
				ds.Features = append(ds.Features, fmt.Sprintf("x%d", j))
			}
			for g := 0; g < d; g += 2 {
				cols := []int{g}
				if g+1 < d {
					cols = append(cols, g+1)
				}
				ds.Groups = append(ds.Groups, datasets.Group{Name: fmt.Sprintf("g%d", g/2), Columns: cols})
			}
			ds.Graphs = map[string]*matrix.CSR{"feature": chain(d)}
			if err := ds.Validate(); err != nil {
				panic(err)
			}
		}
		out = append(out, p)
	}
	return out
}

// chain returns the d×d graph linking each feature to its neighbours.
func chain(d int) *matrix.CSR {
	b := matrix.NewBuilder(d)
	for j := range d {
		if j > 0 {
			b.Add(j-1, 1)
		}
		if j+1 < d {
			b.Add(j+1, 1)
		}
		b.EndRow()
	}
	return b.Build()
}

func randRows(rng *rand.Rand, r, c int) [][]float64 {
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = rng.NormFloat64()
		}
	}
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
