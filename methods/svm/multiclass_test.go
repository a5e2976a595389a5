package svm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// The multi-class golden files were written by libsvm-tools (see the
// first line of each multi_*.log): multi_train.libsvm and
// multi_test.libsvm hold 240 and 160 rows of four overlapping Gaussian
// classes over 3 inputs, labelled 3, 1, 4, 2 in the order they first
// appear (libsvm's label order 3 2 1 4 for its pairs and ties);
// multi_*.predict are svm-predict's labels of the test rows from
// svm-train's one-vs-one models. ovr_*.libsvm are four better separated
// classes (one-vs-rest's linear SVMs on the overlapping ones are all
// w ≈ 0, b = −1, and their argmax noise); ovr_liblinear.predict is
// liblinear-predict's labels from liblinear-train -s 3 -B 1 (one-vs-rest).

// multiData reads a multi-class LIBSVM file as a dataset whose classes are
// the labels in numeric order ("1" … "4"), unlike libsvm's first-seen order.
func multiData(t *testing.T, name string) *datasets.Dataset {
	t.Helper()
	X, lab := readLibsvm(t, name, 3)
	y := make([]float64, len(lab))
	for i, v := range lab {
		y[i] = v - 1
	}
	return &datasets.Dataset{Name: name, X: X, Y: y, Classes: []string{"1", "2", "3", "4"}}
}

// TestOneVsOneMatchesLibsvm fits svm on the four classes with libsvm's
// parameters and checks that every test row gets svm-predict's label:
// the pairs, their orientation, the vote and its tie rule are libsvm's.
func TestOneVsOneMatchesLibsvm(t *testing.T) {
	train, test := multiData(t, "multi_train.libsvm"), multiData(t, "multi_test.libsvm")
	for _, tc := range []struct {
		golden string
		params map[string]any
	}{
		// -t 2 -g 0.5 -c 2: σ = 1.
		{"multi_rbf.predict", map[string]any{"C": 2.0, "kernel": "rbf", "sigma": 1.0}},
		// -t 0 -c 1, the kernel solver (libsvm's problem, one-vs-one).
		{"multi_linear.predict", map[string]any{"C": 1.0, "kernel": "linear", "solver": "kernel"}},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(string(b))
		p := map[string]any{"degree": 2, "sigma": 1.0, "normalize": false, "bias": true, "tol": 1e-3,
			"max_iter": 10000000, "solver": "auto", "cache_mb": 200.0, "shrinking": true, "multiclass": "auto"}
		for k, v := range tc.params {
			p[k] = v
		}
		meth, err := methods.New("svm", p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := meth.Fit(context.Background(), train, &methods.Env{Memo: &methods.Memo{}})
		if err != nil {
			t.Fatal(err)
		}
		pred := m.Predict(test.X)
		if pred.K != 4 || pred.OneVsRest {
			t.Fatalf("%s: prediction K=%d OneVsRest=%v; want 4 classes voted", tc.golden, pred.K, pred.OneVsRest)
		}
		if len(want) != test.Rows() {
			t.Fatalf("%s: %d labels for %d rows", tc.golden, len(want), test.Rows())
		}
		agree := 0
		for i, w := range want {
			if got := test.Classes[pred.Label(i)]; got == w {
				agree++
			} else {
				t.Errorf("%s: row %d: label %s, svm-predict %s", tc.golden, i, got, w)
			}
		}
		t.Logf("%s: %d/%d labels agree with svm-predict", tc.golden, agree, len(want))
	}
}

// TestOneVsOneTieRule checks the vote's tie rule on three classes whose
// pairwise SVMs each prefer a different class (a cycle): every class has
// one vote, and the class seen first in training wins, whatever its index.
func TestOneVsOneTieRule(t *testing.T) {
	m := &multiModel{k: 3, order: []int{2, 0, 1}}
	// Pairs in order positions (0,1), (0,2), (1,2): classes 2v0, 2v1, 0v1;
	// 2 beats 0, 1 beats 2, 0 beats 1.
	for _, v := range []float64{1, -1, 1} {
		m.models = append(m.models, &Model{B: v, SV: matrix.NewDense(0, 1, nil)})
	}
	m.pos = [][2]int{{0, 1}, {0, 2}, {1, 2}}
	p := m.Predict(matrix.NewDense(1, 1, []float64{0}))
	if got := p.Label(0); got != 2 {
		t.Errorf("tied vote: label %d (scores %v); want 2, libsvm's first label", got, p.Scores)
	}
	// A decision value of exactly 0 votes for the pair's second class.
	m.models[0].B = 0
	p = m.Predict(matrix.NewDense(1, 1, []float64{0}))
	if got := p.Label(0); got != 0 {
		t.Errorf("votes 0:2 1:1 2:0: label %d (scores %v); want 0", got, p.Scores)
	}
}

// TestOneVsRestLinear checks the linear solver's default reduction on
// four classes: one SVM per class against the rest, each the binary fit
// of its ±1 labels, and the largest decision value wins.
func TestOneVsRestLinear(t *testing.T) {
	train, test := multiData(t, "ovr_train.libsvm"), multiData(t, "ovr_test.libsvm")
	s := &SVM{C: 1, Bias: true, Tol: 1e-3, MaxIter: 1000000}
	if got := s.scheme(); got != "ovr" {
		t.Fatalf("scheme %q; want ovr for the linear solver", got)
	}
	m, err := s.Fit(context.Background(), train, &methods.Env{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(test.X)
	if !p.OneVsRest || p.K != 4 {
		t.Fatalf("K=%d OneVsRest=%v; want 4 one-vs-rest scores", p.K, p.OneVsRest)
	}
	for c := 0; c < 4; c++ {
		y := make([]float64, train.Rows())
		for i := range y {
			y[i] = -1
			if train.Label(i) == c {
				y[i] = 1
			}
		}
		b, err := s.FitBinary(context.Background(), train.X, y, &methods.Env{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range b.Decision(test.X) {
			if p.Score(i, c) != v {
				t.Fatalf("class %d row %d: score %v; binary fit %v", c, i, p.Score(i, c), v)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", "ovr_liblinear.predict"))
	if err != nil {
		t.Fatal(err)
	}
	agree, correct := 0, 0
	for i, w := range strings.Fields(string(b)) {
		if test.Classes[p.Label(i)] == w {
			agree++
		}
		if p.Label(i) == test.Label(i) {
			correct++
		}
	}
	t.Logf("one-vs-rest linear: %d/160 correct, %d/160 agree with liblinear-predict", correct, agree)
	// The solutions agree to the solvers' tolerances: a row whose two
	// largest decision values are that close may go either way.
	if agree < 158 {
		t.Errorf("%d/160 labels agree with liblinear-predict; want ≥ 158", agree)
	}
}
