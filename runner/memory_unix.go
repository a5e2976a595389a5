//go:build unix

package runner

import (
	"math"

	"golang.org/x/sys/unix"
)

// addressSpaceLimit returns the soft RLIMIT_AS in bytes, 0 if there is
// none.
func addressSpaceLimit() int64 {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &r); err != nil || r.Cur == unix.RLIM_INFINITY || r.Cur > math.MaxInt64 {
		return 0
	}
	return int64(r.Cur)
}
