//go:build !unix

package command

import "os/exec"

// ownGroup leaves cmd as it is: cancellation kills the program alone.
func ownGroup(cmd *exec.Cmd) {}
