package hp

import (
	"bufio"
	"compress/gzip"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/repro-ml/repro/internal/datatest"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/lasso"
	"github.com/repro-ml/repro/methods/lsq"
)

// Benchmarks of hp, the lasso path and the group lasso on the two shapes of
// the Szafranski et al. experiments: abalone (4177×10: sex dummies, size,
// weight; groups 3+3+4) and Delve house-price-16L (22784×16; four groups of
// four, as experiments/szafranski2007-table2-census.yaml). The real files
// are read from the paper data directory (internal/datatest) when present,
// else synthetic data of the same shape is used (the name says which).
// Each benchmark reports one fit from raw (X, y): building the covariance
// design ("design") is timed apart from the solvers, which work on the
// prebuilt design; penalties are set relative to the zero-solution value
// (λ_max, ν_max) at a point with every group active.
//
//	go test -run '^$' -bench . ./methods/hp

type benchProblem struct {
	name   string
	X      *matrix.Dense
	y      []float64
	groups [][]int
}

func benchDataDir() string { return datatest.PaperDir() }

func abaloneProblem(b *testing.B) benchProblem {
	groups := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8, 9}}
	f, err := os.ReadFile(filepath.Join(benchDataDir(), "uci", "abalone", "abalone.data"))
	if err == nil {
		var data, y []float64
		for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
			fs := strings.Split(strings.TrimSpace(line), ",")
			row := []float64{0, 0, 0}
			row[map[string]int{"F": 0, "I": 1, "M": 2}[fs[0]]] = 1
			// length, diameter, height; whole, shucked, viscera, shell.
			for _, s := range fs[1:8] {
				v, _ := strconv.ParseFloat(s, 64)
				row = append(row, v)
			}
			t, _ := strconv.ParseFloat(fs[8], 64)
			data, y = append(data, row...), append(y, t)
		}
		return benchProblem{"abalone", matrix.NewDense(len(y), 10, data), y, groups}
	}
	b.Logf("abalone data absent (%v): synthetic 4177×10", err)
	return synthetic("abalone-synthetic", 4177, 10, groups)
}

func houseProblem(b *testing.B) benchProblem {
	groups := [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}
	f, err := os.Open(filepath.Join(benchDataDir(), "delve", "house-price-16L", "Prototask.data.gz"))
	if err == nil {
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		var data, y []float64
		sc := bufio.NewScanner(z)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) != 17 {
				continue
			}
			for i, s := range fs {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					b.Fatal(err)
				}
				if i < 16 {
					data = append(data, v)
				} else {
					y = append(y, v)
				}
			}
		}
		return benchProblem{"house-16L", matrix.NewDense(len(y), 16, data), y, groups}
	}
	b.Logf("house-price-16L data absent (%v): synthetic 22784×16", err)
	return synthetic("house-16L-synthetic", 22784, 16, groups)
}

// synthetic returns correlated columns of varied scale and a sparse target.
func synthetic(name string, n, d int, groups [][]int) benchProblem {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	X := matrix.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		common := rng.NormFloat64()
		for j := 0; j < d; j++ {
			X.Set(i, j, float64(1+j%4)*(rng.NormFloat64()+0.6*common))
		}
		y[i] = 10 + 2*X.At(i, 0) - X.At(i, d/2) + 0.5*X.At(i, d-1) + rng.NormFloat64()
	}
	return benchProblem{name, X, y, groups}
}

func benchProblems(b *testing.B) []benchProblem {
	return []benchProblem{abaloneProblem(b), houseProblem(b)}
}

func mustDesign(b *testing.B, p benchProblem) *lsq.Design {
	ds, err := lsq.NewDesign(p.X, p.y, true, true)
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func BenchmarkDesign(b *testing.B) {
	for _, p := range benchProblems(b) {
		b.Run(p.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				mustDesign(b, p)
			}
		})
	}
}

// BenchmarkHP solves hp at ν = 10⁻³ ν_max (every group active) from A = ∅.
func BenchmarkHP(b *testing.B) {
	for _, p := range benchProblems(b) {
		ds := mustDesign(b, p)
		nu := 1e-3 * nuMax(ds, p.groups)
		b.Run(p.name, func(b *testing.B) {
			var sol *Solution
			for i := 0; i < b.N; i++ {
				var err error
				sol, err = Solve(context.Background(), ds, p.groups, nu, Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			if !sol.Converged {
				b.Fatalf("not converged after %d Newton steps", sol.Newton)
			}
			b.ReportMetric(float64(sol.Newton), "newton/op")
		})
	}
}

// BenchmarkLassoPath solves the lasso along the plugin's default path: 20
// log-spaced λ from λ_max down to 10⁻³ λ_max, warm-started.
func BenchmarkLassoPath(b *testing.B) {
	for _, p := range benchProblems(b) {
		ds := mustDesign(b, p)
		lmax := lasso.LambdaMax(ds)
		b.Run(p.name, func(b *testing.B) {
			var sol *lasso.Solution
			for i := 0; i < b.N; i++ {
				var err error
				sol, err = lasso.SolveLasso(context.Background(), ds, lasso.Path(lmax, 1e-3*lmax, 20), nil, lasso.Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			if !sol.Converged {
				b.Fatal("not converged")
			}
			b.ReportMetric(float64(sol.Sweeps), "sweeps/op")
		})
	}
}

// BenchmarkGroupLasso solves the group lasso along the same 20-point path
// from its λ_max down to 10⁻³ λ_max.
func BenchmarkGroupLasso(b *testing.B) {
	for _, p := range benchProblems(b) {
		ds := mustDesign(b, p)
		lmax := lasso.GroupLambdaMax(ds, p.groups)
		b.Run(p.name, func(b *testing.B) {
			var sol *lasso.Solution
			for i := 0; i < b.N; i++ {
				var err error
				sol, err = lasso.SolveGroupLasso(context.Background(), ds, p.groups, lasso.Path(lmax, 1e-3*lmax, 20), nil, lasso.Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			if !sol.Converged {
				b.Fatal("not converged")
			}
			b.ReportMetric(float64(sol.Sweeps), "sweeps/op")
		})
	}
}

// nuMax returns the smallest ν giving β = 0: max_k d_k^{−1/4}‖∇L(0)_k‖₄.
func nuMax(ds *lsq.Design, groups [][]int) float64 {
	g := lossGrad(ds, make([]float64, ds.D))
	m := 0.0
	for _, grp := range groups {
		s := 0.0
		for _, j := range grp {
			s += math.Pow(g[j], 4)
		}
		m = math.Max(m, math.Pow(s, 0.25)/math.Pow(float64(len(grp)), 0.25))
	}
	return m
}
