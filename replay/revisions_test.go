package replay_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// TestRevisions records sessions of the go-sdk v1.8.0 client against its
// conformance server — in 2026-07-28 (stateless: server/discover, _meta on
// every request, MRTR rounds) and in 2025-11-25 (initialize, the server's
// elicitation and sampling requests), over stdio and Streamable HTTP —
// and replays each against the same server at fast and 10x, with 1 and 50
// sessions, and against the built-in mock: zero failures.
func TestRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("records and replays against real servers")
	}
	argv := testserver.GoSDK(t)
	stateless, stateful := testserver.GoSDKHTTPStateless(t), testserver.GoSDKHTTP(t)
	cases := []struct {
		name    string
		version string
		rec     testtape.Target
		target  replay.Target
	}{
		{"2026-07-28/stdio", "", testtape.Stdio(argv), replay.Command(argv[0], argv[1:]...)},
		{"2026-07-28/http", "", testtape.HTTP(stateless), replay.HTTP(stateless)},
		// The server's requests (classic elicitation, sampling) need a
		// session: over HTTP only a stateful server can send them.
		{"2025-11-25/stdio", mcp.V20251125, testtape.Stdio(argv), replay.Command(argv[0], argv[1:]...)},
		{"2025-11-25/http", mcp.V20251125, testtape.HTTP(stateful), replay.HTTP(stateful)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := testtape.RecordClient(t, c.rec, c.version, testtape.ScriptAll)
			r, err := tape.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			want := mcp.V20260728
			if c.version != "" {
				want = c.version
			}
			if got := r.Header().ProtocolVersion; got != want {
				t.Fatalf("recorded protocol %s, want %s", got, want)
			}
			r.Close()
			var checked int64
			for _, speed := range []string{"fast", "10x"} {
				for _, sessions := range []int{1, 50} {
					t.Run(fmt.Sprintf("%s/%d", speed, sessions), func(t *testing.T) {
						rep, err := replay.Run(t.Context(), path, replay.SpeedText(speed), replay.Sessions(sessions), replay.Against(c.target))
						if rep == nil {
							t.Fatal(err)
						}
						if err != nil || !rep.Passed() || rep.Validation.Failed != 0 || len(rep.Summary.Warnings) != 0 {
							t.Fatalf("err %v; passed %v, %d failed, %d errors, warnings %q; failures %+v, errors %+v",
								err, rep.Passed(), rep.Validation.Failed, rep.Performance.Errors, rep.Summary.Warnings, rep.Validation.Failures, rep.Errors)
						}
						if sessions == 1 {
							checked = rep.Validation.Checked
						}
						if checked < 14 || rep.Validation.Checked != checked*int64(sessions) {
							t.Errorf("%d checked with %d sessions, %d with one", rep.Validation.Checked, sessions, checked)
						}
					})
				}
			}
			if c.name == "2026-07-28/http" {
				// A stateless tape against a server that speaks only the
				// session-based revisions: a warning names both.
				t.Run("session-based server", func(t *testing.T) {
					rep, _ := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Against(replay.HTTP(stateful)))
					want := "the tape speaks MCP 2026-07-28 (stateless); the server supports only 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"
					if rep == nil || rep.Passed() || len(rep.Summary.Warnings) == 0 || !strings.HasPrefix(rep.Summary.Warnings[0], want) {
						t.Fatalf("report %+v; want a failure and the warning %q", rep.Summary, want)
					}
				})
			}
			t.Run("mock", func(t *testing.T) {
				rep, err := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Sessions(3))
				if rep == nil || err != nil || !rep.Passed() || rep.Validation.Checked != 3*checked {
					t.Fatalf("err %v; report %+v", err, rep.Validation)
				}
			})
		})
	}
}

// A subscriptions/listen (2026-07-28) the recording left open is a stream:
// it is sent, read, and closed with the end of the tape — not a timeout.
func TestSubscriptionsListen(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	src := tape.Bytes("listen.jsonl", []byte(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2026-07-28","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{`+meta+`,"notifications":{"toolsListChanged":true}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`,"name":"test_simple_text","arguments":{}}}}
{"type":"message","seq":3,"t_us":3000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-conformance-test-server","version":"1.0.0"}}}}}
{"type":"end","messages":4,"duration_us":3000}
`))
	argv := testserver.GoSDK(t)
	for _, target := range []replay.Target{replay.HTTP(testserver.GoSDKHTTPStateless(t)), replay.Command(argv[0], argv[1:]...)} {
		rep, err := replay.RunSource(t.Context(), src, replay.WithSpeed(replay.Fast()), replay.Timeout(20*time.Second), replay.Against(target))
		if rep == nil || err != nil || !rep.Passed() || rep.Validation.Checked != 1 || rep.Performance.Timeouts != 0 {
			t.Fatalf("%s: err %v; %+v %+v", target, err, rep.Validation, rep.Errors)
		}
		if rep.Summary.DurationMS > 10_000 {
			t.Errorf("%s: took %.0f ms: the open stream was waited for", target, rep.Summary.DurationMS)
		}
	}
}
