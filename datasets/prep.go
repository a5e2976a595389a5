package datasets

import (
	"fmt"
	"slices"

	"github.com/repro-ml/repro/matrix"
)

// Prep records the preprocessing a loader did whose values depend on the
// rows it saw: values imputed by the mean of their column, and one-hot
// dummy columns, whose set is the categories present. A loader computes
// them over every row it reads, test rows included; the runner refits them
// in each trial on the rows the trial may see (Refit), so that nothing of
// the test part flows into them.
type Prep struct {
	// Missing holds, per row of the dataset, the columns whose value was
	// missing and imputed (nil for a complete row).
	Missing [][]int
	// Dummies holds the columns of each one-hot encoded categorical
	// column. A category absent from the rows a trial fits on leaves its
	// dummy zero on every row (the row has none of the known
	// categories), as a one-hot encoder fitted on them ignores an unknown
	// category.
	Dummies [][]int
	// Imputed says whether missing values were imputed by the column mean
	// (the only imputation Refit knows).
	Imputed bool
}

// subset returns p restricted to the given rows of its dataset.
func (p *Prep) subset(rows []int) *Prep {
	if p == nil {
		return nil
	}
	out := *p
	if p.Missing != nil {
		out.Missing = make([][]int, len(rows))
		for k, i := range rows {
			out.Missing[k] = p.Missing[i]
		}
	}
	return &out
}

// Describe returns a sentence for the report saying what the
// preprocessing of p is fitted on in each trial, "" when p has none.
func (p *Prep) Describe(on string) string {
	if p == nil {
		return ""
	}
	var what string
	switch {
	case p.Imputed && len(p.Dummies) > 0:
		what = "the means imputed for missing values and the one-hot category sets"
	case p.Imputed:
		what = "the means imputed for missing values"
	case len(p.Dummies) > 0:
		what = "the one-hot category sets"
	default:
		return ""
	}
	return fmt.Sprintf("Fitted on %s of each trial, not on its test rows: %s.", on, what)
}

// Refit returns train and test with the preprocessing of train.Prep refitted
// on the rows of train: each imputed value of a column replaced by the
// column's mean over the rows of train where it is present (0 when it is
// present in none), and each dummy column that no row of train has (a
// category seen only outside it) set to zero in both. Sets without Prep,
// or with a sparse matrix, are returned as they are. Refit copies the
// matrices it changes.
func Refit(train, test *Dataset) (*Dataset, *Dataset, error) {
	p := train.Prep
	if p == nil || (!p.Imputed && len(p.Dummies) == 0) {
		return train, test, nil
	}
	tx, ok1 := train.X.(*matrix.Dense)
	sx, ok2 := test.X.(*matrix.Dense)
	if !ok1 || !ok2 {
		return train, test, nil
	}
	n, c := tx.Dims()
	if p.Missing != nil && len(p.Missing) != n || test.Prep != nil && test.Prep.Missing != nil && len(test.Prep.Missing) != test.Rows() {
		return nil, nil, fmt.Errorf("dataset %q: a record of preprocessed rows that does not match the rows (%d of %d)", train.Name, len(p.Missing), n)
	}
	// Column means over the rows where the value is present.
	sum := make([]float64, c)
	cnt := make([]int, c)
	present := func(miss []int, j int) bool {
		for _, m := range miss {
			if m == j {
				return false
			}
		}
		return true
	}
	for i := 0; i < n; i++ {
		row := tx.RawRow(i)
		var miss []int
		if p.Missing != nil {
			miss = p.Missing[i]
		}
		for j, v := range row {
			if len(miss) == 0 || present(miss, j) {
				sum[j] += v
				cnt[j]++
			}
		}
	}
	mean := make([]float64, c)
	for j := range mean {
		if cnt[j] > 0 {
			mean[j] = sum[j] / float64(cnt[j])
		}
	}
	// Dummies of categories absent from the training rows.
	var unseen []int
	for _, cols := range p.Dummies {
		for _, j := range cols {
			if sum[j] == 0 {
				unseen = append(unseen, j)
			}
		}
	}
	fix := func(d *Dataset, x *matrix.Dense, missing [][]int) *Dataset {
		if !p.Imputed && len(unseen) == 0 {
			return d
		}
		r, c := x.Dims()
		y := matrix.NewDense(r, c, slices.Clone(x.RawData()))
		for i := range missing {
			row := y.RawRow(i)
			for _, j := range missing[i] {
				row[j] = mean[j]
			}
		}
		if len(unseen) > 0 {
			for i := 0; i < r; i++ {
				row := y.RawRow(i)
				for _, j := range unseen {
					row[j] = 0
				}
			}
		}
		out := *d
		out.X = y
		return &out
	}
	var testMissing [][]int
	if test.Prep != nil {
		testMissing = test.Prep.Missing
	}
	return fix(train, tx, p.Missing), fix(test, sx, testMissing), nil
}
