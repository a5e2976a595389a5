package lsq

import (
	"fmt"
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
)

// Groups returns the groups of train's columns: train.Groups in declaration
// order, then every column in no group as its own group of size 1, named
// after the column. A column declared in two groups is an error.
func Groups(train *datasets.Dataset) ([]datasets.Group, error) {
	d := train.Cols()
	seen := make([]bool, d)
	var out []datasets.Group
	for _, g := range train.Groups {
		if len(g.Columns) == 0 {
			continue
		}
		for _, j := range g.Columns {
			if j < 0 || j >= d {
				return nil, fmt.Errorf("group %q: column %d out of range [0,%d)", g.Name, j, d)
			}
			if seen[j] {
				return nil, fmt.Errorf("group %q: column %s is already in another group", g.Name, FeatureName(train, j))
			}
			seen[j] = true
		}
		out = append(out, datasets.Group{Name: g.Name, Columns: append([]int(nil), g.Columns...)})
	}
	for j := 0; j < d; j++ {
		if !seen[j] {
			out = append(out, datasets.Group{Name: FeatureName(train, j), Columns: []int{j}})
		}
	}
	return out, nil
}

// FeatureName returns the name of column j of d, or "x<j>" if unnamed.
func FeatureName(d *datasets.Dataset, j int) string {
	if j < len(d.Features) && d.Features[j] != "" {
		return d.Features[j]
	}
	return fmt.Sprintf("x%d", j)
}

// HPNorm returns d_k^{1/4} (Σ_j |β_j|^{4/3})^{3/4} for the coefficients of one
// group of size len(beta): the group term of the hierarchical penalty
// (Szafranski et al. 2007), shown in the last column of their Table 1.
func HPNorm(beta []float64) float64 {
	s := 0.0
	for _, b := range beta {
		if b != 0 {
			s += math.Pow(math.Abs(b), 4.0/3)
		}
	}
	if s == 0 {
		return 0
	}
	return math.Pow(float64(len(beta)), 0.25) * math.Pow(s, 0.75)
}

// CoefficientTable returns the "coefficients" artifact of a grouped linear
// model: one row per variable named "group/variable" (or just the variable
// for singleton groups named after it), with columns beta (original scale),
// beta_std (standardized scale, the scale the penalty sees) and hp_norm, the
// group's d_k^{1/4}(Σ|β_j|^{4/3})^{3/4} over beta_std, repeated on each row
// of the group; a last row "(intercept)" holds the intercept.
func CoefficientTable(train *datasets.Dataset, groups []datasets.Group, betaStd, beta []float64, intercept float64) *methods.Artifact {
	t := &methods.Table{Columns: []string{"beta", "beta_std", "hp_norm"}}
	for _, g := range groups {
		sub := make([]float64, len(g.Columns))
		for i, j := range g.Columns {
			sub[i] = betaStd[j]
		}
		norm := HPNorm(sub)
		for _, j := range g.Columns {
			name := FeatureName(train, j)
			if !(len(g.Columns) == 1 && g.Name == name) {
				name = g.Name + "/" + name
			}
			t.Rows = append(t.Rows, name)
			t.Values = append(t.Values, []float64{beta[j], betaStd[j], norm})
		}
	}
	t.Rows = append(t.Rows, "(intercept)")
	t.Values = append(t.Values, []float64{intercept, math.NaN(), math.NaN()})
	return &methods.Artifact{Name: "coefficients", Title: "Coefficients and group norms d_k^{1/4}(Σ|β_j|^{4/3})^{3/4}", Table: t}
}

// ColumnGroups returns the column lists of groups.
func ColumnGroups(groups []datasets.Group) [][]int {
	out := make([][]int, len(groups))
	for k, g := range groups {
		out[k] = g.Columns
	}
	return out
}
