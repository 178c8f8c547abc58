package engine

// Faithful verdicts against real servers: the order of the client's
// answers to server requests, and the handshake after a reconnect.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// received is one line of the slow test server's arrival log.
type received struct {
	at     time.Time
	method string // "response" for a client's answer
	id     string // "-" when none
}

func readReceived(t *testing.T, path string) []received {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []received
	for l := range strings.Lines(string(b)) {
		f := strings.Fields(l)
		if len(f) != 3 {
			t.Fatalf("received line %q: want 3 fields", l)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, received{at: time.Unix(0, ns), method: f[1], id: f[2]})
	}
	return out
}

// receivedList names what the server received, in order: the methods,
// and a response with its id (the server's own; the replay gives the
// client's requests fresh ids).
func receivedList(as []received) string {
	var s []string
	for _, a := range as {
		if a.method == "response" {
			s = append(s, a.method+" "+a.id)
		} else {
			s = append(s, a.method)
		}
	}
	return strings.Join(s, ", ")
}

// rootsTape is a session recorded against a server that asks roots/list
// 350 ms after notifications/initialized: the client answered it, then
// called a tool.
func rootsTape(t *testing.T) string {
	return writeFile(t, "roots.jsonl", header+
		line(0, 0, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`)+
		line(1, 900, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`)+
		line(2, 1_000, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)+
		line(3, 351_000, "s2c", `{"jsonrpc":"2.0","id":"ask-1","method":"roots/list"}`)+
		line(4, 351_400, "c2s", `{"jsonrpc":"2.0","id":"ask-1","result":{"roots":[{"uri":"file:///work","name":"work"}]}}`)+
		line(5, 352_000, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after roots"}}}`)+
		line(6, 352_500, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"after roots"}]}}`))
}

// TestClientAnswerGoesBeforeLaterMessages: the client's recorded answer to
// the server's roots/list goes out when the live server asks, and the
// messages recorded after it wait for it: the server receives the answer
// before the next request, at every speed and order that keeps causality
// (it used to get the tools/call first, 350 ms before the answer).
func TestClientAnswerGoesBeforeLaterMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	tp := rootsTape(t)
	for _, tc := range []struct {
		name  string
		speed scheduler.Speed
		order Order
	}{
		{"fast causal", scheduler.Speed{Mode: scheduler.Fast}, OrderCausal},
		{"fast sequential", scheduler.Speed{Mode: scheduler.Fast}, OrderSequential},
		{"10x causal", scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, OrderCausal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "arrivals.log")
			d := transport.Stdio{Command: testserver.Slow(t, "-ask", "roots/list:350ms", "-arrivals", log)}
			rep, err := replay(t, Config{Tape: tp, Dialer: d, Speed: tc.speed, Order: tc.order})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Passed() || rep.Validation.Checked != 2 || rep.Summary.Server.RequestsAnswered != 1 {
				t.Errorf("passed %v, checked %d, server requests answered %d: want a pass, 2 checked, 1 answered (%+v)", rep.Passed(), rep.Validation.Checked, rep.Summary.Server.RequestsAnswered, rep.Errors)
			}
			got := readReceived(t, log)
			if want := `initialize, notifications/initialized, response "ask-1", tools/call`; receivedList(got) != want {
				t.Errorf("the server received: %s\nwant: %s", receivedList(got), want)
			}
		})
	}
}

// TestClientAnswerWaitIsBounded: a live server that never asks what the
// recorded one asked holds the session up until the ask wait (here the
// timeout) ends, not for ever: the wait ends by its expiry (its warning,
// once), the session goes on (the tools/call recorded after the answer
// is sent, checked and passed) and the recorded answer is reported as
// not asked for, never sent. A wait that does not end is this test's own
// -timeout.
func TestClientAnswerWaitIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	log := filepath.Join(t.TempDir(), "arrivals.log")
	d := transport.Stdio{Command: testserver.Slow(t, "-arrivals", log)} // never asks
	var warned lockedBuffer
	rep, err := replay(t, Config{Tape: rootsTape(t), Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Timeout: time.Second,
		Logger: zerolog.New(io.MultiWriter(&warned, zerolog.NewTestWriter(t))).Level(zerolog.WarnLevel)})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(warned.String(), "the live server did not ask roots/list within 1s"); n != 1 {
		t.Errorf("%d warnings that the ask wait (1s) expired, want 1", n)
	}
	if rep.Validation.Checked != 2 || rep.Validation.Failed != 0 {
		t.Errorf("checked %d failed %d: want 2 and 0", rep.Validation.Checked, rep.Validation.Failed)
	}
	verdicts := map[int64]report.Verdict{}
	for _, e := range rep.Timeline {
		verdicts[e.Seq] = e.Verdict
	}
	if got, want := fmt.Sprint(verdicts[4], ", ", verdicts[5]), fmt.Sprint(report.Skipped, ", ", report.Passed); got != want {
		t.Errorf("the timeline's verdicts of seq 4 (the answer) and 5 (the tools/call after it): %s, want %s", got, want)
	}
	if got, want := receivedList(readReceived(t, log)), "initialize, notifications/initialized, tools/call"; got != want {
		t.Errorf("the server received: %s\nwant: %s", got, want)
	}
}

// lockedBuffer is a bytes.Buffer that the engine's goroutines may log
// to at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestInitializeNeverCancelled: an initialize that gets no answer in time
// is reported as timed out, and no notifications/cancelled is sent for it
// (MCP forbids cancelling initialize).
func TestInitializeNeverCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	log := filepath.Join(t.TempDir(), "arrivals.log")
	d := transport.Stdio{Command: testserver.Slow(t, "-init-delay", "1s", "-arrivals", log)}
	// The handshake alone: any notifications/cancelled the server gets is
	// initialize's (a tools/call after it times out too when the loaded
	// server takes more than the 200ms to answer it, and is rightly
	// cancelled; the arrivals log does not say which request a
	// cancellation names).
	tp := writeTape(t, t.TempDir(), 0, 1000, nil)
	rep, err := replay(t, Config{Tape: tp, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Performance.Timeouts == 0 {
		t.Errorf("timeouts %d: want the initialize timed out", rep.Performance.Timeouts)
	}
	for _, a := range readReceived(t, log) {
		if a.method == "notifications/cancelled" {
			t.Errorf("the server got notifications/cancelled (%s): initialize must never be cancelled", receivedList(readReceived(t, log)))
		}
	}
}

// TestReconnectWaitsForInitialize: after a chaos disconnect the session
// connects again and replays its handshake; notifications/initialized and
// the requests after it wait for the new initialize's answer (they used
// to go out with it, 300-420 ms before server-everything answered).
func TestReconnectWaitsForInitialize(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	const initDelay = 300 * time.Millisecond
	log := filepath.Join(t.TempDir(), "arrivals.log")
	d := transport.Stdio{Command: testserver.Slow(t, "-init-delay", initDelay.String(), "-arrivals", log)}
	tp := testtape.Record(t, transport.Stdio{Command: testserver.Slow(t)}, "stdio", callScript(4))
	// The second tools/call (seq 5) cuts the connection.
	p, err := chaos.NewPlan(1, nil, []chaos.Target{{Method: "tools/call", Nth: 2, Fault: chaos.Disconnect}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay(t, Config{Tape: tp, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Chaos: p})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chaos.Injected != 1 {
		t.Fatalf("injected %d faults, want the disconnect (%+v)", rep.Chaos.Injected, rep.Chaos.Faults)
	}
	got := readReceived(t, log)
	var inits []int
	for i, a := range got {
		if a.method == "initialize" {
			inits = append(inits, i)
		}
	}
	if len(inits) != 2 {
		t.Fatalf("the server got %d initialize, want 2 (a reconnect): %s", len(inits), receivedList(got))
	}
	second := got[inits[1]]
	after := got[inits[1]+1:]
	if len(after) == 0 || after[0].method != "notifications/initialized" {
		t.Fatalf("after the second initialize: %s, want notifications/initialized first", receivedList(after))
	}
	for _, a := range after {
		if early := second.at.Add(initDelay).Sub(a.at); early > 0 {
			t.Errorf("%s %s arrived %s before the initialize answer: want it to wait for it", a.method, a.id, early)
		}
	}
	for _, sv := range rep.Chaos.Survival {
		if !sv.Survived {
			t.Errorf("session %s did not survive: %+v", sv.Session, sv)
		}
	}
}

// toggleScript calls server-everything's toggle-simulated-logging, a tool
// that is not idempotent (it answers "Started…" and "Stopped…" in turn),
// three times, then echo.
func toggleScript() [][]byte {
	call := func(id int, name, args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)
	}
	return [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		call(1, "toggle-simulated-logging", `{}`),
		call(2, "toggle-simulated-logging", `{}`),
		call(3, "toggle-simulated-logging", `{}`),
		call(4, "echo", `{"message":"still here"}`),
	}
}

// TestSurvivalBlamesOnlyTheServer: a fault that changes what the server
// got — the first toggle dropped, sent twice, or lost to a network error
// — makes the later toggles answer otherwise than recorded. Those answers
// are put down to the fault (warnings, noted in the survival verdict),
// the server survives, and the run passes; a network error with retries
// reaches the server exactly once, so every later answer is as recorded.
// They used to fail the run with "did NOT survive: broken by seq 3 drop".
func TestSurvivalBlamesOnlyTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	argv := testserver.Everything(t)
	d := transport.Stdio{Command: argv}
	tp := testtape.Record(t, d, "stdio", toggleScript())
	tests := []struct {
		fault      chaos.Kind
		retries    int // -1: none
		attributed int // later answers put down to the fault
		note       string
	}{
		{chaos.Drop, -1, 2, "seq 3 drop: 2 later answers differed, as they may when the server never got the message"},
		{chaos.Duplicate, -1, 2, "seq 3 duplicate: 2 later answers differed, as they may when the server got the message twice"},
		{chaos.NetworkError, -1, 2, "seq 3 network-error: 2 later answers differed, as they may when the server never got the message"},
		{chaos.NetworkError, 1, 0, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault)+"/retries="+strconv.Itoa(tt.retries), func(t *testing.T) {
			p, err := chaos.NewPlan(1, nil, []chaos.Target{{Method: "tools/call", Nth: 1, Fault: tt.fault}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := replay(t, Config{Tape: tp, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Chaos: p, MaxRetries: tt.retries})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Chaos.Injected != 1 || rep.Chaos.Faults[0].Seq != 3 {
				t.Fatalf("faults %+v: want one, at seq 3", rep.Chaos.Faults)
			}
			if !rep.Passed() || rep.Validation.Failed != 0 {
				t.Errorf("passed %v, %d failed (%+v), %d errors, %d timeouts, run errors %+v, aborted %q, unchecked %q, incomplete %q, survival %+v: want a pass",
					rep.Passed(), rep.Validation.Failed, rep.Validation.Failures, rep.Performance.Errors, rep.Performance.Timeouts, rep.Errors,
					rep.Summary.Aborted, rep.Unchecked(), rep.Incomplete(), rep.Chaos.Survival)
			}
			if len(rep.Chaos.Survival) != 1 && tt.fault != chaos.NetworkError {
				t.Fatalf("survival %+v: want one verdict", rep.Chaos.Survival)
			}
			for _, sv := range rep.Chaos.Survival {
				if !sv.Survived || sv.BrokenBy != nil {
					t.Errorf("survival %+v: want survived, broken by nothing", sv)
				}
				if tt.note != "" && !strings.Contains(strings.Join(sv.Notes, "\n"), tt.note) {
					t.Errorf("notes %q: want %q", sv.Notes, tt.note)
				}
			}
			// Warnings: the faulted call (network error, not retried) and
			// the later toggles put down to the fault; the echo passes.
			wantWarned := int64(tt.attributed)
			if tt.fault == chaos.NetworkError && tt.retries < 0 {
				wantWarned++
			}
			if rep.Validation.Warnings != wantWarned {
				t.Errorf("%d warnings, want %d", rep.Validation.Warnings, wantWarned)
			}
		})
	}
}
