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
// answers, in recorded order) unless replay.WithSpeed or a config says
// otherwise; every other option of package replay applies as given.
//
// A Go server needs no process and no port: replay against its HTTP
// handler (replay.Handler) or run it over a pair of streams
// (replay.Streams). See the examples.
//
// After an intended change of the server, refresh its tapes as go-vcr
// users do, by running the tests once with REPLAYCTL_RERECORD=1
// (RerecordEnv): each Run then rewrites the tape it replays with the live
// exchange (replay.Rerecord) instead of failing where the answers
// differ.
package replaytest

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// RerecordEnv is the environment variable that makes Run re-record:
// set to 1 (or true), Run replays the tape at its path and rewrites it
// with the live exchange — the same sessions and client messages, the
// target's answers and times, secrets redacted as replayctl record does
// (see replay.Rerecord). A message whose answer changed is then logged,
// not an error; the test fails only when the replay stopped early (the
// tape is then left as it was) or the tape could not be written. Unset,
// empty, 0 or false: Run replays and checks. RunSource, whose tape is not
// a file, replays and checks in any case, and logs that it did.
const RerecordEnv = "REPLAYCTL_RERECORD"

// rerecordOn reports whether RerecordEnv asks for re-recording.
func rerecordOn(t testing.TB) bool {
	t.Helper()
	v := os.Getenv(RerecordEnv)
	if v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		t.Fatalf("replaytest: %s=%q: want 1 to re-record the tapes, 0 (or unset) to replay them", RerecordEnv, v)
	}
	return on
}

// Run replays the tape at path and fails t for each message that did not
// go as recorded (see the package doc), or rewrites it when RerecordEnv
// says so. It returns the report, for more checks of your own; nil when
// the replay could not start (then t has failed with why: a bad option,
// config or tape).
func Run(t testing.TB, path string, opts ...replay.Option) *report.Report {
	t.Helper()
	if rerecordOn(t) {
		return run(t, tape.File(path), path, opts)
	}
	return run(t, tape.File(path), "", opts)
}

// RunSource is Run for a tape that is not a file, e.g. one built in the
// test (tape.Bytes).
func RunSource(t testing.TB, src tape.Source, opts ...replay.Option) *report.Report {
	t.Helper()
	if rerecordOn(t) {
		t.Logf("replaytest: %s is set, but %s is not a file to rewrite: replayed and checked", RerecordEnv, src.Name())
	}
	return run(t, src, "", opts)
}

// run replays src, re-recording it into rerecord if that is not "".
func run(t testing.TB, src tape.Source, rerecord string, opts []replay.Option) *report.Report {
	t.Helper()
	var bad failures // every failed message, beyond the report's caps
	opts = append([]replay.Option{replay.Defaults(replay.WithSpeed(replay.Fast()))}, opts...)
	opts = append(opts, replay.OnResult(bad.add))
	if rerecord != "" {
		opts = append(opts, replay.Rerecord(rerecord))
	}
	r, err := replay.New(src, opts...)
	if err != nil {
		t.Errorf("replaytest: %s: %v", src.Name(), err)
		return nil
	}
	rep, err := r.Run(t.Context())
	if rep == nil {
		t.Errorf("replaytest: %s: %v", src.Name(), err)
		return nil
	}
	if rerecord != "" {
		return rerecorded(t, r, rep, err, &bad, rerecord)
	}
	for _, f := range bad.sorted() {
		t.Error(f.describe())
	}
	if err != nil {
		t.Errorf("replaytest: the replay of %s stopped early: %v", src.Name(), err)
	}
	for _, th := range rep.ThresholdsFailed() {
		t.Errorf("replaytest: threshold %s failed: %s is %s", th.Expr, th.Metric, th.Value)
	}
	if len(bad.list) == 0 && err == nil && len(rep.ThresholdsFailed()) == 0 && !rep.Passed() {
		t.Errorf("replaytest: the replay of %s did not pass (see the report)", src.Name())
	}
	var summary bytes.Buffer
	if err := rep.WriteText(&summary, false); err == nil {
		t.Log("replaytest:\n" + strings.TrimRight(summary.String(), "\n"))
	}
	file := filepath.Join(t.ArtifactDir(), "report.json")
	if err := report.WriteFile(file, *rep); err != nil {
		t.Errorf("replaytest: write the report: %v", err)
	} else if t.Failed() {
		t.Logf("replaytest: the report is %s (kept when go test runs with -artifacts)", file)
	}
	return rep
}

// rerecorded tells how the re-recording into path went: the changed
// answers logged, an early stop or a failed write an error.
func rerecorded(t testing.TB, r *replay.Replay, rep *report.Report, err error, bad *failures, path string) *report.Report {
	t.Helper()
	for _, f := range bad.sorted() {
		t.Log("replaytest: re-recorded as it is now: " + f.describe())
	}
	written, n, _ := r.Rerecorded()
	switch {
	case err != nil:
		t.Errorf("replaytest: %s=1: the replay of %s stopped early, the tape is left as it was: %v", RerecordEnv, path, err)
	case !written:
		t.Errorf("replaytest: %s=1: %s was not re-recorded", RerecordEnv, path)
	default:
		t.Logf("replaytest: %s=1: re-recorded %s: %d messages, %d answers changed", RerecordEnv, path, n, len(bad.list))
	}
	return rep
}

// failures gathers the failed results; the same failure in several
// sessions (virtual copies of one recorded session) is one.
type failures struct {
	list  []*failure
	byKey map[string]*failure
}

type failure struct {
	r        report.Result
	sessions []string
}

func (fs *failures) add(r report.Result) {
	if r.Verdict != report.Failed && r.Verdict != report.Error && r.Verdict != report.Timeout {
		return
	}
	if len(r.Out) > clipAt {
		r.Out = r.Out[:clipAt:clipAt]
	}
	r.Out, r.Answer, r.Recorded = bytes.Clone(r.Out), nil, nil
	key := fmt.Sprint(r.Seq, "\x00", describe(r, ""))
	if f := fs.byKey[key]; f != nil {
		f.sessions = append(f.sessions, r.Session)
		return
	}
	if fs.byKey == nil {
		fs.byKey = map[string]*failure{}
	}
	f := &failure{r: r, sessions: []string{r.Session}}
	fs.byKey[key] = f
	fs.list = append(fs.list, f)
}

// sorted is the failures by seq, then session.
func (fs *failures) sorted() []*failure {
	for _, f := range fs.list {
		slices.SortFunc(f.sessions, bySession)
	}
	slices.SortStableFunc(fs.list, func(a, b *failure) int {
		if c := cmp.Compare(a.r.Seq, b.r.Seq); c != 0 {
			return c
		}
		return bySession(a.sessions[0], b.sessions[0])
	})
	return fs.list
}

// bySession orders session names with their virtual copies in number
// order: s1#2 before s1#10.
func bySession(a, b string) int {
	an, ak := copyOf(a)
	bn, bk := copyOf(b)
	if c := strings.Compare(an, bn); c != 0 {
		return c
	}
	return cmp.Compare(ak, bk)
}

// copyOf splits a virtual copy's name "s1#3" into "s1" and 3; another
// name is itself and 0.
func copyOf(name string) (string, int) {
	i := strings.LastIndexByte(name, '#')
	if i < 0 {
		return name, 0
	}
	k, err := strconv.Atoi(name[i+1:])
	if err != nil {
		return name, 0
	}
	return name[:i], k
}

func (f *failure) describe() string {
	const named = 3
	who := "session " + f.sessions[0]
	if n := len(f.sessions); n > 1 {
		who = "sessions " + strings.Join(f.sessions[:min(n, named)], ", ")
		if n > named {
			who += fmt.Sprintf(" and %d more", n-named)
		}
	}
	return describe(f.r, who)
}

// Describe says in a few lines what went wrong with a failed message, as
// Run reports it: seq, method, session and verdict; what was sent; then
// each difference (report.Difference.String).
func Describe(r report.Result) string { return describe(r, "session "+r.Session) }

func describe(r report.Result, who string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seq %d", r.Seq)
	if r.Method != "" {
		fmt.Fprintf(&b, " %s", r.Method)
	}
	if who != "" {
		fmt.Fprintf(&b, " (%s)", who)
	}
	fmt.Fprintf(&b, ": %s", r.Verdict)
	if r.Err != "" {
		fmt.Fprintf(&b, ": %s", r.Err)
	}
	if len(r.Out) > 0 {
		fmt.Fprintf(&b, "\n\tsent: %s", clip(r.Out))
	}
	for _, d := range r.Differences {
		fmt.Fprintf(&b, "\n\t%s", d)
	}
	return b.String()
}

// clipAt is how much of a sent message a failure shows.
const clipAt = 200

// clip keeps a long message readable in a test log.
func clip(b []byte) string {
	if len(b) < clipAt {
		return string(b)
	}
	return string(b[:clipAt]) + "…"
}
