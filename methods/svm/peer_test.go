package svm

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/kernel"
)

// The golden files in testdata were written by the peers (see the first
// line of each .log): train.libsvm and test.libsvm hold 300 and 200 rows of
// two overlapping Gaussian classes over 6 differently scaled inputs;
// rbf.model and linear.model are libsvm's (3.24) C-SVC models, *.log what
// svm-train printed; liblinear.model is liblinear's (2.3) -s 3 -B 1 model.

// readLibsvm reads a dense LIBSVM file of d columns.
func readLibsvm(t *testing.T, name string, d int) (*matrix.Dense, []float64) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var data, y []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		lab, _ := strconv.ParseFloat(fs[0], 64)
		y = append(y, lab)
		data = append(data, parseRow(fs[1:], d)...)
	}
	return matrix.NewDense(len(y), d, data), y
}

// parseRow reads index:value pairs into a dense row of d columns.
func parseRow(pairs []string, d int) []float64 {
	row := make([]float64, d)
	for _, kv := range pairs {
		k, v, _ := strings.Cut(kv, ":")
		j, _ := strconv.Atoi(k)
		row[j-1], _ = strconv.ParseFloat(v, 64)
	}
	return row
}

// libsvmModel is a libsvm model file: f(x) = Σ coef k(sv, x) − rho.
type libsvmModel struct {
	rho  float64
	coef []float64
	sv   *matrix.Dense
}

func readModel(t *testing.T, name string, d int) libsvmModel {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m libsvmModel
	var data []float64
	inSV := false
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fs := strings.Fields(line)
		switch {
		case inSV:
			c, _ := strconv.ParseFloat(fs[0], 64)
			m.coef = append(m.coef, c)
			data = append(data, parseRow(fs[1:], d)...)
		case fs[0] == "rho":
			m.rho, _ = strconv.ParseFloat(fs[1], 64)
		case fs[0] == "SV":
			inSV = true
		}
	}
	m.sv = matrix.NewDense(len(m.coef), d, data)
	return m
}

func logValue(t *testing.T, name, key string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(regexp.QuoteMeta(key) + ` = (-?[0-9.]+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no %q", name, key)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func agree(f, g, y []float64) (maxDiff float64, sameSign int) {
	for i := range f {
		maxDiff = math.Max(maxDiff, math.Abs(f[i]-g[i]))
		if (f[i] > 0) == (g[i] > 0) {
			sameSign++
		}
	}
	return
}

// TestSMOAgainstLibsvm fits libsvm's problems (RBF γ = 0.25, C = 3; linear,
// C = 0.5; -e 1e-5) with the precomputed Gram matrix and with a cache of a
// few columns and shrinking, and compares the dual objective, the number
// of support vectors, the bias and the decision values on the test rows
// with libsvm's model.
func TestSMOAgainstLibsvm(t *testing.T) {
	const d = 6
	X, y := readLibsvm(t, "train.libsvm", d)
	Xt, _ := readLibsvm(t, "test.libsvm", d)
	for _, tc := range []struct {
		name, model, log string
		k                kernel.Kernel
		C                float64
	}{
		{"rbf", "rbf.model", "rbf.log", kernel.Kernel{Kind: kernel.RBF, Sigma: math.Sqrt(1 / (2 * 0.25))}, 3},
		{"linear", "linear.model", "linear.log", kernel.Kernel{Kind: kernel.Linear}, 0.5},
	} {
		peer := readModel(t, tc.model, d)
		K := kernel.Cross(tc.k, Xt, peer.sv, false)
		want := make([]float64, len(K)/len(peer.coef))
		for i := range want {
			want[i] = -peer.rho
			for k, c := range peer.coef {
				want[i] += c * K[i*len(peer.coef)+k]
			}
		}
		obj := logValue(t, tc.log, "obj")
		for _, cache := range []float64{0, 0.02} { // the Gram matrix; 20 kB, 8 columns
			for _, shrink := range []bool{true, false} {
				s := &SVM{C: tc.C, Kernel: tc.k, Bias: true, Tol: 1e-5, MaxIter: 1e7, Solver: "kernel", CacheMB: cache, NoShrink: !shrink}
				m, err := s.FitBinary(context.Background(), X, y, nil)
				if err != nil {
					t.Fatal(err)
				}
				info := m.Info()
				if !info.Converged {
					t.Errorf("%s cache %g: not converged", tc.name, cache)
				}
				if rel := math.Abs(info.Objective-obj) / math.Abs(obj); rel > 1e-6 {
					t.Errorf("%s cache %g shrink %v: objective %.6f, libsvm %.6f (relative %.1e)", tc.name, cache, shrink, info.Objective, obj, rel)
				}
				if len(m.Coef) != len(peer.coef) {
					t.Errorf("%s cache %g shrink %v: %d support vectors, libsvm %d", tc.name, cache, shrink, len(m.Coef), len(peer.coef))
				}
				if math.Abs(m.B+peer.rho) > 1e-3 {
					t.Errorf("%s cache %g shrink %v: bias %.6f, libsvm %.6f", tc.name, cache, shrink, m.B, -peer.rho)
				}
				diff, same := agree(m.Decision(Xt), want, nil)
				if diff > 1e-3 || same != len(want) {
					t.Errorf("%s cache %g shrink %v: decision values differ from libsvm's by up to %.2e, %d of %d same sign", tc.name, cache, shrink, diff, same, len(want))
				}
			}
		}
	}
}

// TestLinearAgainstLiblinear fits liblinear -s 3 -B 1 -c 0.5 -e 1e-5's
// problem with the linear solver and compares the dual objective and the
// weights (the bias last) with liblinear's, and checks the KKT conditions
// of the solution: the projected gradient of the dual over the augmented
// rows (x, 1) vanishes.
func TestLinearAgainstLiblinear(t *testing.T) {
	const d = 6
	X, y := readLibsvm(t, "train.libsvm", d)
	b, err := os.ReadFile(filepath.Join("testdata", "liblinear.model"))
	if err != nil {
		t.Fatal(err)
	}
	_, ws, _ := strings.Cut(string(b), "\nw\n")
	var want []float64
	for _, f := range strings.Fields(ws) {
		v, _ := strconv.ParseFloat(f, 64)
		want = append(want, v)
	}
	obj := logValue(t, "liblinear.log", "Objective value")
	const C = 0.5
	s := &SVM{C: C, Kernel: kernel.Kernel{}, Bias: true, Tol: 1e-6, MaxIter: 1e8, Seed: 3}
	m, err := s.FitBinary(context.Background(), X, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	if !info.Converged {
		t.Error("not converged")
	}
	if rel := math.Abs(info.Objective-obj) / math.Abs(obj); rel > 1e-6 {
		t.Errorf("objective %.6f, liblinear %.6f (relative %.1e)", info.Objective, obj, rel)
	}
	got := append(append([]float64(nil), m.W...), m.B)
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-3 {
			t.Errorf("w[%d] = %.6f, liblinear %.6f", j, got[j], want[j])
		}
	}
	if worst := projGrad(m, X, y, C); worst > 1e-5 {
		t.Errorf("projected gradient up to %.2e", worst)
	}
	// w = Σ α_i y_i x_i and b = Σ α_i y_i (the constant feature).
	var sb float64
	for i, a := range m.Alpha {
		sb += a * y[i]
	}
	if math.Abs(sb-m.B) > 1e-9 {
		t.Errorf("bias %.9f, Σ α y = %.9f", m.B, sb)
	}
}

// projGrad returns the largest projected gradient of the linear dual at
// m's solution: g_i = y_i f(x_i) − 1 must be ≥ 0 at α = 0, ≤ 0 at α = C
// and 0 between.
func projGrad(m *Model, X matrix.Matrix, y []float64, C float64) float64 {
	f := m.Decision(X)
	worst := 0.0
	for i, a := range m.Alpha {
		g := y[i]*f[i] - 1
		switch {
		case a <= 0:
			g = math.Min(g, 0)
		case a >= C:
			g = math.Max(g, 0)
		}
		worst = math.Max(worst, math.Abs(g))
	}
	return worst
}
