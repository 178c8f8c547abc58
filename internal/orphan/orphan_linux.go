// Package orphan keeps the processes replayctl starts from outliving it.
package orphan

import (
	"os/exec"
	"syscall"
)

// DieWithParent has the kernel SIGKILL cmd's process when this process
// ends, however it ends (kill -9 included, when no orderly stop can run).
// Call it after anything else that sets cmd.SysProcAttr, whose value it
// extends. Only that process: children it started in turn are its own to
// stop.
//
// The signal follows the thread that started the process, not the
// process: the Go runtime ends a thread only when a goroutine that locked
// it exits without unlocking, which nothing that starts a process here
// does.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
