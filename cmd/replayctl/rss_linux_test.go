package main

import (
	"os"
	"syscall"
)

// peakRSS is the most memory the process ever had resident, in bytes, or
// -1 where the system does not say.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // KiB on Linux
	}
	return -1
}
