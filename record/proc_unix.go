//go:build unix

package record

import (
	"os"
	"syscall"
)

// signalOf names the signal that ended a process, or "".
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
