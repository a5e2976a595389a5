package runner

import (
	"context"
	"math/rand/v2"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/registry"
	"github.com/repro-ml/repro/results"
)

// A trial runs in three pluggable steps, each a registry of its own:
//
//   - a splitter (split: kind) divides the dataset's rows into the pool a
//     trial draws its training rows from and the test part;
//   - a selector (select: rule) chooses a method's grid point on the
//     trial's training rows;
//   - a protocol (protocol: name) runs the trial — fits, scores — and
//     returns its observations.
//
// Adding one is one file that registers itself from init; see the package
// documentation.

// Splitters holds the split kinds (given, holdout, rest, train, kfold).
var Splitters = registry.New[*Splitter]("split kind")

// Selectors holds the select rules (fixed, cv, test).
var Selectors = registry.New[*Selector]("select rule")

// Protocols holds the trial protocols (curve, active).
var Protocols = registry.New[*Protocol]("protocol")

// Strategies holds the query strategies of the active protocol.
var Strategies = registry.New[*Strategy]("query strategy")

// Splitter is a split kind: how a dataset's rows divide, for one trial,
// into the pool training rows are drawn from and the test rows.
type Splitter struct {
	// Doc is a one-line description for `repro list` and docs/spec.md.
	Doc string
	// Params declares the keys of the split: section besides kind.
	Params []param.Decl
	// Replicates, if set, returns how many trials the split itself
	// defines (kfold: folds × repeats); the spec's trial count is then
	// that number. Otherwise curve.trials decides.
	Replicates func(p param.Values) int
	// Split divides the rows of d for one trial.
	Split func(d *datasets.Dataset, p param.Values, at SplitAt) (*Partition, error)
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

// Selector is a select rule: how a method's grid point is chosen in a
// trial.
type Selector struct {
	// Doc is a one-line description.
	Doc string
	// Chooses reports whether the rule chooses among grid points (cv,
	// test). Under a rule that does not (fixed), every grid point is a
	// variant of its own.
	Chooses bool
	// Oracle marks a rule that looks at the test rows; reports flag it.
	Oracle bool
	// Choose returns the chosen grid index among c.Candidates.
	Choose func(ctx context.Context, c *Choice) (int, error)
	// Fits returns the number of model fits one choice among candidates
	// grid points costs, the final fit included (for `repro validate`).
	Fits func(candidates int, s Select) int
}

// Protocol is a trial protocol: what one trial does with its partition.
type Protocol struct {
	// Doc is a one-line description.
	Doc string
	// Params declares the keys of the protocol: section besides name.
	Params []param.Decl
	// PerMethod names the params of Params a method entry may set for
	// its own series (methods[i].protocol): those that change what the
	// method's trials do, never the samples, splits or folds they share
	// with the other series (see Spec.ProtocolParams).
	PerMethod []string
	// PerSize reports that the protocol runs one trial per training size
	// of curve.sizes (curve); otherwise one trial per replicate yields
	// all of its observations (active).
	PerSize bool
	// Run runs one trial and returns its observations, in order of x.
	Run func(ctx context.Context, t *TrialRun, p param.Values) ([]results.Observation, error)
	// Steps, if set, returns how many times a trial fits its method (the
	// active protocol's batches); otherwise once. For `repro validate`.
	Steps func(p param.Values) int
}

// Strategy is a query strategy of the active protocol: which unlabelled
// rows to label next.
type Strategy struct {
	// Doc is a one-line description.
	Doc string
	// Params declares the strategy's params (given in the protocol
	// section under strategy_params).
	Params []param.Decl
	// Query returns q.N distinct indices into q.Candidates.
	Query func(q *Query, p param.Values) ([]int, error)
	// Blind declares that Query does not read q.Pred: the protocol then
	// skips the model's pass over the unlabelled candidates (Pred is nil).
	Blind bool
}

// Query is what a strategy sees: the current model's predictions on the
// unlabelled candidates, never their labels.
type Query struct {
	// N is the number of rows to choose.
	N int
	// Candidates are the unlabelled pool rows (dataset row indices).
	Candidates []int
	// Pred holds the current model's prediction on the candidates, row i
	// of Pred for Candidates[i]; nil before the first model.
	Pred *metric.Prediction
	// Rand is the trial's own random source for the query.
	Rand *rand.Rand
}
