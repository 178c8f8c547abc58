package record

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// TestTapRecordMessage: RecordMessage keeps a message's Extra members,
// numbers and times it; WithStart sets the instant t_us counts from.
func TestTapRecordMessage(t *testing.T) {
	var buf bytes.Buffer
	w, err := tape.NewWriter(&buf, tape.Header{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tap := NewTap(w, WithStart(start))
	m := tape.Message{Seq: 99, TUS: 99, Session: "s1", Dir: tape.S2C, Msg: []byte(`{"jsonrpc":"2.0","method":"n"}`),
		Extra: map[string]json.RawMessage{"last_event_id": json.RawMessage(`"e7"`)}}
	if err := tap.RecordMessage(start.Add(1500*time.Microsecond), m); err != nil {
		t.Fatal(err)
	}
	if err := tap.Close(); err != nil {
		t.Fatal(err)
	}
	msgs, err := readBack(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Seq != 0 || msgs[0].TUS != 1500 || string(msgs[0].Extra["last_event_id"]) != `"e7"` {
		t.Fatalf("got %+v, want seq 0 at 1500µs with last_event_id \"e7\"", msgs)
	}
}
