// Package fakeactive registers a fake query strategy of the active
// protocol, fake-first, for the tests of packages spec and runner. It is
// a test fixture like package fakeplugin, apart from it because it
// imports protocols/active, which imports runner: runner's own tests
// import fakeplugin and so could not link it.
package fakeactive

import (
	"errors"

	"github.com/repro-ml/repro/protocols/active"
)

func init() {
	active.Strategies.Register("fake-first", &active.Strategy{
		Doc: "the first candidates, after checking the query (test fixture)",
		Query: func(q *active.Query) ([]int, error) {
			if q.Pred == nil || q.Pred.Rows() != len(q.Candidates) {
				return nil, errors.New("no prediction for every candidate")
			}
			out := make([]int, q.N)
			for i := range out {
				out[i] = i
			}
			return out, nil
		},
	})
}
