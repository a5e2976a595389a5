//go:build linux

package runner

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestAddressSpaceLimit: under RLIMIT_AS the default memory limit is half
// of what the limit leaves beyond the process's mapped memory, not half
// of the machine's (a fit under `prlimit --as` failed with "fatal error:
// out of memory" instead of the estimate).
func TestAddressSpaceLimit(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	if addressSpaceLimit() != 0 {
		t.Skip("the test runs under an address-space limit already")
	}
	if a := AddressSpace(); a != 0 {
		t.Fatalf("AddressSpace() = %d without a limit, want 0", a)
	}
	// The mapped size, read through a limit far above it.
	const room = 3 << 30
	lim := unix.Rlimit{Cur: 1 << 62, Max: old.Max}
	if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	mapped := lim.Cur - uint64(AddressSpace())
	lim.Cur = mapped + room
	if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	limit := AddressSpace()
	def := DefaultMemLimit()
	if err := unix.Setrlimit(unix.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	// The test's own goroutines may map a little in between.
	if limit > room || limit < room-(256<<20) {
		t.Errorf("AddressSpace() = %d under a limit %d above the %d mapped bytes", limit, room, mapped)
	}
	if want := min(MachineMemory(), limit) / 2; def > want+(128<<20) || def < want-(128<<20) {
		t.Errorf("DefaultMemLimit() = %d, want about %d (half of %d left by RLIMIT_AS)", def, want, limit)
	}
}
