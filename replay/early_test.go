package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// pingCassette is an Agent VCR cassette of n pings, one interaction a
// line, with bad (if not "") as interaction bad's direction.
func pingCassette(n, badAt int, bad string) []byte {
	var b strings.Builder
	b.WriteString(`{"format_version": "1.0.0",` + "\n" + `"session": {` + "\n")
	b.WriteString(`"initialize_request": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},` + "\n")
	b.WriteString(`"initialize_response": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}},` + "\n")
	b.WriteString(`"interactions": [` + "\n")
	for i := range n {
		dir := "client_to_server"
		if i == badAt && bad != "" {
			dir = bad
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"direction": %q, "request": {"jsonrpc": "2.0", "id": %d, "method": "ping"}, "response": {"jsonrpc": "2.0", "id": %d, "result": {}}}`, dir, i+1, i+1)
	}
	b.WriteString("\n]}}\n")
	return []byte(b.String())
}

// events is a list of what happened, in order, from several goroutines.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

// eofSource is a tape in memory that notes when a reader of it reaches
// its end.
type eofSource struct {
	tape.Source
	ev *events
}

func (s eofSource) Open() (io.ReadSeekCloser, error) {
	f, err := s.Source.Open()
	return eofReader{f, s.ev}, err
}

type eofReader struct {
	io.ReadSeekCloser
	ev *events
}

func (r eofReader) Read(p []byte) (int, error) {
	n, err := r.ReadSeekCloser.Read(p)
	if err == io.EOF {
		r.ev.add("tape read to its end")
	}
	return n, err
}

// hookEarly sets earlyDialed for the test, noting each connection.
func hookEarly(t *testing.T, ev *events) *[]transport.Conn {
	var conns []transport.Conn
	earlyDialed = func(c transport.Conn) {
		conns = append(conns, c)
		ev.add("server started")
	}
	t.Cleanup(func() { earlyDialed = nil })
	return &conns
}

// With StartTargetFirst, the stdio server is started before the tape is
// read to its end (the cassette's decode), and that process is the one
// the session replays against.
func TestStartTargetFirstBeforeDecode(t *testing.T) {
	argv := testserver.GoSDK(t)
	ev := &events{}
	conns := hookEarly(t, ev)
	src := eofSource{tape.Bytes("pings.vcr", pingCassette(200, -1, "")), ev}
	r, err := New(src, Against(Command(argv[0], argv[1:]...)), WithSpeed(Fast()), StartTargetFirst())
	if err != nil {
		t.Fatal(err)
	}
	got := ev.get()
	if len(got) < 2 || got[0] != "server started" || got[1] != "tape read to its end" {
		t.Fatalf("events %q, want the server started, then the tape read to its end", got)
	}
	rep, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Sent != 202 || rep.Summary.Received != 201 {
		t.Errorf("sent %d, received %d; want 202 (the pings, initialize and notifications/initialized) and 201", rep.Summary.Sent, rep.Summary.Received)
	}
	if len(*conns) != 1 {
		t.Fatalf("%d connections started early, want 1", len(*conns))
	}
	if _, open := <-(*conns)[0].Incoming(); open {
		t.Errorf("the early connection is open after Run, want it closed")
	}
}

// A bad tape is New's error, naming its file and line, and the server
// started for it is stopped before New returns.
func TestStartTargetFirstBadTape(t *testing.T) {
	argv := testserver.GoSDK(t)
	ev := &events{}
	conns := hookEarly(t, ev)
	src := tape.Bytes("bad.vcr", pingCassette(50, 40, "sideways"))
	_, err := New(src, Against(Command(argv[0], argv[1:]...)), WithSpeed(Fast()), StartTargetFirst())
	var te *tape.Error
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *tape.Error", err)
	}
	if te.Path != "bad.vcr" || te.Line != 46 || !strings.Contains(te.Msg, "session.interactions[40].direction") {
		t.Errorf("got %s line %d: %s; want bad.vcr line 46 about session.interactions[40].direction", te.Path, te.Line, te.Msg)
	}
	if len(*conns) != 1 {
		t.Fatalf("%d connections started early, want 1", len(*conns))
	}
	pid := (*conns)[0].(*transport.StdioConn).PID()
	if gone, err := testos.Gone(t, pid); !gone {
		t.Errorf("the server (pid %d) after New failed: kill -0 says %v, want no such process", pid, err)
	}
}

// A Replay not run is closed: its early server stops; Close again is
// harmless.
func TestStartTargetFirstClose(t *testing.T) {
	argv := testserver.GoSDK(t)
	conns := hookEarly(t, &events{})
	r, err := New(tape.Bytes("pings.vcr", pingCassette(3, -1, "")), Against(Command(argv[0], argv[1:]...)), StartTargetFirst())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	pid := (*conns)[0].(*transport.StdioConn).PID()
	if gone, err := testos.Gone(t, pid); !gone {
		t.Errorf("the server (pid %d) after Close: kill -0 says %v, want no such process", pid, err)
	}
}

// Without StartTargetFirst, or against a target other than a stdio
// one, nothing is started by New.
func TestStartTargetFirstOnlyStdio(t *testing.T) {
	conns := hookEarly(t, &events{})
	src := tape.Bytes("pings.vcr", pingCassette(3, -1, ""))
	for _, opts := range [][]Option{
		{Against(Command("sh", "-c", "cat >/dev/null"))},
		{Against(HTTP("http://127.0.0.1:18960/mcp")), StartTargetFirst()},
		{StartTargetFirst()}, // the mock
	} {
		r, err := New(src, opts...)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	if len(*conns) != 0 {
		t.Errorf("%d connections started early, want none", len(*conns))
	}
}

// countDialer counts its dials; its connections are fakes.
type countDialer struct {
	mu sync.Mutex
	n  int
}

func (d *countDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n++
	return &fakeConn{}, nil
}

type fakeConn struct {
	transport.Conn
	closed int
}

func (c *fakeConn) Close() error { c.closed++; return nil }

// The first Dial takes the connection dialled early; the others dial;
// close stops the early one only if no Dial took it.
func TestEarlyDialer(t *testing.T) {
	d := &countDialer{}
	e := dialEarly(d)
	first := e.conn.(*fakeConn)
	c1, err := e.Dial(t.Context(), "s1")
	if err != nil || c1 != first {
		t.Fatalf("first Dial: got %v, %v; want the early connection", c1, err)
	}
	c2, _ := e.Dial(t.Context(), "s2")
	if c2 == first || d.n != 2 {
		t.Fatalf("second Dial: got the early connection or %d dials, want a new one (2 dials)", d.n)
	}
	e.close()
	if first.closed != 0 {
		t.Errorf("close closed the connection a session took")
	}

	unused := dialEarly(d)
	uc := unused.conn.(*fakeConn)
	unused.close()
	unused.close()
	if uc.closed != 1 {
		t.Errorf("close of an unused early connection closed it %d times, want 1", uc.closed)
	}
	if _, err := unused.Dial(t.Context(), "s1"); err != nil || d.n != 4 {
		t.Errorf("Dial after close: %v, %d dials; want a new dial (4)", err, d.n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := dialEarly(d)
	dc := done.conn.(*fakeConn)
	if _, err := done.Dial(ctx, "s1"); !errors.Is(err, context.Canceled) || dc.closed != 1 {
		t.Errorf("Dial with ctx done: %v, closed %d; want context.Canceled and the early connection closed", err, dc.closed)
	}
}

// A bad tape against a server that neither exits when its stdin closes
// nor on SIGTERM: the server, sent nothing, is killed at once, not
// stopped gracefully (stdin closed, a wait, SIGTERM, a wait), and the
// log names no empty session.
func TestStartTargetFirstBadTapeKills(t *testing.T) {
	ev := &events{}
	conns := hookEarly(t, ev)
	var logs testbuf.Buffer
	src := tape.Bytes("bad.vcr", pingCassette(50, 40, "sideways"))
	_, err := New(src, Against(Command("sh", "-c", `trap "" TERM; exec sleep 300`)), WithSpeed(Fast()), StartTargetFirst(),
		Logger(zerolog.New(&logs).Level(zerolog.DebugLevel)))
	var te *tape.Error
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *tape.Error", err)
	}
	if len(*conns) != 1 {
		t.Fatalf("%d connections started early, want 1", len(*conns))
	}
	pid := (*conns)[0].(*transport.StdioConn).PID()
	if gone, err := testos.Gone(t, pid); !gone {
		t.Errorf("the server (pid %d) after New failed: kill -0 says %v, want no such process", pid, err)
	}
	out := logs.String()
	if strings.Contains(out, "SIGTERM") {
		t.Errorf("the server was stopped gracefully (stdin closed, then SIGTERM), want it killed at once:\n%s", out)
	}
	if strings.Contains(out, `"session":""`) {
		t.Errorf("the log has an empty session field:\n%s", out)
	}
}
