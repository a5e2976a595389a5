//go:build !unix

package command

import "os/exec"

// guard leaves cmd as it is: cancellation kills the program alone.
func guard(cmd *exec.Cmd) {}
