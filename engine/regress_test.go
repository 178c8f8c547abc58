package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
	"golang.org/x/sync/errgroup"
)

// fakeConn answers requests with a result; behaviour tunable.
type fakeConn struct {
	mu      sync.Mutex
	out     chan transport.Incoming
	done    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	delay   time.Duration
	skipRe  bool // never answer ids >= 1<<40
	note    bool // send a notification before each tools/call answer
	cancels int
	sent    []string
}

type fakeDialer struct {
	mk    func() *fakeConn
	mu    sync.Mutex
	conns []*fakeConn
}

func (d *fakeDialer) Dial(ctx context.Context, s string) (transport.Conn, error) {
	c := d.mk()
	c.out = make(chan transport.Incoming, 1024)
	c.done = make(chan struct{})
	d.mu.Lock()
	d.conns = append(d.conns, c)
	d.mu.Unlock()
	return c, nil
}

func (c *fakeConn) Send(ctx context.Context, msg []byte) error {
	rpc, err := jsonrpc.Parse(msg)
	c.mu.Lock()
	c.sent = append(c.sent, string(msg))
	if err == nil && rpc.Method == "notifications/cancelled" {
		c.cancels++
	}
	c.mu.Unlock()
	if err != nil || rpc.Kind != jsonrpc.KindRequest {
		return nil
	}
	if c.skipRe && len(rpc.ID) >= 13 {
		return nil
	}
	var ans string
	if rpc.Method == "initialize" {
		ans = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`, rpc.ID)
	} else {
		ans = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"Echo: message 1"}]}}`, rpc.ID)
	}
	d := c.delay
	if rpc.Method == "initialize" {
		d = 0
	}
	note := c.note && rpc.Method == "tools/call"
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if note {
			time.Sleep(d / 2)
			select {
			case c.out <- transport.Incoming{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`), At: time.Now()}:
			case <-c.done:
				return
			}
			time.Sleep(d / 2)
		} else if d > 0 {
			time.Sleep(d)
		}
		select {
		case c.out <- transport.Incoming{Msg: []byte(ans), At: time.Now()}:
		case <-c.done:
		}
	}()
	return nil
}
func (c *fakeConn) Incoming() <-chan transport.Incoming { return c.out }
func (c *fakeConn) Err() error                          { return nil }
func (c *fakeConn) Close() error {
	c.once.Do(func() { close(c.done); c.wg.Wait(); close(c.out) })
	return nil
}

func plan(t *testing.T, spec string) *chaos.Plan {
	f, err := chaos.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := chaos.NewPlan(1, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A resent request (network-error) the server never answers times out in
// turn: its new deadline is queued, and the replay ends.
func TestRegressionResendTimerHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: the delays below cost nothing and race nothing
		path := writeTape(t, t.TempDir(), 1, 1000, nil)
		d := &fakeDialer{mk: func() *fakeConn { return &fakeConn{skipRe: true} }}
		e, _ := New(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: d, Timeout: 200 * time.Millisecond, Chaos: plan(t, "network-error=1")})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		rep, err := e.Run(ctx)
		t.Logf("took %s err=%v timeouts=%+v", time.Since(start), err, rep.Validation)
		if err != nil {
			t.Errorf("run did not end after the 200ms timeout: %v", err)
		}
	})
}

// Notifications are compared only once nothing is in flight: one that
// comes with the last answer is not reported missing.
func TestRegressionNotesComparedTooEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: the delays below cost nothing and race nothing
		dir := t.TempDir()
		path := filepath.Join(dir, "t.jsonl")
		lines := []string{
			`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}`,
			`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`,
			`{"type":"message","seq":1,"t_us":50,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}}`,
			`{"type":"message","seq":2,"t_us":60,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
			`{"type":"message","seq":3,"t_us":100,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}`,
			`{"type":"message","seq":4,"t_us":150,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}}`,
			`{"type":"message","seq":5,"t_us":200,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Echo: message 1"}]}}}`,
		}
		os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		d := &fakeDialer{mk: func() *fakeConn { return &fakeConn{delay: 100 * time.Millisecond, note: true} }}
		e, _ := New(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: d, ValidateNotifications: true})
		var rs []report.Result
		e.OnResult(func(r report.Result) { rs = append(rs, r) })
		rep, err := e.Run(context.Background())
		for _, r := range rs {
			t.Logf("seq %d %s %s %s", r.Seq, r.Method, r.Verdict, r.Err)
		}
		t.Logf("err=%v passed=%d failed=%d", err, rep.Validation.Passed, rep.Validation.Failed)
		if rep.Validation.Failed > 0 {
			t.Errorf("the live notification came, yet it was reported missing")
		}
	})
}

// A slow-write request (a good server answers it as recorded) is not held
// to the short chaos wait: its 500ms answer is not cancelled.
func TestRegressionSlowWriteCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: the delays below cost nothing and race nothing
		path := writeTape(t, t.TempDir(), 1, 1000, nil)
		d := &fakeDialer{mk: func() *fakeConn { return &fakeConn{delay: 500 * time.Millisecond} }}
		e, _ := New(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: d, Chaos: plan(t, "slow-write=1")})
		var rs []report.Result
		e.OnResult(func(r report.Result) { rs = append(rs, r) })
		_, err := e.Run(context.Background())
		for _, r := range rs {
			t.Logf("seq %d %s %s %q answer=%d", r.Seq, r.Method, r.Verdict, r.Err, len(r.Answer))
		}
		if d.conns[0].cancels > 0 {
			t.Errorf("%d notifications/cancelled sent for a slow-write request answered in 500ms (err %v)", d.conns[0].cancels, err)
		}
	})
}

// A late answer after a timeout is not reported a second time as an error.
func TestRegressionLateAnswerTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: the delays below cost nothing and race nothing
		path := writeTape(t, t.TempDir(), 2, 1000, nil)
		d := &fakeDialer{mk: func() *fakeConn { return &fakeConn{delay: 150 * time.Millisecond} }}
		e, _ := New(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: d, Timeout: 100 * time.Millisecond})
		var rs []report.Result
		e.OnResult(func(r report.Result) { rs = append(rs, r) })
		// keep the run alive past the late answer: a second session is not
		// available, so just check results of a run on a longer tape.
		rep, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Seq < 0 {
				t.Errorf("a late answer was reported again: seq %d %s %q", r.Seq, r.Verdict, r.Err)
			}
		}
		if rep.Performance.Timeouts != 2 || rep.Performance.Errors != 0 {
			t.Errorf("timeouts %d errors %d, want 2 and 0", rep.Performance.Timeouts, rep.Performance.Errors)
		}
	})
}

// Debug mode reaches the end of the tape even when the last request has no
// recorded answer.
func TestRegressionDebugNoEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: the delays below cost nothing and race nothing
		dir := t.TempDir()
		path := filepath.Join(dir, "t.jsonl")
		lines := []string{
			`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}`,
			`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`,
			`{"type":"message","seq":1,"t_us":50,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}}`,
			`{"type":"message","seq":2,"t_us":60,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
			`{"type":"message","seq":3,"t_us":100,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}`,
		}
		os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		d := &fakeDialer{mk: func() *fakeConn { return &fakeConn{} }}
		e, _ := New(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: d})
		c := controller.New(e)
		e.Attach(c)
		var mu sync.Mutex
		var rs []string
		e.OnResult(func(r report.Result) { mu.Lock(); rs = append(rs, fmt.Sprint(r.Seq, r.Verdict)); mu.Unlock() })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error { return c.Run(gctx) })
		g.Go(func() error { _, err := e.Run(gctx); return err })
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		c.Resume(ctx)
		wctx, wcancel := context.WithTimeout(ctx, 3*time.Second)
		st, err := c.WaitStop(wctx)
		wcancel()
		mu.Lock()
		t.Logf("status %+v err %v results %v", st.State, err, rs)
		mu.Unlock()
		if err != nil {
			t.Errorf("the replay never reached Ended; seq 3 never judged")
		}
		cancel()
		g.Wait()
	})
}
