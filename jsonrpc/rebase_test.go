package jsonrpc

import (
	"bytes"
	"reflect"
	"testing"
)

// rebasedAsParsed: what m.Rebase(raw) gives, when it gives anything, is
// what Parse(raw) gives, to the capacity of every slice.
func rebasedAsParsed(t *testing.T, m Message, raw []byte) bool {
	t.Helper()
	r, ok := m.Rebase(raw)
	if !ok {
		return false
	}
	p, err := Parse(raw)
	if err != nil || !reflect.DeepEqual(r, p) || cap(r.ID) != cap(p.ID) || cap(r.Raw) != cap(p.Raw) {
		t.Fatalf("Rebase(%q) of %q = %+v; Parse: %+v, %v", raw, m.Raw, r, p, err)
	}
	for _, g := range [][2][]byte{{r.Params(), p.Params()}, {r.Result(), p.Result()}, {r.Error(), p.Error()}} {
		if !bytes.Equal(g[0], g[1]) || cap(g[0]) != cap(g[1]) {
			t.Fatalf("Rebase(%q): member %q, Parse's %q", raw, g[0], g[1])
		}
	}
	return true
}

// checkRebase: m.Rebase gives Parse's message for m's bytes with a plain
// new id, and for nothing else that Parse would read otherwise.
func checkRebase(t *testing.T, m Message, newID []byte) {
	t.Helper()
	out := m.WithID(newID)
	_, _, hasID := m.IDSpan()
	if got := rebasedAsParsed(t, m, out); hasID && plainID(newID) && !got {
		t.Fatalf("Rebase(%q) of %q: false, want Parse's message", out, m.Raw)
	}
	if got := rebasedAsParsed(t, m, m.Raw); hasID && plainID(m.ID) && !got {
		t.Fatalf("Rebase of its own bytes %q: false", m.Raw)
	}
	for i := range out { // one byte changed anywhere
		c := bytes.Clone(out)
		c[i] ^= 0x20
		rebasedAsParsed(t, m, c)
	}
	rebasedAsParsed(t, m, newID)
	if len(out) > 0 {
		rebasedAsParsed(t, m, out[:len(out)-1])
	}
}

func TestRebase(t *testing.T) {
	for _, c := range []struct {
		raw, id string
		want    bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, `1234567`, true},
		{`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"x"}}`, `7`, true},
		{`{"method":"tools/call","params":{"name":"x"},"jsonrpc":"2.0","id":12345}`, `"s1-7"`, true},
		{`{"jsonrpc":"2.0","id":"a\"b","result":{"x":[1,2]}}`, `-3`, true},
		{`{"jsonrpc":"2.0","result":{"x":[1,2]}, "id" : 4 }`, `40`, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}`, `5`, true},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `null`, false},   // not an integer or a string
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `1.5`, false},    // not an integer
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `01`, false},     // not JSON
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `"a\"b"`, false}, // an escape
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `"é"`, false},    // not ASCII
		{`{"jsonrpc":"2.0","method":"notifications/progress"}`, `1`, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, `2`, false},
	} {
		m, err := Parse([]byte(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		out := m.WithID([]byte(c.id))
		if got := rebasedAsParsed(t, m, out); got != c.want {
			t.Errorf("Rebase(%s) of %s: %v, want %v", out, c.raw, got, c.want)
		}
		checkRebase(t, m, []byte(c.id))
	}
}

// TestRebaseOtherBytes: bytes that differ from m's outside the id are
// not m's with another id.
func TestRebaseOtherBytes(t *testing.T) {
	m, err := Parse([]byte(`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"a":2}}`,
		`{"jsonrpc":"2.0","id":2 ,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":"x,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":2}`,
		``,
	} {
		if r, ok := m.Rebase([]byte(raw)); ok {
			t.Errorf("Rebase(%s) = %+v, want false", raw, r)
		}
	}
}

func BenchmarkRebase(b *testing.B) {
	rec := []byte(`{"jsonrpc":"2.0","id":41,"result":{"content":[{"type":"text","text":"Echo: hello there, this is a recorded answer"}]}}`)
	m, err := Parse(rec)
	if err != nil {
		b.Fatal(err)
	}
	live := m.WithID([]byte("1000041"))
	b.Run("rebase", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := m.Rebase(live); !ok {
				b.Fatal("not rebased")
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(live); err != nil {
				b.Fatal(err)
			}
		}
	})
}
