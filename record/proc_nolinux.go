//go:build !linux

package record

import "os/exec"

// dieWithUs does nothing here: only Linux has a parent-death signal, so a
// server that ignores its stdin's end and SIGTERM outlives a record that
// is killed with kill -9.
func dieWithUs(*exec.Cmd) {}
