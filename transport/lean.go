// The lean HTTP/1.1 client (leanClient) and the management of its
// connections: an idle one or a new dial for each call (get), the dials
// ahead that keep spare connections idle (ahead, dialAhead), giving one
// back (put) and closing them all.

package transport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// leanClient posts an HTTPConn's messages to a plain http:// target over
// HTTP/1.1 keep-alive connections of its own: the request's bytes are
// written straight to the connection and the answer's status line and
// headers parsed with what replayctl needs and nothing more. It costs
// less per request than net/http's client (no request or header copies,
// no per-request goroutine hand-offs, one context hook per send), which
// is most of the client's CPU against a fast server (issue 24).
//
// It is used for POSTs only, of one HTTPConn: the standalone GET stream,
// the session's DELETE, a slowed-down send, https, a proxy and a
// redirect go through net/http (see HTTPConn.post). Its connections
// belong to the HTTPConn; close ends them all, idle or in use.
type leanClient struct {
	addr  string // host:port, as dialed
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	spare int // idle connections kept dialed ahead (HTTP.Spare)
	// head is the start of every POST: the request line, Host,
	// User-Agent, Content-Type, Accept and the user's headers.
	head []byte

	// onHead, when set, is given each answer on its connection's
	// goroutine, with the stream it answers: true when it has read the
	// answer whole (see HTTPConn.answerNow).
	onHead func(*http.Response, *stream) bool
	// onStarted, when set, is given the result of each call that start
	// handed over, on its connection's goroutine (see start).
	onStarted func(k leanCall, r leanResult)
	wg        sync.WaitGroup // the connections' goroutines

	ctx    context.Context // the dials ahead's; close ends it
	cancel context.CancelFunc

	mu      sync.Mutex // guards the fields below
	idle    []*leanConn
	dialing int                    // dials ahead under way
	waiting int                    // sends in get waiting for one of them
	dialed  chan struct{}          // closed when the last of them ends
	open    map[*leanConn]struct{} // every connection not yet closed
	closed  bool
}

// leanIdle bounds the idle connections a leanClient keeps: as many as
// the requests of its session in flight at once, within reason.
const leanIdle = 16

// leanUserAgent is what net/http's client sends, so that a server sees
// the same client whichever is used.
const leanUserAgent = "Go-http-client/1.1"

// newLeanClient returns a lean client for u when a POST to it can take
// the lean path: an http:// URL, client's transport a plain
// *http.Transport that sends it through no proxy. nil otherwise.
func newLeanClient(u *url.URL, client *http.Client, header http.Header) *leanClient {
	t, ok := client.Transport.(*http.Transport)
	if client.Transport == nil {
		t, ok = http.DefaultTransport.(*http.Transport)
	}
	if !ok || u.Scheme != "http" || u.User != nil {
		return nil
	}
	if t.Proxy != nil {
		if p, err := t.Proxy(&http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}}); err != nil || p != nil {
			return nil
		}
	}
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	var h bytes.Buffer
	fmt.Fprintf(&h, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n", u.RequestURI(), u.Host, leanUserAgent)
	h.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	writeHeader(&h, header)
	ctx, cancel := context.WithCancel(context.Background())
	return &leanClient{addr: addr, dial: dial, head: h.Bytes(), open: map[*leanConn]struct{}{}, ctx: ctx, cancel: cancel}
}

// writeHeader writes h as header lines, but for those the lean client
// writes itself (as with net/http, the POST's own Content-Type and
// Accept win over the user's).
func writeHeader(w *bytes.Buffer, h http.Header) {
	for k, vs := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Content-Type", "Accept":
			continue
		}
		for _, v := range vs {
			fmt.Fprintf(w, "%s: %s\r\n", k, headerSafe(v))
		}
	}
}

// get is an idle connection, or a new one dialed under ctx. When a
// dial ahead is under way that no other send waits for, it waits for
// that connection rather than dial another (one waiter per dial: the
// others dial at once, so that k sends needing a connection take one
// dial's time, not k); taking the last idle one starts the dials ahead
// that keep spare connections idle (see ahead).
func (lc *leanClient) get(ctx context.Context) (*leanConn, error) {
	lc.mu.Lock()
	for lc.dialing > lc.waiting && len(lc.idle) == 0 && !lc.closed {
		dialed := lc.dialed
		lc.waiting++
		lc.mu.Unlock()
		var err error
		select {
		case <-dialed:
		case <-ctx.Done():
			err = ctx.Err()
		}
		lc.mu.Lock()
		lc.waiting--
		if err != nil {
			lc.mu.Unlock()
			return nil, err
		}
	}
	if lc.closed {
		lc.mu.Unlock()
		return nil, ErrClosed
	}
	if n := len(lc.idle); n > 0 {
		c := lc.idle[n-1]
		lc.idle = lc.idle[:n-1]
		lc.ahead()
		lc.mu.Unlock()
		c.reused = true
		return c, nil
	}
	lc.mu.Unlock()
	nc, err := lc.dial(noDeadline{ctx}, "tcp", lc.addr)
	if err != nil {
		return nil, err
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.closed {
		nc.Close()
		return nil, ErrClosed
	}
	c := lc.adopt(nc)
	lc.ahead()
	return c, nil
}

// adopt makes nc one of lc's connections and starts its goroutine. lc.mu
// is held and lc is not closed.
func (lc *leanClient) adopt(nc net.Conn) *leanConn {
	r, w := rawIO(nc)
	c := &leanConn{lc: lc, nc: nc, br: bufio.NewReaderSize(r, 4<<10), work: make(chan struct{}, 1), done: make(chan leanResult)}
	serve := c.serve
	if nw, ok := w.(nowWriter); ok {
		c.nw, serve = nw, c.serveDirect
		c.wake = sync.NewCond(&c.mu)
	} else {
		c.bw = bufio.NewWriterSize(w, 4<<10)
	}
	lc.open[c] = struct{}{}
	lc.wg.Add(1)
	go func() { defer lc.wg.Done(); serve() }()
	return c
}

// spawn runs fn on a goroutine that close waits for; false once lc is
// closed (fn does not run).
func (lc *leanClient) spawn(fn func()) bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.closed {
		return false
	}
	lc.wg.Go(fn)
	return true
}

// ahead starts dials on their own goroutines until spare connections
// are idle or being dialed, within leanIdle connections in all: a request
// sent while every other connection carries one then finds one ready,
// and its send does not wait for a dial (issue 24: a new connection
// sometimes took ~40 ms on a loaded machine). lc.mu is held.
func (lc *leanClient) ahead() {
	for !lc.closed && len(lc.idle)+lc.dialing < lc.spare && len(lc.open)+lc.dialing < leanIdle {
		if lc.dialing == 0 {
			lc.dialed = make(chan struct{})
		}
		lc.dialing++
		lc.wg.Add(1)
		go func() { defer lc.wg.Done(); lc.dialAhead() }()
	}
}

// dialAhead dials a spare connection and keeps it idle. A failure is
// not reported here: the next request that finds no connection dials
// on its own path and reports it.
func (lc *leanClient) dialAhead() {
	nc, err := lc.dial(lc.ctx, "tcp", lc.addr)
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.dialing--; lc.dialing == 0 {
		close(lc.dialed) // those waiting in get look again
	}
	if err != nil {
		return
	}
	if lc.closed {
		nc.Close()
		return
	}
	lc.idle = append(lc.idle, lc.adopt(nc))
}

// put keeps c for the next request, or closes it.
func (lc *leanClient) put(c *leanConn) {
	if c.direct() {
		if c.isBroken() {
			c.close()
			return
		}
		c.clearDeadline()
	}
	lc.mu.Lock()
	if !lc.closed && len(lc.idle) < leanIdle {
		lc.idle = append(lc.idle, c)
		lc.mu.Unlock()
		return
	}
	lc.mu.Unlock()
	c.close()
}

// close ends every connection, idle or in use: an answer being read
// ends with an error. Every call start handed over has ended (its
// result given to onStarted) when it returns: one no goroutine ended
// ends here with ErrClosed, so that no sender waits for ever on a closed
// client. That is the guard against a lost call, and also what happens
// when a sender's own write fails while the client closes: the call may
// end with ErrClosed before the sender's finish, which then finds it
// taken (its write error is not reported).
func (lc *leanClient) close() {
	lc.cancel() // the dials ahead
	lc.mu.Lock()
	lc.closed = true
	open := lc.open
	lc.open, lc.idle = map[*leanConn]struct{}{}, nil
	lc.mu.Unlock()
	for c := range open {
		c.shutDown()
		c.nc.Close()
	}
	lc.wg.Wait()
	for c := range open {
		if k, ok := c.endHanded(); ok {
			lc.onStarted(k, leanResult{err: ErrClosed})
		}
	}
}

func (c *leanConn) close() {
	c.shutDown()
	c.nc.Close()
	c.lc.mu.Lock()
	delete(c.lc.open, c)
	c.lc.mu.Unlock()
}

// giveBack is put, or, while a sender waits for serve, putLater.
func (c *leanConn) giveBack() {
	if c.direct() {
		c.bodyEnded()
	}
	if c.inCall {
		c.putLater = true
		return
	}
	c.lc.put(c)
}
