package mock

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// sessionsTape writes a native tape of n sessions, "s0" to "s<n-1>", each
// one ping and its answer {"n":i}, the sessions one after another.
func sessionsTape(tb testing.TB, n int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "sessions.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}`)
	for i := range n {
		fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s%d","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"session":%d}}}`+"\n", 2*i, 20*i, i, i)
		fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s%d","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"n":%d}}}`+"\n", 2*i+1, 20*i+10, i, i)
	}
	fmt.Fprintf(w, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", 2*n, 20*n)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// askEach dials every session of a sessionsTape of n sessions in turn,
// asks its recorded ping with another id and checks the answer. It closes
// each connection before the next dial, or with open returns them all
// open, as a replay of all the sessions at once holds them.
func askEach(tb testing.TB, m *Mock, n int, open bool) []transport.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var conns []transport.Conn
	for i := range n {
		c, err := m.Dial(ctx, fmt.Sprintf("s%d", i))
		if err != nil {
			closeAll(tb, conns)
			tb.Fatal(err)
		}
		conns = append(conns, c)
		if err := askPing(ctx, c, i); err != nil {
			closeAll(tb, conns)
			tb.Fatal(err)
		}
		if !open {
			conns = conns[:0]
			if err := c.Close(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return conns
}

// askPing asks session i of a sessionsTape its ping and checks the answer.
func askPing(ctx context.Context, c transport.Conn, i int) error {
	if err := c.Send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"q%d","method":"ping","params":{"session":%d}}`, i, i)); err != nil {
		return err
	}
	select {
	case in := <-c.Incoming():
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":"q%d","result":{"n":%d}}`, i, i); string(in.Msg) != want {
			return fmt.Errorf("session s%d: got %s, want %s", i, in.Msg, want)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("session s%d: no answer", i)
	}
}

// closeAll closes conns, failing the test on an error.
func closeAll(tb testing.TB, conns []transport.Conn) {
	for _, c := range conns {
		if err := c.Close(); err != nil {
			tb.Error(err)
		}
	}
}

// BenchmarkMockSessions dials, asks and closes every session of a tape of
// many short sessions, one after another, with a new mock each run. live-MB
// is the heap still in use after the last run, the mock kept: what the
// mock holds for the tape.
func BenchmarkMockSessions(b *testing.B) { benchSessions(b, false) }

// BenchmarkMockSessionsOpen is BenchmarkMockSessions with every connection
// kept open until all the sessions have been asked, as in a replay of
// them all at once; live-MB is measured with them still open.
func BenchmarkMockSessionsOpen(b *testing.B) { benchSessions(b, true) }

func benchSessions(b *testing.B, open bool) {
	for _, n := range []int{4_000, 20_000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			path := sessionsTape(b, n)
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			b.ReportAllocs()
			var m *Mock
			var conns []transport.Conn
			for b.Loop() {
				closeAll(b, conns)
				m = New(path)
				conns = askEach(b, m, n, open)
			}
			runtime.GC()
			runtime.ReadMemStats(&ms)
			runtime.KeepAlive(m)
			b.ReportMetric(float64(int64(ms.HeapAlloc)-int64(base))/(1<<20), "live-MB")
			closeAll(b, conns)
		})
	}
}

func TestManySessionsReadTheTapeOnce(t *testing.T) {
	const n = 20_000
	path := sessionsTape(t, n)
	var opens atomic.Int64
	m := FromSource(countedFile{File: tape.File(path), opens: &opens})
	askEach(t, m, 1, false)
	// Once the first Dial has indexed the tape the mock needs it no more.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	askEach(t, m, n, false)
	if got := opens.Load(); got != 1 {
		t.Errorf("the tape was opened %d times for %d sessions, want once", got, n)
	}
}

// TestBindTellsClientsApartByClientInfo: two recorded sessions whose
// initialize differs only in clientInfo (volatile for matching), each
// followed by a call of its own. Live clients arriving in the other order
// are each bound to the recording of their own clientInfo, so that every
// later call is answered, not missed because the round-robin handed the
// client another client's recording.
func TestBindTellsClientsApartByClientInfo(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio","protocol_version":"2025-11-25"}` + "\n")
	seq := 0
	for c := range 2 {
		for _, m := range []struct{ dir, msg string }{
			{"c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"client-%d","version":"1"}}}`, c)},
			{"s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`},
			{"c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from client %d"}}}`, c)},
			{"s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"echo %d"}]}}`, c)},
		} {
			fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s%d","dir":%q,"msg":%s}`+"\n", seq, seq*10, c+1, m.dir, m.msg)
			seq++
		}
	}
	srv, err := NewServer(tape.Bytes("two-clients", []byte(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{1, 0} {
		sess, err := srv.Open(t.Context(), transport.SessionInfo{ID: fmt.Sprintf("live-%d", c)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		send := func(_ context.Context, msg []byte) error { got = append(got, string(msg)); return nil }
		for _, msg := range []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"client-%d","version":"1"}}}`, c),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from client %d"}}}`, c),
		} {
			if err := sess.Handle(t.Context(), []byte(msg), send); err != nil {
				t.Fatal(err)
			}
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`"text":"echo %d"`, c); len(got) != 2 || !strings.Contains(got[1], want) {
			t.Errorf("client %d got %q, want the call answered with %s", c, got, want)
		}
	}
	if m := srv.Misses(); len(m) != 0 {
		t.Errorf("%d misses, first: %v", len(m), m[0])
	}
}
