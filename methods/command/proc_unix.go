//go:build unix && !linux

package command

import (
	"os/exec"
	"syscall"
)

// guard starts cmd in a process group of its own and makes its
// cancellation kill the whole group: a shell script's children die with
// it at the timeout. (Linux does more: see proc_linux.go.)
func guard(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
