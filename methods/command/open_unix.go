//go:build unix

package command

import (
	"os"
	"syscall"
)

// openRegular opens path for reading without following a symbolic link
// and without blocking on a FIFO; the caller checks that it is regular.
func openRegular(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// alive reports whether a process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
