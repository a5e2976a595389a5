package runner_test

// The active protocol lives in package protocols/active, which imports
// this one: the tests that run it are linked with it here, in the
// external test package, and so register it for every test of runner.

import (
	"testing"

	_ "github.com/repro-ml/repro/internal/fakeplugin/fakeactive" // fake-first
	"github.com/repro-ml/repro/protocols/active"
	"github.com/repro-ml/repro/runner"
)

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
