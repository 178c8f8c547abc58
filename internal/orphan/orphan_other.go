//go:build !linux

package orphan

import "os/exec"

// DieWithParent does nothing here: only Linux has a parent-death signal,
// so a process that ignores its stdin's end and SIGTERM outlives a
// replayctl killed with kill -9.
func DieWithParent(*exec.Cmd) {}
