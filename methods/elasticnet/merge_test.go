package elasticnet

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// withTwins returns d's rows with, after its columns, copies of its first
// three columns (column 1 twice) and, for every row, three columns whose
// only non-zero is a 1 in that row, as the k-grams seen in one document
// only are: once standardized, a row's three are one column three times.
func withTwins(d *datasets.Dataset) *datasets.Dataset {
	n, c := d.X.Dims()
	extra := []int{0, 1, 1, 2}
	b := matrix.NewBuilder(c + len(extra) + 3*n)
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			if v := d.X.At(i, j); v != 0 {
				b.Add(j, v)
			}
		}
		for t, j := range extra {
			if v := d.X.At(i, j); v != 0 {
				b.Add(c+t, v)
			}
		}
		for t := 0; t < 3; t++ {
			b.Add(c+len(extra)+3*i+t, 1)
		}
		b.EndRow()
	}
	out := *d
	out.X = b.Build()
	return &out
}

// TestMergeIdentical checks that at α = 0 merging identical columns leaves
// the solution: the merged problem's fits satisfy the optimality
// conditions of the unmerged problem, agree with its fits, give twins the
// same coefficient, and predict with the same coefficients.
func TestMergeIdentical(t *testing.T) {
	for _, K := range []int{2, 3} {
		data := withTwins(synth(7, 90, 12, K, 0.5))
		_, cols := data.X.Dims()
		for _, intercept := range []bool{true, false} {
			opt := Options{Alpha: 0, Standardize: true, Intercept: intercept, Tol: 1e-13}
			merged, err := newProblem(data.X, labels(data), K, opt, true)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := newProblem(data.X, labels(data), K, opt, false)
			if err != nil {
				t.Fatal(err)
			}
			// 12 + 4 copies + 270 singletons → 12 + 90 columns.
			if merged.d != 12+90 || merged.dData != cols || plain.d != cols {
				t.Fatalf("K=%d: %d internal columns of %d (plain %d), want %d", K, merged.d, merged.dData, plain.d, 12+90)
			}
			if r := merged.LambdaMax() / plain.LambdaMax(); math.Abs(r-1) > 1e-12 {
				t.Errorf("K=%d: λ_max %g merged, %g plain", K, merged.LambdaMax(), plain.LambdaMax())
			}
			lambdas := merged.Sequence(8, 0.001)
			if !slices.Equal(lambdas, plain.Sequence(8, 0.001)) {
				t.Fatalf("K=%d: the λ sequences differ", K)
			}
			fm, err := merged.Path(context.Background(), lambdas)
			if err != nil {
				t.Fatal(err)
			}
			fp, err := plain.Path(context.Background(), lambdas)
			if err != nil {
				t.Fatal(err)
			}
			for i := range fm {
				if v := plain.KKT(fm[i]); v > 1e-6 { // TestKKT's bound
					t.Errorf("K=%d intercept=%t λ=%.3g: the merged fit violates the plain problem's KKT by %.2g", K, intercept, lambdas[i], v)
				}
				if a, b := plain.Objective(fm[i]), merged.Objective(fm[i]); math.Abs(a-b) > 1e-12*math.Abs(a) {
					t.Errorf("K=%d λ=%.3g: objective %v plain, %v merged", K, lambdas[i], a, b)
				}
				for k, beta := range fm[i].Beta {
					for j, v := range beta {
						if w := fp[i].Beta[k][j]; math.Abs(v-w) > 1e-5*(1+math.Abs(w)) {
							t.Fatalf("K=%d λ=%.3g class %d column %d: %g merged, %g plain", K, lambdas[i], k, j, v, w)
						}
					}
					if beta[0] != beta[12] || beta[1] != beta[13] || beta[1] != beta[14] {
						t.Errorf("K=%d λ=%.3g: copies of a column have different coefficients", K, lambdas[i])
					}
					for r := 0; r < 90; r++ {
						s := beta[16+3*r : 16+3*r+3]
						if s[0] != s[1] || s[0] != s[2] || s[0] == 0 {
							t.Fatalf("K=%d λ=%.3g row %d: singleton coefficients %v", K, lambdas[i], r, s)
						}
					}
				}
			}
			// The compact coefficients used for prediction: the data's
			// columns, increasing, with the fit's values.
			pa := newPath(merged, listSeq(lambdas))
			last := lambdas[len(lambdas)-1]
			st, _, _, err := pa.solveAt(context.Background(), last)
			if err != nil {
				t.Fatal(err)
			}
			cf := merged.coefs(st)
			f := merged.fit(st)
			if !slices.IsSorted(cf.cols) || len(cf.cols) != cols {
				t.Fatalf("K=%d: %d compact columns (sorted %t), want %d", K, len(cf.cols), slices.IsSorted(cf.cols), cols)
			}
			nk := len(cf.c)
			for t2, j := range cf.cols {
				for k := 0; k < nk; k++ {
					if cf.beta[t2*nk+k] != f.Beta[k][j] {
						t.Fatalf("K=%d: compact coefficient of class %d column %d is %g, the fit's %g", K, k, j, cf.beta[t2*nk+k], f.Beta[k][j])
					}
				}
			}
		}
	}
}

// TestMergeNone checks that a problem without identical columns is not
// touched by the merge.
func TestMergeNone(t *testing.T) {
	data := synth(8, 60, 10, 2, 0.3)
	p := problem(t, data, Options{Alpha: 0, Standardize: true, Intercept: true})
	if p.grp != nil || p.d != 10 {
		t.Fatalf("merged %d columns into %d", p.dData, p.d)
	}
}
