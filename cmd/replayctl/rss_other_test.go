//go:build !linux

package main

import (
	"os/exec"
	"testing"
)

// rssOutEnv is unused where peak memory is not read (see rss_linux_test.go).
const rssOutEnv = "REPLAYCTL_TEST_RSS_OUT"

// launchMeasured is not used where peak memory is not read.
func launchMeasured(string) int { return 127 }

// measured runs the binary; the peak RSS is -1: only Linux's figure is
// read.
func measured(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	res, _ := runBinary(t, "", args...)
	return res, -1
}

// measuredBin is measured with another build of replayctl, bin.
func measuredBin(t *testing.T, bin string, args ...string) (result, int64) {
	t.Helper()
	res := runCmd(t, exec.Command(bin, args...), "", args)
	return res, -1
}

// peakRSS is -1: only Linux's figure is read.
func peakRSS(int) int64 { return -1 }
