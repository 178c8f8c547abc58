package mock

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// recorded holds the tapes the Go SDK client recorded against the
// conformance server, by revision, read once per test process.
var recorded struct {
	sync.Mutex
	tapes map[string][]byte
}

// recordedTape returns a tape of testtape.ScriptAll recorded by the Go
// SDK client against go tool everything-server over stdio, in revision
// version ("": 2026-07-28, with MRTR rounds; mcp.V20251125: with the
// server's elicitation and sampling requests).
func recordedTape(t testing.TB, version string) []byte {
	t.Helper()
	recorded.Lock()
	defer recorded.Unlock()
	if b, ok := recorded.tapes[version]; ok {
		return b
	}
	path := testtape.RecordClient(t, testtape.Stdio(testserver.GoSDK(t)), version, testtape.ScriptAll)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if recorded.tapes == nil {
		recorded.tapes = map[string][]byte{}
	}
	recorded.tapes[version] = b
	return b
}

// tapeMessages reads a tape's messages.
func tapeMessages(t testing.TB, b []byte) []tape.Message {
	t.Helper()
	r, err := tape.OpenSource(tape.Bytes("t", b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []tape.Message
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		out = append(out, m)
	}
	return out
}

// exchange is what the client got for one request of the script.
type exchange struct {
	seq  int64    // the recorded request
	got  [][]byte // every message sent for it, in order, the answer last
	err  error    // Handle's
	live []byte   // the live id
	asks []string // the ids of the server's requests to the client
	// paced counts the messages sent with a transport.WithPace ctx.
	paced int
	took  time.Duration // from Handle's call to its return
}

// clientOpts say how drive plays the client.
type clientOpts struct {
	stateless bool          // 2026-07-28: Open a session per request, as an HTTP listener does
	idPrefix  string        // live ids are "<prefix><n>", so that they differ from the recorded ones
	timeout   time.Duration // each request's Handle bounded by this
	change    func(seq int64, msg []byte) []byte
	info      transport.SessionInfo
	onlyUntil int64 // stop after the request with this seq (0: all)
	// bubble: drive runs in a synctest bubble; after each request of
	// the server it checks that nothing more comes before the client
	// answers it.
	bubble bool
}

// drive plays the client side of a recorded tape against srv through the
// transport.Session contract: each recorded client request is sent with a
// live id (Handle, in a goroutine of its own as a listener runs it), each
// request the server sends back is answered with the recorded client
// answer under the live id (a concurrent Handle), and the client's
// notifications are sent as recorded. It returns what came back for each
// request, in order.
func drive(t testing.TB, srv *Server, msgs []tape.Message, o clientOpts) []exchange {
	t.Helper()
	if o.timeout == 0 {
		o.timeout = 20 * time.Second
	}
	ctx := context.Background()
	info := o.info
	if info.ID == "" {
		info.ID = "live"
	}
	info.Stateless = o.stateless
	var sess transport.Session
	open := func() transport.Session {
		s, err := srv.Open(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if !o.stateless {
		sess = open()
		defer sess.Close()
	}
	// The recorded client answers to the server's requests, in order.
	var clientAnswers []tape.Message
	for _, m := range msgs {
		if r, err := jsonrpc.Parse(m.Msg); err == nil && m.Dir == tape.C2S && jsonrpc.IsResponseKind(r.Kind) {
			clientAnswers = append(clientAnswers, m)
		}
	}
	var out []exchange
	n := 0
	for _, m := range msgs {
		if m.Dir != tape.C2S {
			continue
		}
		r, err := jsonrpc.Parse(m.Msg)
		if err != nil {
			t.Fatal(err)
		}
		msg := []byte(m.Msg)
		if o.change != nil {
			msg = o.change(m.Seq, msg)
		}
		s := sess
		if o.stateless {
			s = open()
		}
		switch r.Kind {
		case jsonrpc.KindNotification:
			if err := s.Handle(ctx, msg, func(context.Context, []byte) error { t.Error("a notification was answered"); return nil }); err != nil {
				t.Fatalf("seq %d: %v", m.Seq, err)
			}
		case jsonrpc.KindRequest:
			n++
			live := fmt.Appendf(nil, `"%s%d"`, o.idPrefix, n)
			x := exchange{seq: m.Seq, live: live}
			msg = mustParse(t, msg).WithID(live)
			start := time.Now()
			x.got, x.asks, x.paced, x.err = request(t, ctx, s, msg, o.timeout, &clientAnswers, o.bubble)
			x.took = time.Since(start)
			out = append(out, x)
		}
		if o.stateless {
			s.Close()
		}
		if o.onlyUntil != 0 && m.Seq >= o.onlyUntil {
			break
		}
	}
	return out
}

// request sends one request through s.Handle and collects what is sent
// back until Handle returns, answering the server's own requests with the
// next recorded client answers.
func request(t testing.TB, ctx context.Context, s transport.Session, msg []byte, timeout time.Duration, answers *[]tape.Message, bubble bool) (out [][]byte, asks []string, paced int, _ error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got := make(chan []byte)
	done := make(chan error, 1)
	go func() {
		done <- s.Handle(ctx, msg, func(ctx context.Context, b []byte) error {
			if _, _, ok := transport.PaceOf(ctx); ok {
				b = append([]byte("paced:"), b...)
			}
			select {
			case got <- bytes.Clone(b):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	for {
		select {
		case b := <-got:
			if p, ok := bytes.CutPrefix(b, []byte("paced:")); ok {
				b = p
				paced++
			}
			out = append(out, b)
			r, err := jsonrpc.Parse(b)
			if err == nil && r.Kind == jsonrpc.KindRequest && len(*answers) > 0 { // the server asks: answer as recorded
				asks = append(asks, string(r.ID))
				if bubble {
					synctest.Wait()
					select {
					case b := <-got:
						t.Errorf("%s sent before the client answered the server's %s", b, r.Method)
						out = append(out, b)
					default:
					}
				}
				a := mustParse(t, (*answers)[0].Msg).WithID(r.ID)
				*answers = (*answers)[1:]
				if err := s.Handle(ctx, a, func(context.Context, []byte) error { t.Error("an answer was answered"); return nil }); err != nil {
					t.Error(err)
				}
			}
		case err := <-done:
			return out, asks, paced, err
		}
	}
}

func mustParse(t testing.TB, b []byte) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// wantRecorded checks that each exchange got what the tape recorded for
// its request: the server's notifications as recorded (progress tokens
// are the client's own, as recorded), its requests as recorded with
// fresh ids, and the recorded answer with the live id.
func wantRecorded(t testing.TB, msgs []tape.Message, xs []exchange) {
	t.Helper()
	bySeq := map[int64]int{}
	for i, m := range msgs {
		bySeq[m.Seq] = i
	}
	for _, x := range xs {
		if x.err != nil {
			t.Errorf("seq %d: Handle: %v", x.seq, x.err)
			continue
		}
		req := mustParse(t, msgs[bySeq[x.seq]].Msg)
		var want [][]byte // the server's messages from the request to its answer
		for _, m := range msgs[bySeq[x.seq]+1:] {
			if m.Dir != tape.S2C {
				continue
			}
			r := mustParse(t, m.Msg)
			if jsonrpc.IsResponseKind(r.Kind) {
				if string(r.ID) == string(req.ID) {
					want = append(want, r.WithID(x.live))
					break
				}
				continue
			}
			want = append(want, m.Msg)
		}
		if len(x.got) != len(want) {
			t.Errorf("seq %d %s: got %d messages, want %d:\n got %q\nwant %q", x.seq, req.Method, len(x.got), len(want), x.got, want)
			continue
		}
		for i := range want {
			g, w := x.got[i], want[i]
			if r := mustParse(t, w); r.Kind == jsonrpc.KindRequest { // the server's request: a fresh id
				g = mustParse(t, g).WithID(r.ID)
			}
			if !bytes.Equal(g, w) {
				t.Errorf("seq %d %s message %d:\n got %s\nwant %s", x.seq, req.Method, i, g, w)
			}
		}
	}
}

// revisions are the recorded revisions the tests serve.
var revisions = []struct {
	name      string
	version   string
	stateless bool
}{
	{"2026-07-28", "", true},
	{"2025-11-25", mcp.V20251125, false},
}
