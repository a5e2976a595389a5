package runner_test

// The active protocol lives in package protocols/active, which imports
// this one: the tests that run it are linked with it here, in the
// external test package, and so register it for every test of runner.

import (
	"errors"
	"testing"

	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/protocols/active"
	"github.com/repro-ml/repro/runner"
)

func init() {
	active.Strategies.Register("fake-first", &active.Strategy{
		Doc: "the first candidates, after checking the query (test fixture)",
		Query: func(q *active.Query, _ param.Values) ([]int, error) {
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

// Every query strategy runs the active protocol to the end.
func TestActiveStrategies(t *testing.T) {
	for _, name := range active.Strategies.Names() {
		if name == "fake-first" || name == "random" {
			continue // TestActiveProtocol
		}
		t.Run(name, func(t *testing.T) {
			sp := runner.ActiveSpec(name)
			sp.Methods = sp.Methods[1:2]
			sum := runner.RunSpec(t, sp, t.TempDir(), 2, nil)
			for _, r := range sum.Results {
				if r.Failed() {
					t.Fatalf("trial %d: %s", r.Trial, r.Error)
				}
				if n := len(r.Points()); n != 4 {
					t.Errorf("trial %d: %d observations; want 4", r.Trial, n)
				}
			}
		})
	}
}
