package session

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// TestSessionKeepsNoLoadedBlock: what a session keeps for its whole life
// (the handshake, replayed after a reconnect; the last request id, for
// the duplicate-id fault) must not point into the memory the loader and
// transform stage hand items out of. Those come in shared blocks (32
// items, 8 KiB of request bytes, 32 KiB of tape bytes), so one kept
// pointer pins a whole block for as long as the session lives: about
// 21 KB a live session where it was 693 B. Here every item is in one
// []Item block and all their bytes in one arena; after the replay the
// session's kept items and bytes must lie outside both.
func TestSessionKeepsNoLoadedBlock(t *testing.T) {
	loaded := items(t, quickstart)
	var size int
	for _, it := range loaded {
		size += len(it.Rec.Msg)
	}
	arena := make([]byte, 0, size)
	block := make([]Item, len(loaded))
	its := make([]*Item, len(loaded))
	var handshakes int
	for i, l := range loaded {
		at := len(arena)
		arena = append(arena, l.Rec.Msg...)
		msg := arena[at:len(arena):len(arena)]
		rpc, err := jsonrpc.Parse(msg)
		if err != nil {
			t.Fatal(err)
		}
		m := l.Rec
		m.Msg = msg
		block[i] = Item{Rec: m, RPC: rpc, Out: msg}
		if m.Dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest {
			block[i].SentID = rpc.ID
		}
		if m.Dir == tape.C2S && (rpc.Method == "initialize" || rpc.Method == "notifications/initialized") {
			handshakes++
		}
		its[i] = &block[i]
	}
	if handshakes != 2 {
		t.Fatalf("the tape has %d handshake messages, want 2", handshakes)
	}

	s := &recSink{}
	a := New(env(t, mockOf(quickstart), fast), s, "s1", time.Now())
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	for _, it := range its {
		if !a.Put(it) {
			break
		}
	}
	a.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	inArena := func(p []byte) bool {
		return len(p) > 0 && within(unsafe.Pointer(unsafe.SliceData(p)), unsafe.Pointer(unsafe.SliceData(arena)), uintptr(cap(arena)))
	}
	blockStart, blockLen := unsafe.Pointer(unsafe.SliceData(block)), uintptr(len(block))*unsafe.Sizeof(Item{})
	ss := a.ss
	if len(ss.handshake) != handshakes {
		t.Fatalf("the session kept %d handshake items, want %d", len(ss.handshake), handshakes)
	}
	for _, h := range ss.handshake {
		if within(unsafe.Pointer(h), blockStart, blockLen) {
			t.Errorf("handshake item seq %d is the loaded item itself: it pins the loader's block of items", h.Rec.Seq)
		}
		for name, p := range map[string][]byte{"Rec.Msg": h.Rec.Msg, "RPC.Raw": h.RPC.Raw, "RPC.ID": h.RPC.ID, "Out": h.Out, "SentID": h.SentID} {
			if inArena(p) {
				t.Errorf("handshake item seq %d: %s points into the loaded bytes: it pins their block", h.Rec.Seq, name)
			}
		}
	}
	// Nothing else in a kept item may point into the bytes the tape
	// reader read them into either (the loaded items' Rec.Msg, which
	// the arena copies): not a pointer in any field, seen or not (the
	// reader's view of Msg that tape.Message carries is unexported).
	// Every word of the item is compared, as the collector would see
	// it: an integer equal to such an address is not to be met.
	var read [][2]uintptr
	for _, l := range loaded {
		if len(l.Rec.Msg) > 0 {
			p := uintptr(unsafe.Pointer(unsafe.SliceData(l.Rec.Msg)))
			read = append(read, [2]uintptr{p, p + uintptr(len(l.Rec.Msg))})
		}
	}
	for _, h := range ss.handshake {
		words := unsafe.Slice((*uintptr)(unsafe.Pointer(h)), unsafe.Sizeof(*h)/unsafe.Sizeof(uintptr(0)))
		for k, w := range words {
			for _, r := range read {
				if w >= r[0] && w < r[1] {
					t.Errorf("handshake item seq %d: the word at offset %d points into the tape reader's bytes: it pins their block", h.Rec.Seq, uintptr(k)*unsafe.Sizeof(uintptr(0)))
				}
			}
		}
	}
	if len(ss.prevID) == 0 {
		t.Fatal("no last request id kept")
	}
	if inArena(ss.prevID) {
		t.Errorf("the last request id %s points into the loaded bytes: it pins their block", ss.prevID)
	}
}

// within reports whether p lies in the n bytes from start.
func within(p, start unsafe.Pointer, n uintptr) bool {
	return uintptr(p) >= uintptr(start) && uintptr(p) < uintptr(start)+n
}
