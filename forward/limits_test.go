package forward

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// countingDialer dials real server processes and counts them: started,
// stopped, and the most running at once.
type countingDialer struct {
	d transport.Dialer

	mu                  sync.Mutex
	started, live, most int
}

func (c *countingDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	conn, err := c.d.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.started++
	c.live++
	c.most = max(c.most, c.live)
	c.mu.Unlock()
	return &countedConn{Conn: conn, c: c}, nil
}

func (c *countingDialer) counts() (started, live, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started, c.live, c.most
}

type countedConn struct {
	transport.Conn
	c    *countingDialer
	once sync.Once
}

func (cc *countedConn) Close() error {
	err := cc.Conn.Close() // waits for the process
	cc.once.Do(func() {
		cc.c.mu.Lock()
		cc.c.live--
		cc.c.mu.Unlock()
	})
	return err
}

// rig is a Forwarder dialing with dial and recording into journal, behind
// a mock.Server of the example tape (which lacks any "not-recorded" tool).
type rig struct {
	fwd     *Forwarder
	tap     *record.Tap
	journal *bytes.Buffer
	srv     *mock.Server
}

func newRig(t *testing.T, dial transport.Dialer, name func() string, opts ...Option) *rig {
	t.Helper()
	r := &rig{journal: &bytes.Buffer{}}
	w, err := tape.NewWriter(r.journal, tape.Header{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	r.tap = record.NewTap(w)
	r.fwd = New(dial, r.tap, name, zerolog.Nop(), opts...)
	if r.srv, err = mock.NewServer(tape.File("../examples/go-sdk-2025.jsonl"), mock.WithMissHandler(r.fwd)); err != nil {
		t.Fatal(err)
	}
	return r
}

// miss opens the live session id, sends it the handshake and a call of a
// tool the tape lacks (forwarded), and returns what it was sent; the
// session is closed when the test ends.
func (r *rig) miss(ctx context.Context, t *testing.T, id, tool string) *collector {
	t.Helper()
	sess, err := r.srv.Open(ctx, transport.SessionInfo{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	c := &collector{asks: make(chan jsonrpc.Message, 4)}
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"fwd-test","version":"1"},"protocolVersion":"2025-11-25","capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q}}`, tool),
	} {
		if err := sess.Handle(ctx, []byte(m), c.send); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestUpstreamsCappedAndStoppedWhenIdle: ten live sessions that each
// miss once start ten server processes over time, never more than
// MaxUpstreams (3) at once — the one idle longest is stopped for a new
// one — and every one left is stopped once idle for IdleTimeout.
func TestUpstreamsCappedAndStoppedWhenIdle(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dial := &countingDialer{d: transport.Stdio{Command: testserver.Crashy(t)}}
	n := 0
	r := newRig(t, dial, func() string { n++; return fmt.Sprintf("n%d", n) }, MaxUpstreams(3), IdleTimeout(200*time.Millisecond))
	fwd := r.fwd
	defer fwd.Close()
	for i := range 10 {
		r.miss(ctx, t, fmt.Sprintf("live%d", i), fmt.Sprintf("not-recorded-%d", i))
	}
	if fwd.Forwarded() != 10 {
		t.Errorf("%d misses forwarded, want 10", fwd.Forwarded())
	}
	started, _, most := dial.counts()
	if started != 10 || most > 3 {
		t.Errorf("%d server processes started, at most %d at once; want 10, at most 3", started, most)
	}
	for {
		if _, live, _ := dial.counts(); live == 0 {
			break
		}
		select {
		case <-ctx.Done():
			_, live, _ := dial.counts()
			t.Fatalf("%d server processes still running after every session was idle", live)
		case <-time.After(20 * time.Millisecond): // re-read the counts
		}
	}
}

// gatedDialer dials real server processes whose connections' Close
// signals entered and then waits for open before closing.
type gatedDialer struct {
	d       transport.Dialer
	entered chan struct{} // one send per Close entered
	open    chan struct{} // closed to let every Close go on
}

func (g *gatedDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	conn, err := g.d.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	return &gatedConn{Conn: conn, g: g}, nil
}

type gatedConn struct {
	transport.Conn
	g    *gatedDialer
	once sync.Once
}

func (gc *gatedConn) Close() error {
	gc.once.Do(func() {
		gc.g.entered <- struct{}{}
		<-gc.g.open
	})
	return gc.Conn.Close()
}

// TestCloseWaitsForIdleExpiry: an upstream connection that its idle
// timer is closing is waited for by Close, as those Closed is ending are
// (before, the idle timer's close ran on its own: Close returned while
// the server process was still being stopped, and the process outlived
// serve).
func TestCloseWaitsForIdleExpiry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dial := &gatedDialer{d: transport.Stdio{Command: testserver.Crashy(t)}, entered: make(chan struct{}, 1), open: make(chan struct{})}
	r := newRig(t, dial, func() string { return "n1" }, IdleTimeout(time.Millisecond))
	fwd := r.fwd
	r.miss(ctx, t, "live", "not-recorded")
	select {
	case <-dial.entered: // the idle timer is closing the upstream
	case <-ctx.Done():
		t.Fatal("the idle upstream was never closed")
	}
	closed := make(chan struct{})
	go func() { _ = fwd.Close(); close(closed) }()
	select {
	case <-closed:
		t.Error("Close returned while the idle upstream was still closing")
	case <-time.After(200 * time.Millisecond): // Close is waiting, as it should; a slow machine can only hide the bug, never fail here
	}
	close(dial.open)
	<-closed
}

// TestAnswerTimeout: an upstream that answers the handshake and then
// nothing fails the miss after AnswerTimeout with ErrAnswerTimeout, and is
// told so with notifications/cancelled for the request (which it reads,
// and which is recorded); the request no longer holds the upstream.
func TestAnswerTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seen := filepath.Join(t.TempDir(), "seen")
	mute := `read l; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"mute","version":"1"}}}'; while read l; do printf '%s\n' "$l" >> "$0"; done`
	r := newRig(t, transport.Stdio{Command: []string{"sh", "-c", mute, seen}}, func() string { return "n1" }, AnswerTimeout(100*time.Millisecond))
	fwd := r.fwd
	defer fwd.Close()
	c := r.miss(ctx, t, "live", "not-recorded")
	if fwd.Forwarded() != 0 || fwd.Failed() != 1 {
		t.Errorf("forwarded %d, failed %d; want 0 and 1", fwd.Forwarded(), fwd.Failed())
	}
	c.mu.Lock()
	answer := strings.Join(c.msgs, "\n")
	c.mu.Unlock()
	if !strings.Contains(answer, `"id":2`) || !strings.Contains(answer, "did not answer in time") {
		t.Errorf("the client's answer to the call does not say the upstream did not answer in time:\n%s", answer)
	}
	want := `"method":"notifications/cancelled","params":{"requestId":2,`
	for {
		b, _ := os.ReadFile(seen)
		if strings.Contains(string(b), want) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the upstream never got %s; it read:\n%s", want, b)
		case <-time.After(20 * time.Millisecond): // re-read the file
		}
	}
	if err := fwd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.tap.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.journal.String(), `notifications/cancelled`) {
		t.Errorf("the cancellation sent upstream is not recorded:\n%s", r.journal.String())
	}
}

// TestNoCancelOfInitialize: an upstream that never answers the
// initialize serve replays to it fails the miss after AnswerTimeout, but
// is not sent notifications/cancelled for initialize (MCP forbids
// cancelling it). Before, cancelUp sent and recorded one.
func TestNoCancelOfInitialize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	silent := `while read l; do printf '%s\n' "$l" >> "$0"; done`
	r := newRig(t, transport.Stdio{Command: []string{"sh", "-c", silent, filepath.Join(t.TempDir(), "seen")}}, func() string { return "n1" }, AnswerTimeout(100*time.Millisecond))
	c := r.miss(ctx, t, "live", "not-recorded")
	if r.fwd.Forwarded() != 0 || r.fwd.Failed() != 1 {
		t.Errorf("forwarded %d, failed %d; want 0 and 1", r.fwd.Forwarded(), r.fwd.Failed())
	}
	c.mu.Lock()
	answer := strings.Join(c.msgs, "\n")
	c.mu.Unlock()
	if !strings.Contains(answer, `"id":2`) {
		t.Errorf("the client got no answer to its call:\n%s", answer)
	}
	if err := r.fwd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.tap.Close(); err != nil {
		t.Fatal(err)
	}
	// cancelUp records its notification before it returns, so the
	// journal has it if one was sent.
	if j := r.journal.String(); !strings.Contains(j, `"method":"initialize"`) || strings.Contains(j, `notifications/cancelled`) {
		t.Errorf("want the initialize sent upstream recorded and no notifications/cancelled:\n%s", j)
	}
}
