package tape

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/replayctl/replayctl/jsonrpc"
)

// TestDetached: a detached message's Msg is a copy of its own, its view
// (RPC) is the one the reader found, moved onto the copy (Of takes it,
// with no parse), and it is otherwise the message read.
func TestDetached(t *testing.T) {
	r, err := Open(writeTemp(t, "t.jsonl", tapeOf(4, 1, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, m := range readAll(t, r) {
		d := m.Detached()
		if unsafe.SliceData(d.Msg) == unsafe.SliceData(m.Msg) || string(d.Msg) != string(m.Msg) {
			t.Fatalf("message %d: Detached().Msg %q shares the reader's bytes or differs from %q", i, d.Msg, m.Msg)
		}
		if m.rpc == (jsonrpc.Kept{}) || d.rpc == (jsonrpc.Kept{}) {
			t.Fatalf("message %d: the reader's view was lost (read %v, detached %v)", i, m.rpc != (jsonrpc.Kept{}), d.rpc != (jsonrpc.Kept{}))
		}
		got, ok := d.rpc.Of(d.Msg)
		if !ok {
			t.Fatalf("message %d: the detached view is not of the detached bytes", i)
		}
		want, werr := jsonrpc.Parse(d.Msg)
		if werr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("message %d: detached RPC = %+v, want %+v (%v)", i, got, want, werr)
		}
		d.Msg, d.rpc, m.Msg, m.rpc = nil, jsonrpc.Kept{}, nil, jsonrpc.Kept{}
		if !reflect.DeepEqual(d, m) {
			t.Fatalf("message %d: Detached() = %+v, want %+v", i, d, m)
		}
	}
}
