package engine

// Sessions as actors, against real servers: concurrency, isolation of a
// stuck session, and every wait bounded.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// callScript is a client's session: the handshake, then n tools/call of
// the slow test server's echo tool.
func callScript(n int) [][]byte { return testtape.Conversation("echo", `{"text":"call %d"}`, n) }

// timedRun replays tapePath and returns its report and how long it took.
func timedRun(t *testing.T, cfg Config) (report.Report, time.Duration) {
	t.Helper()
	start := time.Now()
	rep, err := replay1(t, cfg)
	if err != nil {
		t.Fatalf("run with %d sessions: %v", cfg.Sessions, err)
	}
	return rep, time.Since(start)
}

// TestSessionsRunConcurrently: against a target that answers each
// tools/call after 200ms, 50 sessions run at once (they used to run one
// send at a time over HTTP, 50 times as long as one). The target holds
// every tools/call until it has 50 of them (slow's -gate, counted in an
// arrivals log all its processes share): each session waits for its
// call's answer before its next one, so the 50 held calls are one per
// session, and the replay passes only if all 50 sessions were in flight
// at once. The figures of 1 and 50 sessions are logged, not asserted: on
// a loaded machine starting 50 server processes (stdio) takes longer than
// the calls.
func TestSessionsRunConcurrently(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	const calls, sessions = 8, 50
	targets := []struct {
		name   string
		dialer func(t *testing.T, args ...string) transport.Dialer
	}{
		{"http", func(t *testing.T, args ...string) transport.Dialer {
			return transport.HTTP{URL: testserver.SlowHTTP(t, append([]string{"-delay", "200ms"}, args...)...)}
		}},
		{"stdio", func(t *testing.T, args ...string) transport.Dialer {
			return transport.Stdio{Command: testserver.Slow(t, append([]string{"-delay", "200ms"}, args...)...)}
		}},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			d := tg.dialer(t)
			tp := testtape.Record(t, d, tg.name, callScript(calls))
			for _, speed := range []scheduler.Speed{{Mode: scheduler.Fast}, {Mode: scheduler.Scaled, Factor: 10}} {
				t.Run(speed.String(), func(t *testing.T) {
					arrivals := filepath.Join(t.TempDir(), "arrivals")
					gated := tg.dialer(t, "-arrivals", arrivals, "-gate", strconv.Itoa(sessions))
					one, t1 := timedRun(t, Config{Tape: tp, Dialer: d, Speed: speed, Sessions: 1})
					// A generous timeout: the held calls wait for the last
					// session to start.
					many, t50 := timedRun(t, Config{Tape: tp, Dialer: gated, Speed: speed, Sessions: sessions, Timeout: 2 * time.Minute})
					for _, r := range []report.Report{one, many} {
						if r.Performance.Errors != 0 || r.Performance.Timeouts != 0 || r.Validation.Failed != 0 {
							t.Fatalf("errors %d, timeouts %d, failed %d: want none (%+v); with %d sessions a timeout means the target never had a call of every session at once", r.Performance.Errors, r.Performance.Timeouts, r.Validation.Failed, r.Errors, sessions)
						}
					}
					if got, want := many.Performance.Requests, int64(sessions*(calls+1)); got != want {
						t.Errorf("%d sessions sent %d requests, want %d", sessions, got, want)
					}
					b, err := os.ReadFile(arrivals)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := bytes.Count(b, []byte(" tools/call ")), sessions*calls; got != want {
						t.Errorf("the target logged %d tools/call, want %d", got, want)
					}
					t.Logf("1 session %s, %d sessions %s (%.2f×)", t1, sessions, t50, float64(t50)/float64(t1))
				})
			}
		})
	}
}

// routeDialer sends one session to one target and the rest to another.
type routeDialer struct {
	session     string
	stuck, rest transport.Dialer
}

func (d routeDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	if session == d.session {
		return d.stuck.Dial(ctx, session)
	}
	return d.rest.Dial(ctx, session)
}

// TestStuckSessionDoesNotDelayOthers: one session's target never takes its
// messages (like a server that never sends even the headers of its HTTP
// answer); the other sessions run to their last answer while the stuck
// one's sends are all still held. The stuck target is a gate the test
// controls: it lets go only once every answer of the other sessions has
// come, so a replayer that made the others wait for a stuck send would
// see no answer of theirs until its own timeout freed the send, and the
// test fails on that order, not on how long anything took. The timeout
// is only there to fail instead of hanging.
func TestStuckSessionDoesNotDelayOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	const calls, sessions = 5, 8
	good := transport.HTTP{URL: testserver.SlowHTTP(t, "-delay", "20ms")}
	tp := testtape.Record(t, good, "http", callScript(calls))
	stuck := newGateDialer()
	rest := &answerCounter{inner: good, want: (sessions - 1) * (calls + 1), gate: stuck}
	rep, err := replay1(t, Config{
		Tape: tp, Dialer: routeDialer{session: "s1#1", stuck: stuck, rest: rest},
		Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, Sessions: sessions, Timeout: 30 * time.Second,
		Order: OrderNone, // the stuck session's sends are not held by its own answers
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, s := range rep.PerSession {
		if s.Session != "s1#1" && (s.Errors > 0 || s.Timeouts > 0) {
			t.Errorf("session %s: %d errors, %d timeouts; want none", s.Session, s.Errors, s.Timeouts)
		}
	}
	held, freed := stuck.atRelease()
	if rest.answers() < rest.want {
		t.Fatalf("the other sessions got %d answers, want %d", rest.answers(), rest.want)
	}
	if held == 0 || freed != 0 {
		t.Errorf("when the other sessions had their %d answers the stuck session had %d sends held and %d ended by its timeout; want at least one held and none ended: the others waited for the stuck one", rest.want, held, freed)
	}
	// Let go, the stuck target answered each of its session's requests
	// with an error: each is judged, none timed out.
	found := false
	for _, s := range rep.PerSession {
		if s.Session == "s1#1" {
			found = true
			if s.Failed != calls+1 || s.Timeouts != 0 {
				t.Errorf("the stuck session: %d failed, %d timeouts; want its %d requests failed (answered with the test's error), none timed out", s.Failed, s.Timeouts, calls+1)
			}
		}
	}
	if !found {
		t.Errorf("no summary of the stuck session s1#1 in %+v", rep.PerSession)
	}
}

// gateDialer is a target that does not take a message until the test
// lets it: every Send is held until release is closed (then the target
// takes the message and answers a request with an error at once) or its
// ctx is done. It counts the sends held and those its ctx ended, as they stood
// when release was closed.
type gateDialer struct {
	release chan struct{}

	mu           sync.Mutex // guards the counts below
	held, freed  int        // sends in Send now; sends ended by their ctx
	heldAt       int        // held when release was closed
	freedAt      int        // freed when release was closed
	releasedOnce bool
}

func newGateDialer() *gateDialer { return &gateDialer{release: make(chan struct{})} }

func (d *gateDialer) Dial(ctx context.Context, _ string) (transport.Conn, error) {
	return &gateConn{d: d, in: make(chan transport.Incoming, 64)}, nil
}

// open closes release once, noting the counts at that moment.
func (d *gateDialer) open() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.releasedOnce {
		d.releasedOnce = true
		d.heldAt, d.freedAt = d.held, d.freed
		close(d.release)
	}
}

// atRelease returns the sends held and those ended by their ctx when the
// gate opened.
func (d *gateDialer) atRelease() (held, freed int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.heldAt, d.freedAt
}

type gateConn struct {
	d  *gateDialer
	in chan transport.Incoming // buffered: Send never waits for the reader

	mu       sync.Mutex // guards isClosed and sends on in
	isClosed bool
}

func (c *gateConn) Send(ctx context.Context, msg []byte) error {
	c.d.mu.Lock()
	c.d.held++
	c.d.mu.Unlock()
	defer func() {
		c.d.mu.Lock()
		c.d.held--
		c.d.mu.Unlock()
	}()
	select {
	case <-c.d.release:
	case <-ctx.Done():
		c.d.mu.Lock()
		c.d.freed++
		c.d.mu.Unlock()
		return ctx.Err()
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(msg, &req); err != nil || req.ID == nil || req.Method == "" {
		return nil // a notification or an answer: nothing to answer
	}
	answer := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"released by the test"}}`, req.ID)
	c.mu.Lock() // Close closes in: no send after it
	defer c.mu.Unlock()
	if c.isClosed {
		return nil
	}
	select {
	case c.in <- transport.Incoming{Msg: answer, At: time.Now()}:
		return nil
	default:
		return fmt.Errorf("gateConn: more than %d answers unread", cap(c.in))
	}
}

func (c *gateConn) Incoming() <-chan transport.Incoming { return c.in }
func (c *gateConn) Err() error                          { return nil }
func (c *gateConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isClosed {
		c.isClosed = true
		close(c.in)
	}
	return nil
}

// answerCounter passes on the connections of inner, counting the answers
// (messages with an id and no method) they receive; at the want-th it
// opens gate.
type answerCounter struct {
	inner transport.Dialer
	want  int
	gate  *gateDialer

	mu sync.Mutex // guards n
	n  int
}

func (a *answerCounter) answers() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

func (a *answerCounter) count(msg []byte) {
	if !bytes.Contains(msg, []byte(`"id"`)) || bytes.Contains(msg, []byte(`"method"`)) {
		return
	}
	a.mu.Lock()
	a.n++
	n := a.n
	a.mu.Unlock()
	if n == a.want {
		a.gate.open()
	}
}

func (a *answerCounter) Dial(ctx context.Context, session string) (transport.Conn, error) {
	c, err := a.inner.Dial(ctx, session)
	if err != nil {
		return nil, err
	}
	cc := &countedConn{Conn: c, a: a, out: make(chan transport.Incoming), stop: make(chan struct{}), done: make(chan struct{})}
	go cc.forward()
	return cc, nil
}

// countedConn is a connection whose incoming messages are counted on
// their way to the session.
type countedConn struct {
	transport.Conn
	a          *answerCounter
	out        chan transport.Incoming
	stop, done chan struct{}
	once       sync.Once
}

func (c *countedConn) forward() {
	defer close(c.done)
	defer close(c.out)
	for in := range c.Conn.Incoming() {
		c.a.count(in.Msg)
		select {
		case c.out <- in:
		case <-c.stop:
			return
		}
	}
}

func (c *countedConn) Incoming() <-chan transport.Incoming { return c.out }

func (c *countedConn) Close() error {
	c.once.Do(func() { close(c.stop) })
	err := c.Conn.Close()
	<-c.done
	return err
}

// blockingDialer never completes a dial: it waits for ctx.
type blockingDialer struct{}

func (blockingDialer) Dial(ctx context.Context, _ string) (transport.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestDialNeverCompletes: a connection that never comes up ends the replay
// within the timeout, as a failed target.
func TestDialNeverCompletes(t *testing.T) {
	e, err := New(Config{Tape: "../examples/quickstart.jsonl", Dialer: blockingDialer{}, Target: "blocking", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err = e.Run(ctx)
	if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "no connection within 300ms") {
		t.Fatalf("err = %v, want a failed target: no connection within the timeout", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the replay ran until the test's own deadline")
	}
}

// TestHTTPRequestsOfOneSessionOverlap: over HTTP a session does not wait
// for one answer's headers before its next request (order none: the
// recorded client did not wait either). The server holds every tools/call
// until all ten have arrived, then answers each a second later: a session
// that waited for an answer before its next request would never be
// answered (its calls time out); and the second each answer waits is not
// counted as the replayer's lag.
func TestHTTPRequestsOfOneSessionOverlap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	const calls, answerAfter = 10, time.Second
	var (
		mu      sync.Mutex
		arrived int
		all     = make(chan struct{})
	)
	slow := testserver.SlowHandler(answerAfter)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			mu.Lock()
			if arrived++; arrived == calls {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-r.Context().Done():
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		slow.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	d := transport.HTTP{URL: srv.URL + "/mcp"}
	tp := testtape.Record(t, transport.HTTP{URL: testserver.SlowHTTP(t)}, "http", callScript(calls))
	rep, _ := timedRun(t, Config{Tape: tp, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Order: OrderNone, Timeout: 30 * time.Second})
	if p := rep.Performance; p.Errors+p.Timeouts != 0 || rep.Validation.Passed != calls+1 {
		t.Fatalf("errors %d timeouts %d passed %d: want %d passed, each call sent before the one before it was answered (%+v)", p.Errors, p.Timeouts, rep.Validation.Passed, calls+1, rep.Errors)
	}
	if lag := rep.Performance.ScheduleLagMS.Max; lag >= float64(answerAfter.Milliseconds())/2 {
		t.Errorf("lag max %.1fms, half or more of the %s each answer waits: waiting for the target is not the replayer's lag", lag, answerAfter)
	}
}

// TestStdioAnswersWhileSending: a session writing many requests to a stdio
// server whose answers are large must not stall: the server blocks on its
// full stdout unless its answers are taken while the session writes, and
// would then stop reading its stdin.
func TestStdioAnswersWhileSending(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	d := transport.Stdio{Command: testserver.Slow(t)}
	big := strings.Repeat("x", 16<<10)
	msgs := callScript(0)
	for i := range 200 {
		msgs = append(msgs, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d %s"}}}`, i+1, i, big))
	}
	tp := testtape.Record(t, d, "stdio", msgs)
	rep, _ := timedRun(t, Config{Tape: tp, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Order: OrderNone, Timeout: 5 * time.Second})
	if rep.Validation.Passed != 201 || rep.Performance.Errors+rep.Performance.Timeouts != 0 {
		t.Fatalf("passed %d, errors %d, timeouts %d: want 201 passed (%+v)", rep.Validation.Passed, rep.Performance.Errors, rep.Performance.Timeouts, rep.Errors)
	}
}

// TestFailedTargetReportsOthersInFlight: when one session's target fails
// and the replay stops, the requests the other sessions had in flight are
// reported as failed, not lost from the report.
func TestFailedTargetReportsOthersInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	// The good server holds every answer far longer than the test runs,
	// and the fourth session's dead target is dialed only once the good
	// server has the other three sessions' tools/call (its arrivals
	// log): their calls are in flight when the target fails, however
	// slowly the machine brings them there.
	arrivals := filepath.Join(t.TempDir(), "arrivals")
	good := transport.HTTP{URL: testserver.SlowHTTP(t, "-delay", "5m", "-arrivals", arrivals)}
	tp := testtape.Record(t, transport.HTTP{URL: testserver.SlowHTTP(t)}, "http", callScript(1))
	dead := afterCalls{path: arrivals, n: 3, d: transport.Stdio{Command: []string{"sh", "-c", "exit 7"}}}
	e, err := New(Config{
		Tape: tp, Dialer: routeDialer{session: "s1#4", stuck: dead, rest: good},
		Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, Sessions: 4, Ramp: 400 * time.Millisecond, Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Run(t.Context())
	if !errors.Is(err, ErrTarget) {
		t.Fatalf("err = %v, want the failed target", err)
	}
	lost := map[string]bool{}
	for _, x := range rep.Errors {
		if x.Method == "tools/call" {
			lost[x.Session] = true
		}
	}
	for _, s := range []string{"s1#1", "s1#2", "s1#3"} {
		if !lost[s] {
			t.Errorf("session %s: its tools/call in flight is not reported (errors: %+v)", s, rep.Errors)
		}
	}
}

// afterCalls dials d once the slow server's arrivals log at path has n
// tools/call.
type afterCalls struct {
	path string
	n    int
	d    transport.Dialer
}

func (a afterCalls) Dial(ctx context.Context, session string) (transport.Conn, error) {
	for {
		b, _ := os.ReadFile(a.path) // not there yet: no call arrived
		if bytes.Count(b, []byte(" tools/call ")) >= a.n {
			return a.d.Dial(ctx, session)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// holdingCalls is the slow test server's endpoint in process, except
// that each tools/call is given to held and gets no answer: its request
// ends when held returns.
func holdingCalls(t *testing.T, held func(r *http.Request)) *httptest.Server {
	t.Helper()
	slow := testserver.SlowHandler(0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			held(r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		slow.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInterruptReportsInFlight: a replay interrupted (its context
// cancelled, as Ctrl-C does) while requests are in flight reports them, as
// sent and failed. The server holds each tools/call until the client goes
// away; the replay is interrupted once all three have arrived.
func TestInterruptReportsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	const sessions = 3
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n, err := interruptedCalls(t, ctx, sessions, cancel)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the run's context", err)
	}
	if n != sessions {
		t.Errorf("%d tools/call reported as interrupted, want %d", n, sessions)
	}
}

// interruptedCalls replays sessions sessions of one tools/call each, in
// fast mode, against a server that holds every tools/call until the
// client goes away, and calls stop once all have arrived. It returns how
// many tools/call the report gives as interrupted (logging the report's
// errors) and Run's error.
func interruptedCalls(t *testing.T, ctx context.Context, sessions int, stop func()) (int, error) {
	t.Helper()
	var (
		mu      sync.Mutex
		arrived int
	)
	srv := holdingCalls(t, func(r *http.Request) {
		mu.Lock()
		if arrived++; arrived == sessions {
			stop()
		}
		mu.Unlock()
		<-r.Context().Done() // held until the client gives up on it
	})
	tp := testtape.Record(t, transport.HTTP{URL: testserver.SlowHTTP(t)}, "http", callScript(1))
	e, err := New(Config{Tape: tp, Dialer: transport.HTTP{URL: srv.URL + "/mcp"}, Speed: scheduler.Speed{Mode: scheduler.Fast}, Sessions: sessions})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Run(ctx)
	n := 0
	for _, x := range rep.Errors {
		if x.Method == "tools/call" && strings.Contains(x.Message, "interrupted") {
			n++
		}
	}
	if n != sessions {
		t.Logf("the report's errors: %+v", rep.Errors)
	}
	return n, err
}

// lateCtx is a run's context whose deadline has passed before it is done:
// as a context.WithDeadline is, under load, for the moment between its
// deadline and its timer firing; here until expire is called. A socket
// deadline taken from Deadline would fire in that moment.
type lateCtx struct {
	deadline time.Time
	done     chan struct{}
	once     sync.Once
}

func newLateCtx(deadline time.Time) *lateCtx {
	return &lateCtx{deadline: deadline, done: make(chan struct{})}
}

func (c *lateCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *lateCtx) Done() <-chan struct{}       { return c.done }
func (c *lateCtx) Value(any) any               { return nil }
func (c *lateCtx) expire()                     { c.once.Do(func() { close(c.done) }) }

func (c *lateCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestInterruptAtDeadlineReportsInFlight: a replay whose context's
// deadline passes while requests are in flight reports them as
// interrupted, and ends with the context's error. The context's deadline
// has passed from the start, but it is done only once all three
// tools/call have arrived (as a context.WithDeadline is, under load, for
// the moment between its deadline and its timer): a send never fails by
// the run's deadline before the run's context is done (the HTTP
// connection takes no socket deadline from it), so the handshakes go
// through and the calls are interrupted, not timed out by the replay's
// own timeout (30s).
func TestInterruptAtDeadlineReportsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	const sessions = 3
	ctx := newLateCtx(time.Now().Add(-time.Millisecond))
	defer time.AfterFunc(30*time.Second, ctx.expire).Stop() // never hang
	n, err := interruptedCalls(t, ctx, sessions, ctx.expire)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the run's context", err)
	}
	if n != sessions {
		t.Errorf("%d tools/call reported as interrupted, want %d", n, sessions)
	}
}
