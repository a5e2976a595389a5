//go:build !unix

package runner

// addressSpaceLimit returns 0: no address-space limit is read on systems
// without getrlimit(2).
func addressSpaceLimit() int64 { return 0 }
