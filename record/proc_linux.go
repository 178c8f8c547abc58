package record

import (
	"os/exec"
	"syscall"
)

// dieWithUs has the kernel SIGKILL the server when this process ends,
// however it ends (kill -9 included, when no orderly stop can run). Set
// after transport.SetProcessGroup, whose SysProcAttr it extends. Only the
// server itself: children it started in turn are its own to stop.
//
// The signal follows the thread that started the server, not the process:
// the Go runtime ends a thread only when a goroutine that locked it exits
// without unlocking, which nothing that starts a server does.
func dieWithUs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
