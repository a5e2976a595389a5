package runner

// Test helpers of this package's tests, for those of the external test
// package (active_test.go).
var (
	ActiveSpec = activeSpec
	RunSpec    = runSpec
)
