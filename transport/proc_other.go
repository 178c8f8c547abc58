//go:build !unix

package transport

import (
	"os"
	"os/exec"
)

// SetProcessGroup does nothing here: there are no process groups.
func SetProcessGroup(*exec.Cmd) {}

// SignalGroup stops the server: there is no SIGTERM here, so both steps kill.
func SignalGroup(p *os.Process, _ bool) error { return p.Kill() }
