package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// --gc-headroom documents 0 ("Go's own pace"): the flag takes it, with or
// without a unit, and the replay runs.
func TestGCHeadroomZeroAccepted(t *testing.T) {
	for _, zero := range []string{"0", "0B", "0MiB"} {
		res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "10x", "--gc-headroom", zero)
		if res.code != 0 {
			t.Errorf("--gc-headroom %s: exit %d, want 0\n%s", zero, res.code, res.stderr)
		}
	}
}

// The size flags that do not document 0 still refuse it, naming the flag.
func TestSizeFlagsRefuseZero(t *testing.T) {
	for _, args := range [][]string{
		{"run", "examples/quickstart.jsonl", "--max-message", "0"},
		{"serve", "examples/quickstart.jsonl", "--max-message", "0B"},
		{"serve", "examples/quickstart.jsonl", "--listen", "127.0.0.1:19050", "--body-budget", "0"},
	} {
		res := replayctl(t, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "at least 1 byte") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and \"at least 1 byte\"", args, res.code, res.stderr)
		}
	}
}

// The console log's time carries hundredths of a second: a line logged
// within one hundredth that is not .00 shows that hundredth.
func TestConsoleLogTimeHasFraction(t *testing.T) {
	var buf bytes.Buffer
	a := &app{errOut: &buf, stderr: &buf, logLevel: "info", logFormat: "console"}
	if err := a.setupLog(); err != nil {
		t.Fatal(err)
	}
	const hundredth = 10 * time.Millisecond
	for range 100_000 { // bounded: a hundredth passes long before
		buf.Reset()
		before := time.Now()
		a.log.Info().Msg("tick")
		after := time.Now()
		if !before.Truncate(hundredth).Equal(after.Truncate(hundredth)) || before.Nanosecond()/int(hundredth) == 0 {
			continue
		}
		want := before.Format("15:04:05.00")
		if got := buf.String(); !strings.HasPrefix(got, want) {
			t.Fatalf("log line %q; want it to start with %s", got, want)
		}
		return
	}
	t.Fatal("no log line was written within one hundredth of a second other than .00")
}

// --http-spare sets the lean client's spare connections: with
// --http-client std it is a usage error naming both flags.
func TestHTTPSpareWithStdClientRefused(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast",
		"--target", "http://127.0.0.1:19051/mcp", "--http-client", "std", "--http-spare", "4")
	if res.code != 2 || res.stdout != "" || !strings.Contains(res.stderr, "--http-spare") || !strings.Contains(res.stderr, "--http-client") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing replayed, and both flags named", res.code, res.stdout, res.stderr)
	}
}
