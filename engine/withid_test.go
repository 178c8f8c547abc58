package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// TestOutBlockWithID: withID gives what jsonrpc's WithID gives, for
// recorded and rewritten messages, small (from the block) and large (on
// their own); the id it returns is the id's bytes; appending to either
// clobbers no message given before; a rewritten message without an id
// is sent as it is, with the id on its own.
func TestOutBlockWithID(t *testing.T) {
	var b outBlock
	var given [][]byte
	for _, tc := range []struct {
		name string
		raw  string
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`},
		{"spaced string id", `{"jsonrpc":"2.0", "id" : "abc" ,"method":"ping"}`},
		{"over the block's limit", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 1100) + `"}}`},
		{"near the block's limit", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 960) + `"}}`},
	} {
		for _, rewritten := range []bool{false, true} {
			it := newItem(0, tape.Message{Msg: []byte(tc.raw), Dir: tape.C2S})
			it.Rewritten = rewritten
			id := []byte("12345")
			out, sent := b.withID(it, id)
			if want := it.RPC.WithID(id); !bytes.Equal(out, want) || string(sent) != "12345" {
				t.Fatalf("%s (rewritten %v): got %s, id %s; want %s, id 12345", tc.name, rewritten, out, sent, want)
			}
			_ = append(out, "XXXXXXXX"...) // must not write over the next message
			_ = append(sent, "YY"...)
			given = append(given, out)
			if _, err := jsonrpc.ParseStrict(out); err != nil {
				t.Fatalf("%s (rewritten %v): %s: %v", tc.name, rewritten, out, err)
			}
		}
	}
	for _, p := range given {
		if _, err := jsonrpc.ParseStrict(p); err != nil {
			t.Errorf("a message given earlier was written over: %s: %v", p, err)
		}
	}
	it := newItem(0, tape.Message{Msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), Dir: tape.C2S})
	it.Out, it.Rewritten = []byte(`{"jsonrpc":"2.0","method":"ping"}`), true
	if out, sent := b.withID(it, []byte("9")); string(out) != `{"jsonrpc":"2.0","method":"ping"}` || string(sent) != "9" {
		t.Errorf("rewritten without an id: got %s, id %s; want it as it is, id 9", out, sent)
	}
}
