//go:build unix

package transport

import (
	"os"
	"os/exec"
	"syscall"
)

// SetProcessGroup puts the server in a process group of its own, so that
// stopping it also stops the children it started (npx, sh -c, …), and a
// Ctrl-C meant for replayctl reaches the server only through replayctl's
// orderly stop. The recording proxy starts its servers with it too.
func SetProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// SignalGroup sends sig to the server's process group; with kill it sends
// SIGKILL, else SIGTERM.
func SignalGroup(p *os.Process, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		return p.Signal(sig)
	}
	return nil
}
