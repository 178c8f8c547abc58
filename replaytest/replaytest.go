// Package replaytest replays MCP tapes from `go test`: a recorded session
// becomes a regression test of a server, the way go-vcr's recorder or
// Agent VCR's pytest plugin are used.
//
//	func TestServer(t *testing.T) {
//		replaytest.Run(t, "testdata/session.jsonl",
//			replay.Against(replay.Command("node", "server.js")))
//	}
//
// Run replays the tape against the target (the built-in mock unless
// replay.Against says otherwise) and fails the test with one t.Error per
// message whose answer did not match the recording: its seq, method and
// session, and each difference as path, expected and actual. It logs the
// report's summary, and writes the whole report as JSON into t.TempDir
// (the failure names the file). It replays fast (as fast as the target
// answers, in recorded order) unless replay.Speed or a config says
// otherwise; every other option of package replay applies as given.
//
// A Go server needs no process and no port: replay against its HTTP
// handler (replay.Handler) or run it over a pair of streams
// (replay.Streams). See the examples.
package replaytest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Run replays the tape at path and fails t for each message that did not
// go as recorded (see the package doc). It returns the report, for more
// checks of your own; nil when the replay could not start (then t has
// failed with why: a bad option, config or tape).
func Run(t testing.TB, path string, opts ...replay.Option) *report.Report {
	t.Helper()
	return RunSource(t, tape.File(path), opts...)
}

// RunSource is Run for a tape that is not a file, e.g. one built in the
// test (tape.Bytes).
func RunSource(t testing.TB, src tape.Source, opts ...replay.Option) *report.Report {
	t.Helper()
	var bad []report.Result // every failed message, beyond the report's caps
	opts = append([]replay.Option{replay.Defaults(replay.Speed("fast"))}, opts...)
	opts = append(opts, replay.OnResult(func(r report.Result) {
		if failed(r.Verdict) {
			r.Out, r.Answer, r.Recorded = nil, nil, nil
			bad = append(bad, r)
		}
	}))
	rep, err := replay.RunSource(t.Context(), src, opts...)
	if rep == nil {
		t.Errorf("replaytest: %s: %v", src.Name(), err)
		return nil
	}
	for _, r := range bad {
		t.Error(Describe(r))
	}
	if err != nil {
		t.Errorf("replaytest: the replay of %s stopped early: %v", src.Name(), err)
	}
	for _, th := range rep.ThresholdsFailed() {
		t.Errorf("replaytest: threshold %s failed: %s is %s", th.Expr, th.Metric, th.Value)
	}
	if len(bad) == 0 && err == nil && len(rep.ThresholdsFailed()) == 0 && !rep.Passed() {
		t.Errorf("replaytest: the replay of %s did not pass (see the report)", src.Name())
	}
	var summary bytes.Buffer
	if err := rep.WriteText(&summary, false); err == nil {
		t.Log("replaytest:\n" + strings.TrimRight(summary.String(), "\n"))
	}
	file := filepath.Join(t.TempDir(), "report.json")
	if err := report.WriteFile(file, *rep); err != nil {
		t.Errorf("replaytest: write the report: %v", err)
	} else if t.Failed() {
		t.Logf("replaytest: the report is %s", file)
	}
	return rep
}

func failed(v report.Verdict) bool {
	return v == report.Failed || v == report.Error || v == report.Timeout
}

// Describe says in a few lines what went wrong with a failed message, as
// Run reports it: seq, method, session, verdict, then each difference.
func Describe(r report.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seq %d", r.Seq)
	if r.Method != "" {
		fmt.Fprintf(&b, " %s", r.Method)
	}
	fmt.Fprintf(&b, " (session %s): %s", r.Session, r.Verdict)
	if r.Err != "" {
		fmt.Fprintf(&b, ": %s", r.Err)
	}
	for _, d := range r.Differences {
		switch {
		case d.Expected == nil:
			fmt.Fprintf(&b, "\n\t%s: not recorded, got %s", d.Path, clip(d.Actual))
		case d.Actual == nil:
			fmt.Fprintf(&b, "\n\t%s: expected %s, got nothing", d.Path, clip(d.Expected))
		default:
			fmt.Fprintf(&b, "\n\t%s: expected %s, got %s", d.Path, clip(d.Expected), clip(d.Actual))
		}
	}
	return b.String()
}

// clip keeps a long JSON value readable in a test log.
func clip(b []byte) string {
	const most = 200
	if len(b) <= most {
		return string(b)
	}
	return string(b[:most]) + "…"
}
