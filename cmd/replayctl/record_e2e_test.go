package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
)

// The end-to-end matrix of issue 13: each real client (go-sdk, TypeScript
// SDK) put through `replayctl record` in front of each real server (the
// go-sdk conformance server, server-everything), its transcript compared
// with one straight against the server, and every tape replayed against
// the server it was recorded from with zero failures.

var e2eClients = []testclient.Client{testclient.Go, testclient.TypeScript}

// e2eServer is a real server of the matrix, over stdio.
type e2eServer struct {
	name  string
	stdio func(testing.TB) []string
}

var e2eServers = []e2eServer{
	{"gosdk", testserver.GoSDK},
	{"everything", testserver.Everything},
}

// e2eTimeout bounds each client run of the matrix, node starts of the
// client and the server included (at a load average of 50 on two cores
// a TypeScript client's run passed 30s before its first answer).
const e2eTimeout = 2 * time.Minute

// recordStdioClient runs client c with `replayctl record -o PATH -- argv`
// as its server command and returns the client's run.
func recordStdioClient(t *testing.T, path string, c testclient.Client, argv []string, o testclient.Options, extra ...string) testclient.Run {
	t.Helper()
	proxy := append([]string{binary, "record", "-q", "-o", path}, extra...)
	proxy = append(append(proxy, "--"), argv...)
	o.Timeout = e2eTimeout
	return testclient.RunClient(t, c, testclient.Stdio(proxy...), o)
}

// mustSucceed fails the test unless every step of r succeeded.
func mustSucceed(t *testing.T, what string, r testclient.Run) {
	t.Helper()
	if r.Status != 0 || len(r.Steps) == 0 {
		t.Fatalf("%s: client exit %d, %d steps\nstdout:\n%s\nstderr:\n%s", what, r.Status, len(r.Steps), r.Stdout, r.Stderr)
	}
}

// sameTranscript fails the test when the client's transcript through the
// proxy differs from its transcript straight against the server.
func sameTranscript(t *testing.T, direct, proxied testclient.Run) {
	t.Helper()
	if d := testclient.Diff(direct.Steps, proxied.Steps); d != nil {
		t.Errorf("the client's transcript through record differs from the one straight against the server:\n\t%s", strings.Join(d, "\n\t"))
	}
}

// loadTape reads every message of the tape at path, which must be whole:
// an end line that counts its messages, no warning.
func loadWholeTape(t *testing.T, path string) (tape.Header, []tape.Message) {
	t.Helper()
	h, msgs, end, warnings := readAll(t, path)
	if end == nil || end.Messages != int64(len(msgs)) || len(warnings) != 0 {
		t.Fatalf("tape %s: end %+v, %d messages, warnings %q: want an end line that counts them and no warning", path, end, len(msgs), warnings)
	}
	if h.ProtocolVersion == "" {
		t.Errorf("tape %s: header has no protocol_version", path)
	}
	return h, msgs
}

// tapeCounts is what a replay of a tape must check and may skip: the
// server's answers and notifications (compared with
// --validate-notifications), and the server's own requests (roots/list,
// sampling, elicitation), which a replay never judges: the live server's
// request is answered from the tape instead (engine/answers.go), and its
// recorded copy is reported as skipped.
type tapeCounts struct {
	checked   int64
	serverReq map[int64]bool // seq of each recorded server request
}

// notifications counts the server's notifications on a tape.
func notifications(msgs []tape.Message) int {
	n := 0
	for _, m := range msgs {
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if m.Dir == tape.S2C && json.Unmarshal(m.Msg, &probe) == nil && probe.Method != "" && probe.ID == nil {
			n++
		}
	}
	return n
}

func replayCounts(t *testing.T, msgs []tape.Message) tapeCounts {
	t.Helper()
	c := tapeCounts{serverReq: map[int64]bool{}}
	for _, m := range msgs {
		if m.Dir != tape.S2C {
			continue
		}
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(m.Msg, &probe); err != nil {
			t.Fatalf("seq %d: %v", m.Seq, err)
		}
		switch {
		case probe.Method != "" && probe.ID != nil:
			c.serverReq[m.Seq] = true
		default:
			c.checked++
		}
	}
	return c
}

// replayClean replays the tape at path with `replayctl run` and the target
// args (-- argv, or --target URL) and fails the test unless it passed:
// exit 0, zero failures, no error, every answer and notification on the
// tape checked, and nothing skipped but the server's own requests (see
// tapeCounts). notes false replays without --validate-notifications, for
// a tape that holds no notification (its caller says why the live server
// may send some).
func replayClean(t *testing.T, path string, msgs []tape.Message, notes bool, target ...string) {
	t.Helper()
	args := []string{"run", path, "--speed", "fast", "-o", "json", "--timeout", "20s"}
	if notes {
		args = append(args, "--validate-notifications")
	} else if n := notifications(msgs); n != 0 {
		t.Fatalf("tape %s holds %d server notifications: replay it with --validate-notifications", path, n)
	}
	args = append(args, target...)
	res := replayctl(t, args...)
	rep := decodeReport(t, res.stdout)
	want := replayCounts(t, msgs)
	var skipped []int64
	for _, e := range rep.Timeline {
		if e.Verdict == "skipped" && !want.serverReq[e.Seq] {
			skipped = append(skipped, e.Seq)
		}
	}
	if res.code != 0 || rep.Validation.Failed != 0 || rep.Validation.Checked != want.checked ||
		rep.Summary.Skipped != int64(len(want.serverReq)) || len(skipped) != 0 {
		t.Fatalf("replay of %s: exit %d, %d checked (want %d: every answer and notification), %d failed, %d skipped (want %d, the server's requests; others: seq %v)\nfailures: %+v\nstderr:\n%s",
			path, res.code, rep.Validation.Checked, want.checked, rep.Validation.Failed, rep.Summary.Skipped, len(want.serverReq), skipped, rep.Validation.Failures, res.stderr)
	}
}

// TestRecordE2EStdio: both clients × both servers over stdio. Each client
// records each server twice: the first tape must replay clean, and diff
// must find nothing between the two tapes of a server, and the real
// differences between the tapes of the two servers.
func TestRecordE2EStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("records real clients and servers")
	}
	for _, c := range e2eClients {
		t.Run(string(c), func(t *testing.T) {
			tapes, dir := map[string]string{}, t.TempDir()
			for _, s := range e2eServers {
				t.Run(s.name, func(t *testing.T) {
					argv := s.stdio(t)
					// server-everything asks for roots 350ms after initialized
					// (a timer): on a tape only when the session lasts that long
					// (under load), so two recordings of it would differ by that
					// exchange; its clients offer no roots (as over HTTP).
					o := testclient.Options{NoRoots: s.name == "everything"}
					direct := testclient.RunClient(t, c, testclient.Stdio(argv...), testclient.Options{Timeout: e2eTimeout, NoRoots: o.NoRoots})
					mustSucceed(t, "straight", direct)
					path := filepath.Join(dir, s.name+".jsonl")
					proxied := recordStdioClient(t, path, c, argv, o)
					mustSucceed(t, "through record", proxied)
					sameTranscript(t, direct, proxied)
					h, msgs := loadWholeTape(t, path)
					if h.Transport != "stdio" {
						t.Errorf("header transport %q, want stdio", h.Transport)
					}
					replayClean(t, path, msgs, true, append([]string{"--"}, argv...)...)

					again := filepath.Join(dir, s.name+"-again.jsonl")
					proxied = recordStdioClient(t, again, c, argv, o)
					mustSucceed(t, "through record, again", proxied)
					loadWholeTape(t, again)
					if d := diffTapes(t, path, again); d.Summary.Changes != 0 || len(d.Unpaired) != 0 {
						t.Errorf("diff of two recordings of %s: %d changes %+v, unpaired %+v; want none", s.name, d.Summary.Changes, d.Changes, d.Unpaired)
					}
					tapes[s.name] = path
				})
			}
			if len(tapes) == 2 && !t.Failed() {
				wantServersDiffer(t, tapes["gosdk"], tapes["everything"])
			}
		})
	}
}

// diffTapes runs `replayctl diff -o json a b`, which must exit 0.
func diffTapes(t *testing.T, a, b string) diffJSON {
	t.Helper()
	res := replayctl(t, "diff", "-o", "json", a, b)
	if res.code != 0 {
		t.Fatalf("diff %s %s: exit %d\nstderr:\n%s", a, b, res.code, res.stderr)
	}
	return decodeDiff(t, res.stdout)
}

// wantServersDiffer diffs a tape of the go-sdk conformance server with one
// of server-everything, recorded by the same client: the real differences
// must be listed (the other server's name, tools and prompts of each that
// the other lacks), and --fail-on-breaking must exit 1 for the removed ones.
func wantServersDiffer(t *testing.T, gosdk, everything string) {
	t.Helper()
	d := diffTapes(t, gosdk, everything)
	has := func(kind, name string) bool {
		for _, c := range d.Changes {
			if c.Kind == kind && c.Name == name {
				return true
			}
		}
		return false
	}
	for _, w := range []struct{ kind, name string }{
		{"server_info_changed", ""},
		{"tool_removed", "test_simple_text"},
		{"tool_added", "echo"},
		{"tool_added", "get-sum"},
		{"prompt_removed", "test_simple_prompt"},
		{"prompt_added", "simple-prompt"},
		{"resource_removed", "test://static-text"},
	} {
		if !has(w.kind, w.name) {
			t.Errorf("diff of the go-sdk and server-everything tapes: no %s %q among %d changes (by kind %v)", w.kind, w.name, d.Summary.Changes, d.Summary.ByKind)
		}
	}
	if d.Summary.Breaking == 0 || len(d.Unpaired) == 0 {
		t.Errorf("diff: %d breaking, %d unpaired; want the removed tools as breaking and the calls of other tools unpaired", d.Summary.Breaking, len(d.Unpaired))
	}
	if res := replayctl(t, "diff", "--fail-on-breaking", gosdk, everything); res.code != 1 {
		t.Errorf("diff --fail-on-breaking: exit %d, want 1\n%s", res.code, res.stderr)
	}
}
