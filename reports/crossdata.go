package reports

import (
	"github.com/repro-ml/repro/spec"
)

// thanName returns the name of a relation's Than series as checks print
// it: "label on dataset" when it comes from another dataset entry
// (than_dataset).
func thanName(e *spec.Expectation) string {
	if e.ThanDataset == "" {
		return e.Than
	}
	return e.Than + " on " + e.ThanDataset
}

// dataset returns the dataset of the experiment with the given id, or nil.
func (m *model) dataset(id string) *dataSet {
	for _, d := range m.datasets {
		if d.id == id {
			return d
		}
	}
	return nil
}
