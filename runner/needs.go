package runner

import (
	"fmt"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
)

// checkNeeds returns an error when the trial's training set lacks what its
// method needs at any of its grid points (methods.Plugin.Needs): a
// feature graph, a number of input columns, at most so many classes. The
// runner checks it before the fit's memory, whose estimate for data the
// method cannot take would only confuse ("needs 1.09 GB").
func (t *TrialRun) checkNeeds(train *datasets.Dataset) error {
	m := t.Trial.Method
	p, err := methods.Lookup(m.Name)
	if err != nil || p.Needs == nil {
		return nil
	}
	named := *train
	named.Name = t.Trial.Dataset.ID
	if t.OneVsRest() {
		named.Classes = nil // binary tasks
		named.Y = nil
	}
	for _, g := range m.Grid {
		if err := p.NeedsAt(g).Check(&named, true, true); err != nil {
			return fmt.Errorf("method %q: %w", m.Label, err)
		}
	}
	return nil
}
