package reports

// Reports read a spec's plan (spec.NewPlan), which needs the split kinds,
// select rules and protocols registered: the command links them with the
// executor and the protocol packages, and so do these tests. Package
// reports itself never imports them (methods/layering_test.go).
import (
	_ "github.com/repro-ml/repro/protocols/active"
	_ "github.com/repro-ml/repro/runner"
)
