package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestJSONRoundTrip(t *testing.T) {
	for _, e := range []Event{
		{Type: Dialled, TUS: 5, Session: "s1#1", Seq: -1, Detail: "1.2ms"},
		{Type: Sent, TUS: 10, Session: "s1", Seq: 3, Method: "tools/call", Held: 0},
		{Type: Judged, TUS: 99, Session: "s\"1\n<x>", Seq: 3, Method: "tools/call", Kind: "request", Dir: "c2s",
			Verdict: "failed", HasLag: true, HasHeld: true, Lag: 7 * time.Microsecond, Held: 2 * time.Microsecond, HasLatency: true, Latency: 0,
			Differences: []Difference{{Path: "$.result.x", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`not json`), Kind: "changed"}}},
		{Type: Retry, TUS: 1, Session: "é", Seq: 4, Attempt: 2, Reason: "http_status", Detail: "HTTP 503"},
	} {
		line := e.AppendJSON(nil)
		if !json.Valid(line) || bytes.ContainsRune(line, '\n') {
			t.Fatalf("%s: not one line of JSON", line)
		}
		var back Event
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		want := e
		if e.Differences != nil {
			want.Differences = append([]Difference(nil), e.Differences...)
			want.Differences[0].Actual = json.RawMessage(`"not json"`)
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", line, back, want)
		}
	}
}

func TestJSONLinesOneWritePerBatch(t *testing.T) {
	var w countingWriter
	h := JSONLines(&w)
	if err := h([]Event{{Type: Sent, Seq: 1}, {Type: Answered, Seq: 1}}); err != nil {
		t.Fatal(err)
	}
	if w.writes != 1 || strings.Count(w.buf.String(), "\n") != 2 {
		t.Errorf("got %d writes of %q, want 1 write of 2 lines", w.writes, w.buf.String())
	}
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return w.buf.Write(p) }

func TestMicrosRoundsAsDurationRound(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 499, 500, 501, 1499, 1500, -1, -499, -500, -501, -1500, 123456789, -987654321} {
		if got, want := micros(d), int64(d.Round(time.Microsecond)/time.Microsecond); got != want {
			t.Errorf("micros(%d) = %d, want %d", d, got, want)
		}
	}
}
