package methods

import (
	"fmt"
	"slices"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

// Needs is what a method requires of a dataset beyond its problem kind
// (Plugin.Kinds), declared by the plugin (Plugin.Needs): `repro list
// methods` prints it, and `repro validate --data` and the runner refuse a
// dataset that lacks it before any trial runs, at the method's line.
type Needs struct {
	// Graphs names the feature graphs a fit reads from the dataset's
	// Graphs (a graph transform such as cooccurrence-graph makes them).
	Graphs []string
	// Columns is the exact number of input columns the method takes;
	// 0: any.
	Columns int
	// MaxClasses is the most classes a classification fit handles, 2 for
	// a binary method; 0: any number (the method reduces K classes to
	// binary problems itself, or handles them directly).
	MaxClasses int
}

// String describes n for `repro list methods`: "needs graph feature",
// "1 input column", "binary"; "" when the method needs nothing.
func (n Needs) String() string {
	var parts []string
	if len(n.Graphs) > 0 {
		parts = append(parts, "needs graph "+strings.Join(n.Graphs, ", "))
	}
	if n.Columns > 0 {
		s := "s"
		if n.Columns == 1 {
			s = ""
		}
		parts = append(parts, fmt.Sprintf("%d input column%s", n.Columns, s))
	}
	switch {
	case n.MaxClasses == 2:
		parts = append(parts, "binary only")
	case n.MaxClasses > 2:
		parts = append(parts, fmt.Sprintf("at most %d classes", n.MaxClasses))
	}
	return strings.Join(parts, "; ")
}

// Check returns an error naming the dataset and what it lacks of n, or
// nil. It checks the graphs only when graphs is true (a dataset whose
// graphs are built per trial has none yet) and the columns only when
// columns is true (per-trial transforms may change them).
func (n Needs) Check(d *datasets.Dataset, graphs, columns bool) error {
	var miss []string
	if graphs {
		for _, g := range n.Graphs {
			if d.Graphs[g] == nil {
				have := make([]string, 0, len(d.Graphs))
				for k := range d.Graphs {
					have = append(have, k)
				}
				slices.Sort(have)
				miss = append(miss, fmt.Sprintf("no feature graph %q (it has [%s]; add a graph transform such as cooccurrence-graph)", g, strings.Join(have, " ")))
			}
		}
	}
	if columns && n.Columns > 0 {
		if c := d.Cols(); c != n.Columns {
			miss = append(miss, fmt.Sprintf("%d input columns, the method takes %d", c, n.Columns))
		}
	}
	if n.MaxClasses > 0 && d.IsClassification() && len(d.Classes) > n.MaxClasses {
		miss = append(miss, fmt.Sprintf("%d classes, the method handles at most %d (tasks: one-vs-rest makes binary tasks)", len(d.Classes), n.MaxClasses))
	}
	if len(miss) == 0 {
		return nil
	}
	return fmt.Errorf("dataset %q has %s", d.Name, strings.Join(miss, "; "))
}

// Handles describes the problems a plugin handles at its declared
// defaults, for `repro list methods`: "classification (binary,
// multi-class)", "classification (binary only)", "regression", followed by
// what else it needs ("needs graph feature", "1 input column").
func (p *Plugin) Handles() string {
	var parts []string
	n := p.NeedsAt(nil)
	if p.Kinds&Classification != 0 {
		if n.MaxClasses == 2 {
			parts = append(parts, "classification (binary only)")
		} else {
			parts = append(parts, "classification (binary, multi-class)")
		}
	}
	if p.Kinds&Regression != 0 {
		parts = append(parts, "regression")
	}
	s := strings.Join(parts, ", ")
	n.MaxClasses = 0 // said above
	if more := n.String(); more != "" {
		s += "; " + more
	}
	return s
}

// NeedsAt returns what a fit at grid point v needs (Plugin.Needs), the
// zero Needs when the plugin declares nothing. A nil v stands for the
// declared defaults.
func (p *Plugin) NeedsAt(v param.Values) Needs {
	if p.Needs == nil {
		return Needs{}
	}
	if v == nil {
		v = param.Values{}
		for _, d := range p.Params {
			v[d.Name] = d.Default
		}
	}
	return p.Needs(v)
}

// OneVsRest returns the K one-vs-rest tasks of a classification training
// set: Y[c][i] is +1 when row i is of class c, else −1 (the targets a
// MultiTask method fits, and a binary method's per class).
func OneVsRest(train *datasets.Dataset) [][]float64 {
	Y := make([][]float64, len(train.Classes))
	for c := range Y {
		Y[c] = make([]float64, train.Rows())
		for i := range Y[c] {
			Y[c][i] = -1
			if train.Label(i) == c {
				Y[c][i] = 1
			}
		}
	}
	return Y
}
