//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSMB is the peak resident set of the process that ended with ps,
// in MB: getrusage's ru_maxrss, in KB on Linux and the BSDs, in bytes on
// macOS.
func peakRSSMB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) >> 20, true
	}
	return int64(ru.Maxrss) >> 10, true
}
