package datasets

import (
	"fmt"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/metric"
)

// Dataset is a table of examples: a feature matrix with one target per row.
//
// Classification datasets set Classes; Y[i] is then the index of row i's
// class in Classes. Regression datasets leave Classes nil and Y holds the
// target. Feature-level side information (names, groups, graphs) is
// indexed by column and survives row subsetting unchanged.
type Dataset struct {
	Name     string
	X        matrix.Matrix
	Y        []float64
	Classes  []string // nil for regression
	Features []string // column names; may be nil

	// Groups partitions (some of) the columns into named groups, in
	// declaration order: one-hot dummies of a categorical column, or groups
	// declared by the experiment. Used by group-penalized methods.
	Groups []Group

	// Split marks a partition given by the data itself (e.g. 20 Newsgroups
	// by-date, Isolet 1-4 vs 5): Split[i] is SplitTrain or SplitTest. Nil when
	// the dataset has no given split.
	Split []Part

	// Graphs holds feature graphs over the columns (d×d, or larger when a
	// graph adds virtual features), keyed by name ("feature", "dissimilarity").
	Graphs map[string]*matrix.CSR

	// Text holds the raw documents of a text dataset, for transforms that
	// work on word sequences (compressive features); nil otherwise.
	Text []string

	// Stats are facts about the dataset worth reporting, e.g. "graph.edges".
	Stats map[string]float64

	// Notes are sentences for the report: provenance, deviations, warnings.
	Notes []string

	// Prep records the loader's preprocessing that depends on the rows it
	// saw (imputed means, one-hot category sets), which the runner refits
	// on each trial's training rows (Refit); nil when there is none.
	Prep *Prep
}

// Part labels a row of a dataset with a given train/test split.
type Part int8

// The parts of a given split.
const (
	SplitTrain Part = iota
	SplitTest
)

// Group is a named set of columns.
type Group struct {
	Name    string
	Columns []int
}

// Rows returns the number of examples.
func (d *Dataset) Rows() int { r, _ := d.X.Dims(); return r }

// Cols returns the number of features.
func (d *Dataset) Cols() int { _, c := d.X.Dims(); return c }

// IsClassification reports whether d has class labels.
func (d *Dataset) IsClassification() bool { return d.Classes != nil }

// Truth returns d's targets, which metrics score predictions against.
func (d *Dataset) Truth() metric.Truth { return metric.Truth{Y: d.Y, Classes: d.Classes} }

// Label returns the class index of row i.
func (d *Dataset) Label(i int) int { return int(d.Y[i]) }

// Labels returns the class index of every row.
func (d *Dataset) Labels() []int {
	out := make([]int, len(d.Y))
	for i, y := range d.Y {
		out[i] = int(y)
	}
	return out
}

// ClassCounts returns the number of rows of each class.
func (d *Dataset) ClassCounts() []int {
	out := make([]int, len(d.Classes))
	for _, y := range d.Y {
		out[int(y)]++
	}
	return out
}

// CheckClasses returns an error if d, a classification dataset, has rows
// of fewer than two classes: no method can learn from it, so a loader
// refuses it rather than let every trial fail. It returns nil for a
// regression dataset.
func (d *Dataset) CheckClasses() error {
	if d.Classes == nil {
		return nil
	}
	counts := make([]int, len(d.Classes))
	for _, y := range d.Y {
		if k := int(y); k >= 0 && k < len(counts) {
			counts[k]++
		}
	}
	var with []string
	for k, c := range counts {
		if c > 0 {
			with = append(with, d.Classes[k])
		}
	}
	switch len(with) {
	case 0:
		return fmt.Errorf("no rows; a classification dataset needs rows of at least two classes")
	case 1:
		return fmt.Errorf("every row has class %q; a classification dataset needs rows of at least two classes", with[0])
	}
	return nil
}

// Subset returns the dataset restricted to the given rows, in that order.
// Column-level information (features, groups, graphs) is shared, not copied.
func (d *Dataset) Subset(rows []int) *Dataset {
	out := *d
	out.X = d.X.RowsOf(rows)
	out.Y = make([]float64, len(rows))
	for k, i := range rows {
		out.Y[k] = d.Y[i]
	}
	if d.Split != nil {
		out.Split = make([]Part, len(rows))
		for k, i := range rows {
			out.Split[k] = d.Split[i]
		}
	}
	if d.Text != nil {
		out.Text = make([]string, len(rows))
		for k, i := range rows {
			out.Text[k] = d.Text[i]
		}
	}
	out.Prep = d.Prep.subset(rows)
	return &out
}

// Validate checks the internal consistency of d.
func (d *Dataset) Validate() error {
	if d.X == nil {
		return fmt.Errorf("dataset %q: no feature matrix", d.Name)
	}
	r, c := d.X.Dims()
	if c == 0 {
		return fmt.Errorf("dataset %q: no feature columns (%d rows of labels only); a dataset needs at least one", d.Name, r)
	}
	if len(d.Y) != r {
		return fmt.Errorf("dataset %q: %d targets for %d rows", d.Name, len(d.Y), r)
	}
	if d.Features != nil && len(d.Features) != c {
		return fmt.Errorf("dataset %q: %d feature names for %d columns", d.Name, len(d.Features), c)
	}
	if d.Split != nil && len(d.Split) != r {
		return fmt.Errorf("dataset %q: split has %d entries for %d rows", d.Name, len(d.Split), r)
	}
	if d.Classes != nil {
		for i, y := range d.Y {
			if y != float64(int(y)) || int(y) < 0 || int(y) >= len(d.Classes) {
				return fmt.Errorf("dataset %q: row %d: label %v is not a class index in [0,%d)", d.Name, i, y, len(d.Classes))
			}
		}
	}
	for _, g := range d.Groups {
		for _, j := range g.Columns {
			if j < 0 || j >= c {
				return fmt.Errorf("dataset %q: group %q: column %d out of range", d.Name, g.Name, j)
			}
		}
	}
	return nil
}

// SplitRows returns the rows of each part of d's given split.
func (d *Dataset) SplitRows() (train, test []int) {
	for i, p := range d.Split {
		if p == SplitTest {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	return train, test
}

// Indices returns 0, 1, …, Rows()−1.
func (d *Dataset) Indices() []int {
	out := make([]int, d.Rows())
	for i := range out {
		out[i] = i
	}
	return out
}
