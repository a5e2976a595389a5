package conformance_test

// The plugins under test: every plugin of the build, linked by the same
// package the repro command imports.
import _ "github.com/repro-ml/repro/plugins"
