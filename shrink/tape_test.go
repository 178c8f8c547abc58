package shrink_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// call is one tools/call of a generated tape.
type call struct {
	tool, mode string
}

// plantedTape builds a native tape of sessions against the planted
// server (internal/testserver/planted), each with its handshake and
// its calls, interleaved round-robin as concurrent clients would be;
// every recorded answer is the planted server's, so a replay fails only
// where the planted bug bites.
func plantedTape(t testing.TB, sessions [][]call) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := tape.NewWriter(&buf, tape.Header{ProtocolVersion: "2025-06-18", Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	var seq, tus int64
	write := func(session string, dir tape.Dir, msg string) {
		t.Helper()
		if err := w.Write(tape.Message{Seq: seq, TUS: tus, Session: session, Dir: dir, Msg: []byte(msg)}); err != nil {
			t.Fatal(err)
		}
		seq++
		tus += 100
	}
	name := func(i int) string { return fmt.Sprintf("s%d", i+1) }
	for i := range sessions {
		write(name(i), tape.C2S, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gen","version":"1"}}}`)
		write(name(i), tape.S2C, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"planted","version":"1"}}}`)
		write(name(i), tape.C2S, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	for step := 0; ; step++ {
		more := false
		for i, calls := range sessions {
			if step >= len(calls) {
				continue
			}
			more = true
			c := calls[step]
			id := step + 1
			write(name(i), tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"mode":%q,"note":"a note that pads the call out","count":%d}}}`, id, c.tool, c.mode, step))
			write(name(i), tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok %s"}]}}`, id, c.tool))
		}
		if !more {
			break
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// abcSessions are n sessions of perSession calls each, seeded; the
// session bug (0-based) also calls a, b, then c with mode "boom", as its
// calls at[0], at[1] and at[2], with no other a, b or c; the other
// sessions call c with mode "boom" only first, before any a and b, so
// that only the bug session's three calls, in that order, crash the
// planted server.
func abcSessions(n, perSession, bug int, seed uint64, at [3]int) [][]call {
	r := rand.New(rand.NewPCG(seed, 1))
	modes := []string{"x", "y"}
	out := make([][]call, n)
	for i := range out {
		var calls []call
		if i != bug {
			calls = append(calls, call{"c", "boom"})
		}
		for len(calls) < perSession {
			tools := []string{"a", "b", "c", "d", "e"}
			if i == bug {
				tools = []string{"d", "e"}
			}
			calls = append(calls, call{tools[r.IntN(len(tools))], modes[r.IntN(len(modes))]})
		}
		if i == bug {
			for _, p := range []struct {
				at int
				c  call
			}{{at[0], call{"a", "x"}}, {at[1], call{"b", "y"}}, {at[2], call{"c", "boom"}}} {
				calls = append(calls[:p.at], append([]call{p.c}, calls[p.at:]...)...)
			}
		}
		out[i] = calls
	}
	return out
}
