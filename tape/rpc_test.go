package tape

import (
	"reflect"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// TestReaderCarriesRPC: a native tape's reader hands each JSON-RPC message
// over with the parse it found while it read the line (Message.RPC gives
// it without parsing again), Parse's answer to the same bytes; a message
// that is JSON but not JSON-RPC, or whose Msg was replaced, is parsed
// when asked.
func TestReaderCarriesRPC(t *testing.T) {
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress"}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":4,"method":"old"}`, // JSON, not JSON-RPC 2.0
	}
	doc := hdr
	for i, m := range msgs {
		doc += msgLine(int64(i), int64(i), "c2s", m)
	}
	r, err := Open(writeTemp(t, "t.jsonl", doc))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r)
	if len(got) != len(msgs) {
		t.Fatalf("got %d messages, want %d", len(got), len(msgs))
	}
	for i, m := range got {
		want, werr := jsonrpc.Parse(m.Msg)
		_, carried := m.rpc.Of(m.Msg)
		if carried != (werr == nil) {
			t.Errorf("message %d: carried %v, want %v (Parse: %v)", i, carried, werr == nil, werr)
		}
		rpc, err := m.RPC()
		if !reflect.DeepEqual(rpc, want) || (err == nil) != (werr == nil) {
			t.Errorf("message %d: RPC() = %+v, %v; want %+v, %v", i, rpc, err, want, werr)
		}
	}
	// Msg replaced: the carried parse is not the new bytes'.
	m := got[0]
	m.Msg = []byte(`{"jsonrpc":"2.0","id":9,"method":"other"}`)
	if rpc, err := m.RPC(); err != nil || rpc.Method != "other" || string(rpc.ID) != "9" {
		t.Errorf("after Msg was replaced: RPC() = %+v, %v; want method other, id 9", rpc, err)
	}
	// An equal copy is not the same bytes either: parsed again, same answer.
	m = got[0]
	m.Msg = append([]byte(nil), m.Msg...)
	if _, ok := m.rpc.Of(m.Msg); ok {
		t.Error("the carried parse was taken for a copy of the bytes")
	}
	if rpc, err := m.RPC(); err != nil || rpc.Method != "tools/call" {
		t.Errorf("a copy: RPC() = %+v, %v", rpc, err)
	}
}

// TestReaderRefusesBadMsgJSON: the one pass that parses a message still
// refuses a msg that is not valid JSON, as the check before it did.
func TestReaderRefusesBadMsgJSON(t *testing.T) {
	for _, msg := range []string{`{"jsonrpc":"2.0","id":1,"method":"m","params":[1,]}`, `{"a":01}`, `[1,,2]`} {
		r, err := Open(writeTemp(t, "t.jsonl", hdr+msgLine(0, 0, "c2s", msg)))
		if err == nil {
			_, err = r.Next()
			r.Close()
		}
		if e := asError(t, err); e.Line != 2 || e.Msg != `field "msg" is not valid JSON: fix or remove the line` {
			t.Errorf("%s: got %v, want line 2: msg is not valid JSON", msg, err)
		}
	}
}

// TestSeekCarriesRPC: the message a seek stops at (read in the read
// buffer, then copied) carries the parse of its copy.
func TestSeekCarriesRPC(t *testing.T) {
	r, err := Open(writeTemp(t, "t.jsonl", tapeOf(50, 10, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.SeekSeq(20); err != nil {
		t.Fatal(err)
	}
	m, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	want, werr := jsonrpc.Parse(m.Msg)
	got, ok := m.rpc.Of(m.Msg)
	if m.Seq != 20 || werr != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("seq %d: carried %v %+v, want %+v (%v)", m.Seq, ok, got, want, werr)
	}
}
