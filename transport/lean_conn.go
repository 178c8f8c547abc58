// A lean client's connection and its goroutine: leanConn, the calls
// handed to it (leanCall, leanResult), serve, which makes each call,
// start, which hands one over without waiting, and the context hook and
// socket deadline that bound a call.

package transport

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// leanConn is one connection of a leanClient. It carries one request at
// a time: from get until its answer's body is closed. Its own goroutine
// (serve) writes each request and reads its answer's head, so that the
// sender's goroutine — often new for each request — does not grow its
// stack through the network calls each time.
type leanConn struct {
	lc     *leanClient
	nc     net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	reused bool
	prev   []headerLine // the last answer's header lines, for their values
	// spare is the last answer, with its Header map and body, when
	// onHead read it whole (no one holds it after): the next answer is
	// read into it rather than into new ones. Used on serve's goroutine.
	spare *http.Response

	// The context hook (see begin): the end of the context whose Done
	// channel is hookDone aborts the call in flight when that call's
	// context has the same channel (live). mu guards these and shut.
	mu       sync.Mutex
	shut     bool            // work is closed: serve returns
	hookDone <-chan struct{} // nil: no hook
	hookStop func() bool     // removes the hook
	live     <-chan struct{} // the Done of the call in flight; nil between calls

	call leanCall        // the request serve is to make: written before work
	work chan struct{}   // tells serve of call (one slot: a send never waits); closed by shutDown
	done chan leanResult // serve's answer to each work of a call not started
	// inCall is set while a sender waits for serve: a body ended
	// meanwhile (a 202, a JSON answer read on serve's goroutine) sets
	// putLater rather than giving the connection back, which the sender
	// does once it is done with it (see roundTrip).
	inCall, putLater bool

	// nw: a direct connection (see direct): each call's sender writes
	// its request through nw, from wbuf; serve (serveDirect) only reads.
	// nil: serve writes it through bw.
	nw   nowWriter
	wbuf []byte
	// deadlineSet: nc has a deadline, which clearDeadline removes before
	// a direct connection goes idle. Set by begin and abort (mu held).
	deadlineSet bool
	// A direct connection's state between its senders, serve and the
	// bodies read elsewhere; guarded by mu. wake (on mu) tells serve of
	// the end of writing or held, and of shut.
	wake    *sync.Cond
	busy    bool  // a call is in flight whose answer serve is to read (see await)
	writing bool  // its sender is writing it still
	held    bool  // the last answer's body is read on another goroutine: serve waits for its end
	dead    error // what serve read while c was idle: its next call fails with it
	broken  bool  // the server reset c while a request was written: c is not kept

	// handed: a started call (see start) is in flight on c whose result
	// onStarted has not been given yet. Set by begin, guarded by mu; the
	// call's end (finish) takes it, or else the client's close (see
	// endHanded): a call handed over ends, once, whatever happens to c.
	handed bool
}

// leanCall is one request for a leanConn's goroutine to make.
type leanCall struct {
	msg     []byte
	sid, pv string
	std     http.Header
	st      *stream // what the answer answers, for onHead; nil for none

	// A call that start handed over without waiting: its context and
	// deadline, and done, for onStarted.
	started  bool
	ctx      context.Context
	deadline time.Time
	done     func(error)
}

// leanResult is what serve made of a leanCall.
type leanResult struct {
	resp    *http.Response
	handled bool // onHead read it whole
	err     error
	// again: the call failed on a kept-alive connection that the server
	// had closed before answering (it saw nothing of it): post would try
	// once more on a new connection (a started call only).
	again bool
}

// serve makes each request it is told of, until shutDown. It waits on
// one channel, not a select of two: a select's locks and wake-ups per
// request were ≈ 1% of a load replay's CPU (issue 24).
func (c *leanConn) serve() {
	for range c.work {
		k := c.call
		var r leanResult
		r.resp, r.err = c.exchange(k.msg, k.sid, k.pv, k.std)
		if r.err == nil && k.st != nil && c.lc.onHead != nil && !isRedirect(r.resp.StatusCode) {
			r.handled = c.lc.onHead(r.resp, k.st)
		}
		if r.handled { // read whole: neither the sender nor onStarted reads it
			c.spare, r.resp = r.resp, nil
		}
		if k.started {
			c.finish(k, r)
			continue
		}
		c.done <- r // the sender waits for it
	}
}

// start hands k to the goroutine of an idle connection and returns at
// once: the request is made as post makes it, bounded by ctx and
// deadline alike, and onStarted is given its result on that goroutine.
// false when no connection is idle or the client is closed: nothing was
// sent (post dials, and waits).
func (lc *leanClient) start(ctx context.Context, k leanCall, deadline time.Time) bool {
	lc.mu.Lock()
	n := len(lc.idle)
	if lc.closed || n == 0 {
		lc.mu.Unlock()
		return false
	}
	c := lc.idle[n-1]
	lc.idle = lc.idle[:n-1]
	lc.ahead() // as get does: the spare is kept whichever way a connection is taken
	lc.mu.Unlock()
	c.reused = true
	k.started, k.ctx, k.deadline = true, ctx, deadline
	c.call, c.inCall = k, true
	if !c.begin(ctx, socketDeadline(ctx, deadline)) { // closed meanwhile
		c.call, c.inCall = leanCall{}, false
		return false
	}
	if c.direct() {
		if err := c.writeCall(k, true); err != nil {
			c.failWrite(k, err)
		}
	}
	return true
}

// finish ends a started call on serve's goroutine as roundTrip and post
// end one, and gives its result to onStarted.
func (c *leanConn) finish(k leanCall, r leanResult) {
	c.mu.Lock()
	c.live = nil // as unwatch
	mine := c.handed
	c.handed = false
	c.mu.Unlock()
	if k.ctx.Err() != nil && !r.handled {
		r.err = k.ctx.Err()
	}
	c.call, c.inCall = leanCall{}, false
	if !mine { // the client's close ended it (endHanded): c is closed
		if r.resp != nil {
			_ = r.resp.Body.Close()
		}
		c.close()
		return
	}
	if r.err != nil {
		c.putLater = false
		c.close()
		r.again = c.reused && closedUnanswered(r.err) && k.ctx.Err() == nil
	} else if c.putLater { // the answer ended here: c is free
		c.putLater = false
		c.lc.put(c)
	} else {
		_ = c.nc.SetDeadline(time.Time{}) // the body is read for as long as it lasts (close ends it)
		c.deadlineSet = false
	}
	// c may be another sender's from here on: only k and r are used.
	c.lc.onStarted(k, r)
}

// abort makes c's pending read or write fail at once (ctx ended).
func (c *leanConn) abort() {
	_ = c.nc.SetDeadline(aLongTimeAgo)
	c.deadlineSet = true
}

// socketDeadline is the connection's deadline for a call bounded by ctx
// and by deadline (the zero time: none): deadline when it comes before
// ctx's, else none. ctx's end aborts the call (see abort), so that a
// call fails by ctx only once ctx is done, never by its deadline a moment
// before ctx's timer ends it.
func socketDeadline(ctx context.Context, deadline time.Time) time.Time {
	if d, ok := ctx.Deadline(); ok && !deadline.Before(d) {
		return time.Time{}
	}
	return deadline
}

// noDeadline is a context without the deadline of its own: a dial under
// it ends when that context is done, not by its deadline a moment before
// (as socketDeadline has it).
type noDeadline struct{ context.Context }

func (noDeadline) Deadline() (time.Time, bool) { return time.Time{}, false }

// begin hands serve the call in c.call: deadline becomes c's (the zero
// time: none), and the end of ctx aborts the call until unwatch. false
// when c is closed: nothing is handed over. The hook on ctx is made once
// per context rather than per call — a session's calls share theirs,
// and context.AfterFunc per call cost two allocations and a lock of the
// parent context each (issue 24) — and it aborts a call only while one
// under a context that ends with ctx is in flight.
func (c *leanConn) begin(ctx context.Context, deadline time.Time) bool {
	done := ctx.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shut {
		return false
	}
	if done != nil && done != c.hookDone {
		if c.hookStop != nil {
			c.hookStop()
		}
		c.hookDone = done
		c.hookStop = context.AfterFunc(ctx, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.live == done {
				c.abort()
			}
		})
	}
	c.live = done
	c.handed = c.call.started
	_ = c.nc.SetDeadline(deadline)
	c.deadlineSet = !deadline.IsZero()
	if done != nil && ctx.Err() != nil { // ended before: its hook ran with no call to abort
		c.abort()
	}
	if c.direct() { // its sender writes it (writeCall)
		c.busy, c.writing = true, true
		return true
	}
	c.work <- struct{}{} // never waits: a call is made only once serve has taken the one before
	return true
}

// unwatch ends begin's hold on the call: the hook leaves c alone from
// here on. It reports whether ctx has ended.
func (c *leanConn) unwatch(ctx context.Context) bool {
	c.mu.Lock()
	c.live = nil
	c.mu.Unlock()
	return ctx.Err() != nil
}

// shutDown ends serve, once it has made the call handed to it if any,
// and removes the context hook: c is closed.
func (c *leanConn) shutDown() {
	c.mu.Lock()
	stop := c.hookStop
	c.hookDone, c.hookStop = nil, nil
	if !c.shut {
		c.shut = true
		close(c.work)
		if c.wake != nil {
			c.wake.Signal()
		}
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// endHanded takes the started call still in flight on c, if any, once
// c is closed and its goroutines have ended (see leanClient.close): a
// call they did not end, which c's close must end. Its result is
// onStarted's to give.
func (c *leanConn) endHanded() (leanCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.handed {
		return leanCall{}, false
	}
	c.handed = false
	// c.call is the handed call's: its sender wrote it before begin
	// set handed, and finish clears it only after it took handed under
	// mu (the order, not the lock, keeps c.call valid here).
	return c.call, true
}

var aLongTimeAgo = time.Unix(1, 0)
