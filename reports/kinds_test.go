package reports

// Reports read a spec's plan (spec.NewPlan), which needs the split kinds,
// select rules and protocols registered: the command links them with the
// executor, and so do these tests. Package reports itself never imports
// it (methods/layering_test.go).
import _ "github.com/repro-ml/repro/runner"
