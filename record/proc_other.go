//go:build !unix

package record

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup stops the server: there is no SIGTERM here, so both steps kill.
func signalGroup(p *os.Process, _ bool) error { return p.Kill() }

func signalOf(*os.ProcessState) string { return "" }
