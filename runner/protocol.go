package runner

import (
	"context"
	"fmt"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/registry"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// A trial runs in three pluggable steps — a split kind, a select rule, a
// protocol — each registered once, in the registries of package spec
// (spec.Splitters, spec.Selectors, spec.Protocols), by a value of this
// package that embeds the static description spec reads and adds the code
// that runs it: Splitter, Selector, Protocol. Adding one is one file that
// registers itself from init; see the package documentation.

// Splitter is a split kind: its static description (spec.Splitter) and
// how it divides a dataset's rows, for one trial, into the pool training
// rows are drawn from and the test rows. Register it in spec.Splitters.
type Splitter struct {
	spec.Splitter
	// Split divides the rows of d for one trial.
	Split func(d *datasets.Dataset, p param.Values, at SplitAt) (*Partition, error)
	// CheckData, if set, checks the split's params against the dataset
	// before a trial is drawn (repro validate --data, and Run): an error
	// is the complaint at key, a key of the split: section (kind, or a
	// param). id is the dataset's id, quoted; hint what a regression
	// dataset's message adds about its classes.
	CheckData func(d *datasets.Dataset, p param.Values, id, hint string) (key string, err error)
}

// Partition is one trial's division of a dataset's rows.
type Partition struct {
	// Pool holds the rows training samples are drawn from, sorted.
	Pool []int
	// Test holds the test rows, sorted; nil when TestOf derives them
	// from each training sample.
	Test []int
	// TestOf, if set, returns the test rows for the training rows train
	// (rest: every other row; train: the training rows themselves).
	TestOf func(train []int) []int
	// InSample reports that metrics are computed on the training rows
	// themselves; reports flag it.
	InSample bool
}

// TestRows returns the test rows of p for the training rows train.
func (p *Partition) TestRows(train []int) []int {
	if p.TestOf != nil {
		return p.TestOf(train)
	}
	return p.Test
}

// Selector is a select rule: its static description (spec.Selector) and
// how it chooses a method's grid point in a trial. Register it in
// spec.Selectors.
type Selector struct {
	spec.Selector
	// Choose returns the chosen grid index among c.Candidates.
	Choose func(ctx context.Context, c *Choice) (int, error)
}

// Protocol is a trial protocol: its static description (spec.Protocol)
// and what one trial does with its partition. Register it in
// spec.Protocols.
type Protocol struct {
	spec.Protocol
	// Run runs one trial and returns its observations, in order of x.
	Run func(ctx context.Context, t *TrialRun, p param.Values) ([]results.Observation, error)
	// CheckPool, if set, checks the protocol's params against the
	// smallest pool of the trials of dataset entry ds (where words it:
	// "the 150 rows of dataset iris (split rest)"), calling fail for
	// each problem, at a spec path (repro validate --data, and Run).
	CheckPool func(sp *spec.Spec, ds *spec.DatasetSpec, pool int, where string, fail func(path, format string, args ...any))
}

// LookupSplitter returns the split kind name with its executor: the
// *Splitter registered in spec.Splitters.
func LookupSplitter(name string) (*Splitter, error) {
	return executorOf[*Splitter](spec.Splitters, name, "split")
}

// LookupSelector returns the select rule name with its executor: the
// *Selector registered in spec.Selectors.
func LookupSelector(name string) (*Selector, error) {
	return executorOf[*Selector](spec.Selectors, name, "choose")
}

// LookupProtocol returns the protocol name with its executor: the
// *Protocol registered in spec.Protocols.
func LookupProtocol(name string) (*Protocol, error) {
	return executorOf[*Protocol](spec.Protocols, name, "run")
}

// executorOf returns the plugin called name in reg as this package
// registered it: an E, the static description spec reads with the code
// that does what it describes.
func executorOf[E, K any](reg *registry.Registry[K], name, does string) (E, error) {
	var zero E
	k, err := reg.Lookup(name)
	if err != nil {
		return zero, err
	}
	e, ok := any(k).(E)
	if !ok {
		return zero, fmt.Errorf("%s %s is registered without its executor (package runner's %T): it cannot %s", reg.Kind(), name, zero, does)
	}
	return e, nil
}
