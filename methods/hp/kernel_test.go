package hp

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/lasso"
	"github.com/repro-ml/repro/runner/param"
)

func fitKernel(t *testing.T, d *datasets.Dataset, nu float64) *KernelModel {
	t.Helper()
	pl, err := methods.Lookup("kernel-hp")
	if err != nil {
		t.Fatal(err)
	}
	p := param.Defaults(pl.Params)
	p["nu"] = nu
	m, err := methods.New("kernel-hp", p)
	if err != nil {
		t.Fatal(err)
	}
	model, err := m.Fit(context.Background(), d, &methods.Env{Memo: &methods.Memo{}})
	if err != nil {
		t.Fatal(err)
	}
	return model.(*KernelModel)
}

func TestKernelHPSynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 50
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = 10 * rng.Float64()
		y[i] = 5*math.Sin(x[i]) + rng.NormFloat64()
	}
	d := &datasets.Dataset{Name: "sine", X: matrix.NewDense(n, 1, x), Y: y, Features: []string{"x"}}
	for _, nu := range []float64{1, 10} {
		km := fitKernel(t, d, nu)
		if !km.info.Converged {
			t.Errorf("ν=%g: not converged", nu)
		}
		// Optimality conditions of the kernel problem, relative to ‖∇L(0)‖∞.
		ds, _ := lasso.NewDesign(KernelDesign(x, x, DefaultBandwidths), y, false, true)
		groups := make([][]int, len(DefaultBandwidths))
		for k := range groups {
			for j := 0; j < n; j++ {
				groups[k] = append(groups[k], k*n+j)
			}
		}
		beta := make([]float64, len(km.Beta))
		copy(beta, km.Beta) // no standardization: same scale
		if v := Optimality(ds, groups, beta, nu); v.Max() > 1e-6*gradScale(ds) {
			t.Errorf("ν=%g: violations %+v (scale %g)", nu, v, gradScale(ds))
		}
		pred := km.Predict(d.X)
		for i := range x {
			if math.Abs(pred.Values[i]-km.Value(x[i])) > 1e-12 {
				t.Fatal("Predict and Value disagree")
			}
		}
		arts := km.Artifacts()
		if len(arts) != 2 || arts[0].Plot == nil || len(arts[0].Plot.Series) != 2+len(DefaultBandwidths) || arts[1].Table == nil {
			t.Errorf("artifacts: %+v", arts)
		}
	}
}

// TestKernelHPMotorcycle runs the paper's §4.3 setting on the real data when
// present: a larger ν gives fewer (or as many) non-zero bandwidths and a
// larger training error (a smoother fit).
func TestKernelHPMotorcycle(t *testing.T) {
	dir := os.Getenv("REPRO_DATA")
	if dir == "" {
		dir = "/work/shared/data/paper"
	}
	b, err := os.ReadFile(filepath.Join(dir, "mcycle", "mcycle.csv"))
	if err != nil {
		t.Skip("mcycle data absent (set REPRO_DATA): ", err)
	}
	var x, y []float64
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, ",")
		if i == 0 || len(f) < 3 {
			continue
		}
		a, _ := strconv.ParseFloat(f[1], 64)
		c, _ := strconv.ParseFloat(f[2], 64)
		x, y = append(x, a), append(y, c)
	}
	d := &datasets.Dataset{Name: "mcycle", X: matrix.NewDense(len(x), 1, x), Y: y, Features: []string{"times"}}
	prevZero, prevMSE := -1, 0.0
	for _, nu := range []float64{10, 25, 50} {
		km := fitKernel(t, d, nu)
		zero := 0
		for _, v := range km.GroupNorms() {
			if v == 0 {
				zero++
			}
		}
		pred := km.Predict(d.X)
		mse := 0.0
		for i := range y {
			mse += (pred.Values[i] - y[i]) * (pred.Values[i] - y[i]) / float64(len(y))
		}
		t.Logf("ν=%g: group norms %.4g, training MSE %.1f", nu, km.GroupNorms(), mse)
		if !km.info.Converged || zero < prevZero || mse < prevMSE {
			t.Errorf("ν=%g: converged %v, %d zero bandwidths (before %d), MSE %.1f (before %.1f)", nu, km.info.Converged, zero, prevZero, mse, prevMSE)
		}
		prevZero, prevMSE = zero, mse
	}
}
