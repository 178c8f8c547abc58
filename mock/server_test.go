package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// TestServerAnswersAsRecorded records ScriptAll with the Go SDK client
// against the conformance server in both revisions and plays the
// recorded client messages to a Server through the transport.Session
// contract: every answer is the recorded one with the live id, the
// progress notifications and the server's requests (2025-11-25:
// elicitation, sampling) come in recorded order, the MRTR rounds
// (2026-07-28) find their next round, and nothing misses. Stateless
// traffic is played twice, one session per request as an HTTP listener
// opens them, and once more over one session as stdio does: each run
// gets the recorded answers again.
func TestServerAnswersAsRecorded(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev.name, func(t *testing.T) {
			b := recordedTape(t, rev.version)
			msgs := tapeMessages(t, b)
			synctest.Test(t, func(t *testing.T) {
				srv, err := NewServer(tape.Bytes(rev.name, b))
				if err != nil {
					t.Fatal(err)
				}
				runs := 1
				if rev.stateless {
					runs = 2
				}
				asks := 0
				for run := range runs {
					xs := drive(t, srv, msgs, clientOpts{stateless: rev.stateless, idPrefix: fmt.Sprintf("live-%d-", run), bubble: true})
					if len(xs) < 14 {
						t.Fatalf("run %d: %d requests answered, want the script's (at least 14)", run, len(xs))
					}
					wantRecorded(t, msgs, xs)
					for _, x := range xs {
						asks += len(x.asks)
					}
				}
				if want := map[bool]int{true: 0, false: 3}[rev.stateless]; asks != want { // elicitation, sampling, elicitation (then an MRTR round)
					t.Errorf("%d requests of the server, want %d", asks, want)
				}
				if rev.stateless { // stdio: one session for all the stateless requests
					wantRecorded(t, msgs, drive(t, srv, msgs, clientOpts{idPrefix: "stdio-", info: transport.SessionInfo{ID: "stdio", Stateless: true}}))
				}
				if m := srv.Misses(); len(m) != 0 {
					t.Errorf("misses: %v", m)
				}
			})
		})
	}
}

// TestServerMissNamesClosest changes one argument of a recorded tool call:
// the client gets a CodeMiss error naming the recorded call and the
// argument that differs, secrets masked, and the Server keeps the miss.
// The calls after it are still answered as recorded.
func TestServerMissNamesClosest(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev.name, func(t *testing.T) {
			b := recordedTape(t, rev.version)
			msgs := tapeMessages(t, b)
			var changed int64 = -1
			change := func(seq int64, msg []byte) []byte {
				if bytes.Contains(msg, []byte(`"Zürich"`)) {
					changed = seq
					msg = bytes.Replace(msg, []byte(`"region":"Zürich"`), []byte(`"region":"Bern","apiKey":"s3cr3t-value"`), 1)
				}
				return msg
			}
			srv, err := NewServer(tape.Bytes(rev.name, b))
			if err != nil {
				t.Fatal(err)
			}
			xs := drive(t, srv, msgs, clientOpts{stateless: rev.stateless, idPrefix: "x", change: change})
			if changed < 0 {
				t.Fatal("the tape has no call with region Zürich")
			}
			var rest []exchange
			for _, x := range xs {
				if x.seq != changed {
					rest = append(rest, x)
					continue
				}
				if len(x.got) != 1 {
					t.Fatalf("the changed call got %d messages, want 1: %q", len(x.got), x.got)
				}
				r := mustParse(t, x.got[0])
				if r.Kind != jsonrpc.KindError || string(r.ID) != string(x.live) {
					t.Fatalf("the changed call got %s, want an error with id %s", x.got[0], x.live)
				}
				var e struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Data    Miss   `json:"data"`
				}
				if err := json.Unmarshal(r.Error(), &e); err != nil {
					t.Fatal(err)
				}
				if e.Code != CodeMiss || !strings.Contains(e.Message, fmt.Sprintf("seq %d", changed)) || !strings.Contains(e.Message, "params.arguments.region") ||
					!strings.Contains(e.Message, `"Zürich"`) || !strings.Contains(e.Message, `"Bern"`) {
					t.Errorf("error %d %q: want code %d naming seq %d and params.arguments.region, Zürich and Bern", e.Code, e.Message, CodeMiss, changed)
				}
				if c := e.Data.Closest; c == nil || c.Seq != changed || len(c.Differences) != 2 {
					t.Errorf("data.closest %+v: want seq %d with 2 differences", c, changed)
				}
				if strings.Contains(string(x.got[0]), "s3cr3t") {
					t.Errorf("the secret is in the miss: %s", x.got[0])
				}
			}
			wantRecorded(t, msgs, rest)
			misses := srv.Misses()
			if len(misses) != 1 || misses[0].Closest == nil || misses[0].Closest.Seq != changed || misses[0].Method != "tools/call" {
				t.Fatalf("Misses() = %+v, want the changed call", misses)
			}
			if s := misses[0].String(); strings.Contains(s, "s3cr3t") || !strings.Contains(s, tape.Masked) {
				t.Errorf("miss %q: the secret not masked", s)
			}
		})
	}
}

// TestServerConcurrentClients runs 100 clients at once against one Server
// of a one-session tape (race detector on in CI): each session-based
// client is bound to the recorded session with a cursor of its own and
// gets every recorded answer, the server's requests to it included;
// stateless clients share the recorded session's cursor and each gets
// recorded answers.
func TestServerConcurrentClients(t *testing.T) {
	const clients = 100
	for _, rev := range revisions {
		t.Run(rev.name, func(t *testing.T) {
			b := recordedTape(t, rev.version)
			msgs := tapeMessages(t, b)
			srv, err := NewServer(tape.Bytes(rev.name, b))
			if err != nil {
				t.Fatal(err)
			}
			results := make([][]exchange, clients)
			var wg sync.WaitGroup
			for c := range clients {
				wg.Go(func() {
					results[c] = drive(t, srv, msgs, clientOpts{stateless: rev.stateless, idPrefix: fmt.Sprintf("c%d-", c),
						info: transport.SessionInfo{ID: fmt.Sprintf("client-%d", c)}})
				})
			}
			wg.Wait()
			asked := map[string]bool{}
			for _, xs := range results {
				for _, x := range xs {
					for _, id := range x.asks {
						if asked[id] {
							t.Errorf("the server's requests to two clients share id %s", id)
						}
						asked[id] = true
					}
				}
			}
			if !rev.stateless && len(asked) != 3*clients {
				t.Errorf("%d requests of the server, want %d", len(asked), 3*clients)
			}
			for c, xs := range results {
				if rev.stateless {
					for _, x := range xs { // which recorded answer is the shared cursor's: each is a valid one
						if x.err != nil || len(x.got) == 0 || !jsonrpc.IsResponseKind(mustParse(t, x.got[len(x.got)-1]).Kind) {
							t.Errorf("client %d seq %d: %q, %v", c, x.seq, x.got, x.err)
						}
					}
					continue
				}
				wantRecorded(t, msgs, xs)
			}
			if m := srv.Misses(); len(m) != 0 {
				t.Errorf("%d misses, first: %v", len(m), m[0])
			}
		})
	}
}
