package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// dialers gives its connections to the Dials in turn, and fails once
// they are all given.
type dialers struct {
	mu sync.Mutex
	cs []transport.Conn
}

func (d *dialers) Dial(context.Context, string) (transport.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.cs) == 0 {
		return nil, errors.New("no more connections")
	}
	c := d.cs[0]
	d.cs = d.cs[1:]
	return c, nil
}

// rootsOnInitialized is a scripted server that asks roots/list (id
// "live-<n>") when told the client is initialized, as server-everything
// does, and echoes every request but initialize when holdInit is set
// (its answer then comes when the test sends it).
func rootsOnInitialized(n string, holdInit bool) func(msg []byte) [][]byte {
	return func(msg []byte) [][]byte {
		rpc, _ := jsonrpc.Parse(msg)
		switch {
		case rpc.Method == "notifications/initialized":
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":"live-` + n + `","method":"roots/list"}`)}
		case rpc.Method == "initialize" && holdInit:
			return nil
		}
		return echo(msg)
	}
}

// TestReconnectForgetsTheOldConnectionsAsks: the first connection's
// server asks roots/list before the tape has the client's answer to it;
// the ask is kept for that answer (session.asked). A disconnect fault
// then drops that connection, and the session reconnects with a fresh
// handshake, whose server asks roots/list again. The recorded answer
// answers the new connection's ask, not the old one's: an answer to a
// request the new server never made (id "live-1") goes on no
// connection, and nothing but the initialize goes on the new one before
// that initialize is answered. It used to: the old ask outlived the
// reconnect and took the recorded answer on the new connection (when
// the tape brought it, or, with the recorded ask read before the
// disconnect, at once while the session was held for the new
// initialize: recheckAsks), and the new server's own ask was refused.
func TestReconnectForgetsTheOldConnectionsAsks(t *testing.T) {
	ping4 := []string{"c2s", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, "s2c", `{"jsonrpc":"2.0","id":4,"result":{}}`}
	for _, tc := range []struct {
		name  string
		first []string // put before the disconnect: roots/list is asked meanwhile
		then  []string // the disconnect fault is on the first message
		// oldRefused: the first connection's ask is refused (the tape
		// has no answer to it before the client's next notification).
		oldRefused bool
	}{
		{"recorded ask after the disconnect",
			[]string{"c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp},
			append([]string{"c2s", pingReq, "s2c", pingResp, "s2c", rootsAsk, "c2s", rootsAnswer}, ping4...), false},
		{"recorded ask before the disconnect, its answer after",
			[]string{"c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp, "s2c", rootsAsk},
			append([]string{"c2s", pingReq, "s2c", pingResp, "c2s", rootsAnswer}, ping4...), false},
		{"first ask refused",
			[]string{"c2s", initReq, "s2c", initResp, "c2s", initializedNote, "c2s", listReq, "s2c", listResp, "c2s", changed},
			append([]string{"c2s", pingReq, "s2c", pingResp, "s2c", rootsAsk, "c2s", rootsAnswer}, ping4...), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reconnectAsks(t, tc.first, tc.then, tc.oldRefused)
			})
		})
	}
}

// reconnectAsks replays first, then (a disconnect fault on its first
// message) then, checking the asks of the connections' servers (see
// TestReconnectForgetsTheOldConnectionsAsks).
func reconnectAsks(t *testing.T, first, then []string, oldRefused bool) {
	c1 := &scripted{in: make(chan transport.Incoming, 8), answer: rootsOnInitialized("1", false)}
	c2 := &scripted{in: make(chan transport.Incoming, 8), answer: rootsOnInitialized("2", true)}
	e := env(t, &dialers{cs: []transport.Conn{c1, c2}}, fast)
	e.Chaos = &chaos.Plan{}
	its := msgs(t, append(slices.Clone(first), then...)...)
	n := len(first) / 2
	its[n].Fault = &chaos.Fault{Kind: chaos.Disconnect, Seq: its[n].Rec.Seq, Session: "s1", MsgKind: "request"}
	s := &recSink{}
	a := New(e, s, "s1", time.Now())
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	for _, it := range its[:n] {
		a.Put(it)
	}
	synctest.Wait()
	if answer, refused := liveAnswer(c1, "live-1"); answer != "" || refused != oldRefused {
		t.Fatalf("the first connection's roots/list: answered %q, refused %v before the tape had its answer, want refused %v: sent %q", answer, refused, oldRefused, c1.sent())
	}
	for _, it := range its[n:] {
		a.Put(it)
	}
	synctest.Wait() // held for the new initialize's answer
	if got := c2.sent(); len(got) != 1 || !strings.Contains(string(got[0]), `"method":"initialize"`) {
		t.Errorf("sent on the new connection before its initialize was answered: %q, want the initialize alone", got)
	}
	init, _ := jsonrpc.Parse(c2.sent()[0])
	c2.in <- transport.Incoming{Msg: []byte(`{"jsonrpc":"2.0","id":` + string(init.ID) + `,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`), At: time.Now()}
	a.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if answer, refused := liveAnswer(c2, "live-1"); answer != "" || refused {
		t.Errorf("the old connection's ask was answered (%q) or refused (%v) on the new connection, want neither", answer, refused)
	}
	if answer, refused := liveAnswer(c2, "live-2"); answer != `{"jsonrpc":"2.0","id":"live-2","result":{"roots":[]}}` || refused {
		t.Errorf("the new connection's roots/list: answered %q, refused %v; want answered with the recorded answer: sent %q", answer, refused, c2.sent())
	}
	wantRefused := 0
	if oldRefused {
		wantRefused = 1 // the first connection's, on the first connection
	}
	if s.counts[ServerRequest] != 1 || s.counts[ServerRefused] != wantRefused {
		t.Errorf("counts %v, want one server request answered, %d refused", s.counts, wantRefused)
	}
}
