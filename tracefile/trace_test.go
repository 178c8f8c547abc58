package tracefile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/internal/testtrace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// events: session s1 with two requests in flight at once (the first
// held, then late), a timeout, a notification, a fault and a server
// notification; s2 with a request never judged (the run was cut short).
func events() []event.Event {
	return []event.Event{
		{Type: event.Dialled, TUS: 5, Session: "s1", Seq: -1, Detail: "in 5µs"},
		{Type: event.Due, TUS: 10, Session: "s1", Seq: 1, Method: "tools/call"},
		{Type: event.Held, TUS: 11, Session: "s1", Seq: 1, Method: "tools/call", Reason: "order"},
		{Type: event.Sent, TUS: 40, Session: "s1", Seq: 1, Method: "tools/call", Kind: "request", Held: 20 * time.Microsecond},
		{Type: event.Due, TUS: 41, Session: "s1", Seq: 2, Method: "ping"},
		{Type: event.Sent, TUS: 41, Session: "s1", Seq: 2, Method: "ping", Kind: "request"},
		{Type: event.Fault, TUS: 42, Session: "s1", Seq: 3, Method: "resources/read", Reason: "timeout"},
		{Type: event.Sent, TUS: 42, Session: "s1", Seq: 3, Method: "resources/read", Kind: "request"},
		{Type: event.Answered, TUS: 50, Session: "s1", Seq: 2, Method: "ping"},
		{Type: event.Judged, TUS: 51, Session: "s1", Seq: 2, Method: "ping", Kind: "request", Dir: "c2s", Verdict: "passed",
			HasLag: true, HasLatency: true, Latency: 9 * time.Microsecond},
		{Type: event.Answered, TUS: 60, Session: "s1", Seq: 1, Method: "tools/call"},
		{Type: event.Judged, TUS: 61, Session: "s1", Seq: 1, Method: "tools/call", Name: "echo", Kind: "request", Dir: "c2s", Verdict: "failed",
			Differences: []event.Difference{{Path: "result.content[0].text", Kind: "changed"}},
			HasLag:      true, Lag: 10 * time.Microsecond, HasHeld: true, Held: 20 * time.Microsecond, HasLatency: true, Latency: 20 * time.Microsecond},
		{Type: event.Judged, TUS: 55, Session: "s1", Seq: 7, Method: "notifications/message", Kind: "notification", Dir: "s2c", Verdict: "passed"},
		{Type: event.Sent, TUS: 70, Session: "s1", Seq: 4, Method: "notifications/cancelled", Kind: "notification"},
		{Type: event.Judged, TUS: 71, Session: "s1", Seq: 4, Method: "notifications/cancelled", Kind: "notification", Dir: "c2s", Verdict: "sent"},
		{Type: event.Judged, TUS: 1000, Session: "s1", Seq: 3, Method: "resources/read", Kind: "request", Dir: "c2s", Verdict: "timeout"},
		{Type: event.Judged, TUS: 1000, Session: "s1", Seq: 9, Kind: "response", Dir: "c2s", Verdict: "skipped"},
		{Type: event.SessionEnded, TUS: 1001, Session: "s1", Seq: -1},
		{Type: event.Dialled, TUS: 6, Session: "s2", Seq: -1},
		{Type: event.Sent, TUS: 30, Session: "s2", Seq: 1, Method: "tools/list", Kind: "request"},
		{Type: event.SessionEnded, TUS: 1100, Session: "s2", Seq: -1, Detail: "interrupted"},
		{Type: event.RunEnded, TUS: 1200, Seq: -1, Detail: "interrupted"},
	}
}

func write(t *testing.T, evs []event.Event) []byte {
	t.Helper()
	tr := New()
	for i := range evs {
		tr.Observe(&evs[i])
	}
	var b bytes.Buffer
	n, err := tr.WriteTo(&b)
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("WriteTo: %d, %v; wrote %d", n, err, b.Len())
	}
	return b.Bytes()
}

func TestTraceObeysTheFormat(t *testing.T) {
	b := write(t, events())
	s, err := testtrace.Check(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got := s.Processes; len(got) != 3 || got[1] != "replay" || got[2] != "session s1" || got[3] != "session s2" {
		t.Errorf("processes %v, want replay, session s1, session s2", got)
	}
	// The requests: ping and tools/call answered (two flows), the
	// timeout, and s2's never judged.
	if s.Slices["request"] != 4 || s.Flows != 2 {
		t.Errorf("%d request slices, %d flows; want 4 and 2", s.Slices["request"], s.Flows)
	}
	for name, n := range map[string]int{"fault": 1, "dialled": 2, "session ended": 2, "run ended": 1,
		"sent notifications/cancelled": 1, "notifications/message (passed)": 1, "response (skipped)": 1} {
		if s.Instants[name] != n {
			t.Errorf("%d instants %q, want %d (all: %v)", s.Instants[name], name, n, s.Instants)
		}
	}
	text := string(b)
	for _, want := range []string{
		// tools/call: due at 10, held 20µs (waiting for an earlier
		// answer: the first Held event's reason), late until sent at 40, its
		// answer at 60 with its verdict and difference.
		`{"ph":"b","ts":10,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"tools/call echo","args":{"seq":1,"method":"tools/call","name":"echo"`,
		`{"ph":"b","ts":10,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"held: order"}`,
		`{"ph":"e","ts":30,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"held: order"}`,
		`{"ph":"b","ts":30,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"lag"}`,
		`{"ph":"e","ts":40,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"lag"}`,
		`{"ph":"b","ts":40,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"awaiting answer","bind_id":"0x1","flow_out":true}`,
		`{"ph":"X","ts":60,"pid":2,"tid":2,"dur":0,"cat":"answer","name":"answer tools/call echo (failed)","bind_id":"0x1","flow_in":true`,
		`"differences":1,"first_difference":"result.content[0].text"`,
		`{"ph":"C","ts":40,"pid":2,"tid":2,"name":"lag","args":{"us":10}}`,
		// The timeout ends at its verdict, with no flow.
		`{"ph":"e","ts":1000,"pid":2,"tid":2,"id":"0x3","cat":"request","name":"resources/read"}`,
		`"verdict":"none: the replay ended first"`,
		// s2's request is ended at the run's last time.
		`{"ph":"e","ts":1200,"pid":3,"tid":3,"id":"0x4","cat":"request","name":"tools/list (no verdict)"}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the trace lacks %s", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// TestTraceStrings: names and details that JSON must escape (quotes,
// control characters, invalid UTF-8) still make a valid trace.
func TestTraceStrings(t *testing.T) {
	b := write(t, []event.Event{
		{Type: event.Dialled, TUS: 1, Session: "s\"1\n", Seq: -1, Detail: "a\\b\x01\xff"},
		{Type: event.Fault, TUS: 2, Session: "s\"1\n", Seq: 1, Method: "to\"ols\t", Reason: "drop", Detail: "ünï\u2028"},
	})
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if _, err := testtrace.Check(b); err != nil {
		t.Fatal(err)
	}
	if got := doc.TraceEvents[2]["args"].(map[string]any)["name"]; got != "session s\"1\n" {
		t.Errorf("process name %q", got)
	}
	if !strings.Contains(string(b), `"detail":"a\\b\u0001\ufffd"`) {
		t.Errorf("detail not escaped as JSON:\n%s", b)
	}
}

func TestNaturalCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"s1#2", "s1#10", -1},
		{"s1#10", "s1#2", 1},
		{"s2", "s10#1", -1},
		{"s1", "s1#1", -1},
		{"s01", "s1", 0},
		{"a", "b", -1},
		{"", "", 0},
	} {
		if got := naturalCompare(tc.a, tc.b); got != tc.want {
			t.Errorf("naturalCompare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
