package active

import (
	"math/rand/v2"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/registry"
)

// Strategies holds the query strategies of the active protocol.
var Strategies = registry.New[*Strategy]("query strategy")

// Strategy is a query strategy of the active protocol: which unlabelled
// rows to label next.
type Strategy struct {
	// Doc is a one-line description.
	Doc string
	// Query returns q.N distinct indices into q.Candidates. A strategy
	// has no parameters: the protocol's strategy key names it, and a
	// variant is a name of its own (margin, margin-sampled).
	Query func(q *Query) ([]int, error)
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
