package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testos"
)

// heldWordsEnv, set, makes the test binary replayctl itself, with a
// second signal's words held until the recording's Run has returned
// (holdSecondSignalsWords).
const heldWordsEnv = "REPLAYCTL_TEST_HELD_WORDS"

// heldWordsNote is what the held process says on stderr once a second
// signal has abandoned the recording.
const heldWordsNote = "test: abandoned; the words wait for Run"

// holdSecondSignalsWords sets the hooks of record's second signal so
// that, once it has abandoned the recording, it says so on stderr and
// waits until the first signal's stop (Run) has returned before it
// looks at the file, says what is there and exits: the interleaving in
// which that stop would say its own words (a summary, an exit status)
// if it did not wait for the exit (awaitAbandoned).
func holdSecondSignalsWords() {
	ran := make(chan struct{})
	var once sync.Once
	recordRan = func() { once.Do(func() { close(ran) }) }
	leftRead = func() {
		fmt.Fprintln(os.Stderr, heldWordsNote)
		<-ran
	}
}

// TestRecordSecondSignalWhileStopping: a first Ctrl-C, then a second
// one while the stop is under way (a server that ignores the end of its
// input and SIGTERM), whose stop then ends before the second signal has
// said what is on disk: the process ends as the second signal says,
// exit 130 with its words, which are true of the file, and the stop
// says nothing (no summary claiming an end line the abandoned recording
// never wrote, no exit of its own).
func TestRecordSecondSignalWhileStopping(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := fakeStdioCommand(t, "stubborn")
	pidFile := os.Getenv(fakeUpstreamPIDEnv)
	t.Setenv(heldWordsEnv, "1")
	path := filepath.Join(t.TempDir(), "t.jsonl")
	p := startProc(t, append([]string{exe, "record", "-o", path, "--stop-timeout", "10m", "--"}, server...)...)
	const bound = 2 * time.Minute // a hang's bound; every wait is for a condition
	if _, err := p.stdin.Write([]byte(initializeLine + "\n")); err != nil {
		t.Fatal(err)
	}
	p.waitOutput(p.stdout, `"name":"fake"`, bound) // recorded, then relayed
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.waitOutput(p.stderr, "stopping (", bound) // the stop waits for the server
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.waitOutput(p.stderr, heldWordsNote, bound)
	// The server goes: the first signal's stop ends while the second
	// signal's words wait for it.
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := testos.Kill(pid); err != nil {
		t.Fatal(err)
	}
	code := p.wait(bound)
	stderr := p.stderr.String()
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, stderr)
	}
	words := path + " keeps what was recorded so far, without its end line"
	if !strings.Contains(stderr, "again: stopped at once, without finishing; "+words+" (exit 130)") {
		t.Errorf("stderr does not say %q:\n%s", words, stderr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "recorded ") || strings.HasPrefix(l, "replayctl: interrupted") || strings.HasPrefix(l, "replayctl: record") {
			t.Errorf("the first signal's stop said %q, beside the second signal's words:\n%s", l, stderr)
		}
	}
	if tp := readTapeOnDisk(path, true); tp.messages != 2 || tp.ended || !tp.heard {
		t.Errorf("the tape holds %+v; want its 2 messages, without its end line", tp)
	}
}
