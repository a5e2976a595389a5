package pcapair

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// classesOnThird returns n rows of three features: large noise (sd 10),
// medium noise (sd 5), and the class (±1) with small noise (sd 0.1). The
// components come out in that order, and only pairs with the third
// separate the classes.
func classesOnThird(n int, seed uint64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := matrix.NewBuilder(3)
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i % 2)
		b.Add(0, 10*rng.NormFloat64())
		b.Add(1, 5*rng.NormFloat64())
		b.Add(2, 2*y[i]-1+0.1*rng.NormFloat64())
		b.EndRow()
	}
	return &datasets.Dataset{Name: "synthetic", X: b.Build(), Y: y, Classes: []string{"a", "b"}, Features: []string{"f0", "f1", "f2"}}
}

func TestPCAPairFindsTheSeparatingComponent(t *testing.T) {
	p, err := methods.Lookup("pca-pair")
	if err != nil {
		t.Fatal(err)
	}
	meth, err := p.New(param.Values{"components": 3, "ridge": 1e-4, "max_iter": 200})
	if err != nil {
		t.Fatal(err)
	}
	train := classesOnThird(200, 1)
	model, err := meth.Fit(context.Background(), train, &methods.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ex := model.(methods.Extraser).Extras()
	// Pairs (1,3) and (2,3) both separate; ties go to the first.
	if ex["pc_x"] != 1 || ex["pc_y"] != 3 || ex["pair_train_error"] != 0 {
		t.Errorf("extras %v; want pc_x 1, pc_y 3, training error 0", ex)
	}
	test := classesOnThird(100, 2)
	pred := model.Predict(test.X)
	wrong := 0
	for i := range test.Y {
		if pred.Label(i) != test.Label(i) {
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("%d of 100 test rows misclassified; the third component separates them", wrong)
	}
	arts := model.(methods.Artifacter).Artifacts()
	if len(arts) != 1 || arts[0].Plot == nil || len(arts[0].Plot.Series) != 2 {
		t.Fatalf("artifacts %+v; want one plot with a series per class", arts)
	}
	for c, s := range arts[0].Plot.Series {
		if s.Label != train.Classes[c] || !s.Points || len(s.X) != 100 || len(s.Y) != 100 {
			t.Errorf("series %d: label %q, points %v, %d×%d values; want %q, scatter, 100 rows", c, s.Label, s.Points, len(s.X), len(s.Y), train.Classes[c])
		}
		for i, v := range s.Y { // PC 3 is ±f2 ≈ ±(2y−1): one sign per class
			if (v > 0) != (s.Y[0] > 0) {
				t.Errorf("series %d, point %d: PC 3 = %v has another sign than the class's first point %v", c, i, v, s.Y[0])
				break
			}
		}
	}
}

func TestBestNoSeparation(t *testing.T) {
	// Identical rows of both classes: every pair errs on half; the first
	// pair is kept.
	Z := matrix.NewDense(4, 3, []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3})
	best, err := Best(context.Background(), Z, []int{0, 1, 0, 1}, 2, 1e-4, 50)
	if err != nil {
		t.Fatal(err)
	}
	if best.I != 0 || best.J != 1 || best.Error != 0.5 {
		t.Errorf("best %d,%d error %v; want 0,1 error 0.5", best.I, best.J, best.Error)
	}
}

func TestPCAPairNeedsClasses(t *testing.T) {
	p, _ := methods.Lookup("pca-pair")
	meth, _ := p.New(param.Values{"components": 3, "ridge": 1e-4, "max_iter": 10})
	d := classesOnThird(10, 1)
	d.Classes, d.Y = nil, make([]float64, 10)
	if _, err := meth.Fit(context.Background(), d, nil); err == nil {
		t.Error("regression dataset: no error")
	}
}
