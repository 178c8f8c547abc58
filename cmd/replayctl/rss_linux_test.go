package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Peak memory of a replayctl process, read where it is the process's own.
// getrusage's maxrss is not, for a command this test binary starts: Go
// starts it with vfork, and exec keeps the high-water mark of the memory
// the new program replaces, which is this test binary's (hundreds of MB
// late in a -race run of the package, the same for every command then).
// So peakRSS reads a running process's VmHWM, and measured runs the
// command under a launcher (this test binary started afresh, a few MB),
// whose own child's maxrss counts from the launcher's memory.

// rssOutEnv names the file where the test binary, started as the
// launcher (see TestMain), writes its command's peak RSS in bytes.
const rssOutEnv = "REPLAYCTL_TEST_RSS_OUT"

// launchMeasured runs os.Args[1:] with this process's standard streams,
// writes its peak RSS to out and returns its exit status.
func launchMeasured(out string) int {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rss launcher:", err)
		return 127
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		_ = os.WriteFile(out, []byte(strconv.FormatInt(ru.Maxrss<<10, 10)), 0o644) // KiB on Linux
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 128 + int(cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
}

// measured runs the built binary as runBinary does, and also returns its
// peak resident memory in bytes.
func measured(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	return measuredBin(t, binary, args...)
}

// measuredBin is measured with another build of replayctl, bin.
func measuredBin(t *testing.T, bin string, args ...string) (result, int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(self, append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), rssOutEnv+"="+out)
	res := runCmd(t, cmd, "", args)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the peak RSS of %v was not written: %v", args, err)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return res, n
}

// peakRSS is the most memory the running process pid has had resident,
// in bytes (VmHWM), or -1 where the system does not say.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(v)
			if len(f) == 0 {
				return -1
			}
			kib, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				return -1
			}
			return kib << 10
		}
	}
	return -1
}
