package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/matrix"
)

// fdCheck compares grad with central finite differences of f at x.
func fdCheck(t *testing.T, name string, f func(x []float64) float64, x, grad []float64) {
	t.Helper()
	const h = 1e-6
	for j := range x {
		old := x[j]
		x[j] = old + h
		fp := f(x)
		x[j] = old - h
		fm := f(x)
		x[j] = old
		fd := (fp - fm) / (2 * h)
		if math.Abs(fd-grad[j]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: ∂/∂x[%d] = %.9g, finite difference %.9g", name, j, grad[j], fd)
		}
	}
}

func TestLogisticLossGradient(t *testing.T) {
	data := synthClass(3, 40, 6, 2, 1, 0.3)
	y := pm(data.Y)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		X    matrix.Matrix
	}{{"dense", data.X}, {"csr", matrix.ToCSR(data.X)}} {
		_, d := tc.X.Dims()
		theta := make([]float64, d+1)
		for j := range theta {
			theta[j] = rng.NormFloat64()
		}
		grad := make([]float64, d+1)
		LogisticLoss(tc.X, y, theta[:d], theta[d], grad)
		fdCheck(t, tc.name, func(x []float64) float64 { return LogisticLoss(tc.X, y, x[:d], x[d], nil) }, theta, grad)
	}
}

func TestSoftmaxLossGradient(t *testing.T) {
	data := synthClass(4, 45, 5, 3, 1, 0.3)
	y := data.Labels()
	rng := rand.New(rand.NewPCG(1, 3))
	const K = 3
	for _, tc := range []struct {
		name string
		X    matrix.Matrix
	}{{"dense", data.X}, {"csr", matrix.ToCSR(data.X)}} {
		_, d := tc.X.Dims()
		theta := make([]float64, K*d+K)
		for j := range theta {
			theta[j] = rng.NormFloat64()
		}
		grad := make([]float64, len(theta))
		SoftmaxLoss(tc.X, y, theta[:K*d], theta[K*d:], grad)
		fdCheck(t, tc.name, func(x []float64) float64 { return SoftmaxLoss(tc.X, y, x[:K*d], x[K*d:], nil) }, theta, grad)
	}
}

// TestLossesAgree checks the two-class softmax loss against the binary
// logistic loss of the difference of the class weights, and extreme
// margins against their asymptotes.
func TestLossesAgree(t *testing.T) {
	data := synthClass(5, 30, 4, 2, 1, 0)
	d := 4
	w0 := []float64{0.3, -0.2, 0.1, 0.5}
	w1 := []float64{-0.1, 0.4, 0.2, -0.3}
	b := []float64{0.2, -0.4}
	soft := SoftmaxLoss(data.X, data.Labels(), append(append([]float64{}, w0...), w1...), b, nil)
	diff := make([]float64, d)
	for j := range diff {
		diff[j] = w1[j] - w0[j]
	}
	bin := LogisticLoss(data.X, pm(data.Y), diff, b[1]-b[0], nil)
	if math.Abs(soft-bin) > 1e-10*bin {
		t.Errorf("softmax loss %v, logistic loss %v", soft, bin)
	}
	// One row, huge margins: no overflow.
	X := matrix.NewDense(1, 1, []float64{1})
	for _, tc := range []struct{ w, y, want float64 }{
		{1000, 1, 0}, {-1000, 1, 1000}, {1000, -1, 1000}, {0, 1, math.Ln2},
	} {
		if got := LogisticLoss(X, []float64{tc.y}, []float64{tc.w}, 0, nil); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("LogisticLoss(w=%v, y=%v) = %v, want %v", tc.w, tc.y, got, tc.want)
		}
	}
}

func ExampleLogisticLoss() {
	// Two examples, one feature: at w = 0, b = 0 each costs log 2 and the
	// gradient is −½Σ yᵢxᵢ (and −½Σ yᵢ for b).
	X := matrix.NewDense(2, 1, []float64{1, 3})
	y := []float64{1, -1}
	grad := make([]float64, 2)
	loss := LogisticLoss(X, y, []float64{0}, 0, grad)
	fmt.Printf("loss %.4f = 2 log 2, gradient %v\n", loss, grad)
	// Output: loss 1.3863 = 2 log 2, gradient [1 0]
}

func ExampleSoftmaxLoss() {
	// Three classes, all scores zero: each example costs log 3.
	X := matrix.NewDense(2, 1, []float64{1, 2})
	W := make([]float64, 3) // K×d = 3×1
	b := make([]float64, 3)
	loss := SoftmaxLoss(X, []int{0, 2}, W, b, nil)
	fmt.Printf("%.4f %.4f\n", loss, 2*math.Log(3))
	// Output: 2.1972 2.1972
}

// hidden hides a matrix's concrete type: LogisticLoss then takes its two
// passes (MulVec, MulTransVec) instead of the CSR's fused one.
type hidden struct{ matrix.Matrix }

// TestLogisticLossFusedSame checks that the one-pass loss and gradient of
// a CSR and of a dense matrix are those of the two passes up to the rounding of the rows'
// dot products (summed in four partial sums instead of one), on rows of
// varying length, empty rows among them, and scores large enough that
// residuals underflow to zero.
func TestLogisticLossFusedSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, d = 300, 50
	b := matrix.NewBuilder(d)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for k := rng.IntN(12); k > 0; k-- { // row 0 and others empty
			b.Add(rng.IntN(d), rng.NormFloat64()*float64(1+i%5*200))
		}
		b.EndRow()
		y[i] = float64(2*rng.IntN(2) - 1)
	}
	X := b.Build()
	for _, X := range []matrix.Matrix{X, matrix.ToDense(X)} {
		fusedSame(t, fmt.Sprintf("%T", X), X, y, rng)
	}
}

func fusedSame(t *testing.T, name string, X matrix.Matrix, y []float64, rng *rand.Rand) {
	_, d := X.Dims()
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for _, bias := range []float64{0, -0.7} {
		g1, g2 := make([]float64, d+1), make([]float64, d+1)
		l1 := LogisticLoss(X, y, w, bias, g1)
		l2 := LogisticLoss(hidden{X}, y, w, bias, g2)
		if math.Abs(l1-l2) > 1e-12*math.Abs(l2) {
			t.Errorf("%s, b = %g: loss %v fused, %v in two passes", name, bias, l1, l2)
		}
		scale := 0.0
		for _, v := range g2 {
			scale = math.Max(scale, math.Abs(v))
		}
		for j := range g1 {
			if math.Abs(g1[j]-g2[j]) > 1e-12*scale {
				t.Errorf("%s, b = %g: gradient[%d] %v fused, %v in two passes", name, bias, j, g1[j], g2[j])
			}
		}
	}
}

// TestLogLossSigmoid checks that the pair from one exponential is
// log1pexp's and sigmoid's to the bit.
func TestLogLossSigmoid(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 0.5, -0.5, 3, -3, 36.7, -36.7, 709, -709, 745.2, -745.2, 1e4, -1e4} {
		l, s := logLossSigmoid(x)
		if math.Float64bits(l) != math.Float64bits(log1pexp(x)) || math.Float64bits(s) != math.Float64bits(sigmoid(x)) {
			t.Errorf("logLossSigmoid(%g) = %v, %v; want %v, %v", x, l, s, log1pexp(x), sigmoid(x))
		}
	}
}
