package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// stream is the state of one answer stream across its resumptions.
type stream struct {
	kind     string // "POST" (the answer to a request) or "GET" (standalone)
	init     bool   // it carries the initialize answer
	method   string // the method of the request it answers; "" for GET
	reqID    []byte // the id of the request it answers; nil for GET
	answered bool   // the answer to reqID has been delivered
	lastID   string // the last SSE event id seen
	retry    int64  // the server's reconnection time, ms
	why      error  // what was dropped or broke, in case the answer never comes
}

const (
	defaultReconnect  = 250 * time.Millisecond
	getReconnect      = time.Second // a standalone stream closed cleanly
	reconnectMaxTotal = 30 * time.Second
)

// readAnswer reads a POST answer: nothing (202), JSON, or an SSE stream.
// When the POST carried a request and its answer did not come, the
// answer is lost: the fault goes to onFault.
func (c *HTTPConn) readAnswer(resp *http.Response, st *stream) {
	switch mt := mediaType(resp); {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent || resp.ContentLength == 0:
		st.why = fmt.Errorf("HTTP %d with no body", resp.StatusCode)
		discard(resp)
	case mt == "application/json":
		c.readJSON(resp, st, c.deliver)
	case mt == "text/event-stream":
		c.readStream(resp, st)
	default:
		c.log.Warn().Int("status", resp.StatusCode).Str("content_type", resp.Header.Get("Content-Type")).
			Msg("answer is neither JSON nor an event stream; dropped")
		st.why = fmt.Errorf("HTTP %d with Content-Type %q, neither JSON nor an event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
		discard(resp)
	}
	if st.reqID != nil && !st.answered && !c.isClosing() {
		c.lost(st)
	}
}

// hasEvents reports whether a 2xx answer is an event stream to read
// (readAnswer's case of one).
func hasEvents(resp *http.Response) bool {
	return resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent &&
		resp.ContentLength != 0 && mediaType(resp) == "text/event-stream"
}

// readEventsHere is readAnswer of an event stream on the goroutine of
// the lean connection it came on, which has nothing else to do until
// the stream's end gives the connection back: no goroutine per answer
// (against a server that answers every request with a stream, as the
// go-sdk's does, one new goroutine, its stack grown through the read,
// and one more hand-off per request; issue 24). A stream that ends
// before its answer is resumed on a goroutine of its own, as readStream
// resumes one: the wait before the resumption is not for the
// connection's goroutine, whose connection may carry the next request
// by then. As on readAnswer's goroutine, the stream's messages are
// delivered as they come (a session slow to take them holds the stream,
// not a queue) and the end of the HTTPConn ends the read.
func (c *HTTPConn) readEventsHere(resp *http.Response, st *stream) {
	if !c.readEvents(resp, st) || st.reqID == nil || st.answered || c.isClosing() {
		return
	}
	_ = c.spawn(func() {
		c.readStream(c.reconnect(st), st)
		if !st.answered && !c.isClosing() {
			c.lost(st)
		}
	})
}

// alsoErr is err after first, on one line; err when first is nil.
func alsoErr(first, err error) error {
	if first == nil {
		return err
	}
	return fmt.Errorf("%w; %w", first, err)
}

// lost tells onFault that the answer to st's request will not come.
func (c *HTTPConn) lost(st *stream) {
	why := st.why
	if why == nil {
		why = errors.New("the answer holds no answer to the request")
	}
	err := fmt.Errorf("%w: POST %s (%s, id %s): %w", ErrTarget, c.url, st.method, st.reqID, why)
	c.log.Warn().Err(err).Msg("the answer to a request is lost")
	if c.onFault != nil {
		c.onFault(Fault{ID: st.reqID, Err: err})
	}
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, errorBodyBytes))
	_ = resp.Body.Close()
}

// readJSON delivers the message, or each message of a batch, of a JSON
// body. A body longer than the limit (after decompression), or announced
// so by its Content-Length, fails the connection unread.
func (c *HTTPConn) readJSON(resp *http.Response, st *stream, deliver func(Incoming) bool) {
	defer resp.Body.Close()
	over := resp.ContentLength > int64(c.limit) // said so before a byte is read
	var body []byte
	var err error
	if !over {
		body, over, err = readAtMost(resp.Body, c.limit, resp.ContentLength)
	}
	at := time.Now()
	if over {
		c.fail(&TooLargeError{What: fmt.Sprintf("the JSON body of an answer to %s %s", resp.Request.Method, c.url), Limit: c.limit})
		return
	}
	if err != nil {
		if !c.isClosing() {
			c.log.Warn().Err(err).Msg("reading JSON answer")
		}
		st.why = fmt.Errorf("reading the JSON answer: %w", err)
		return
	}
	var one [1][]byte // a body of one message: no slice of them made
	msgs, err := appendMessages(one[:0], body)
	if err != nil {
		c.log.Warn().Str("body", clip(body, 200)).Msg("JSON answer is not valid JSON; dropped")
		st.why = fmt.Errorf("the answer is not JSON: %q", clip(body, 200))
		return
	}
	meta := c.metaOf(resp)
	for _, m := range msgs {
		c.note(st, m)
		if !deliver(Incoming{Msg: m, At: at, HTTP: meta}) {
			return
		}
	}
}

// answerNow reads a lean 2xx answer on its connection's goroutine when
// it is all in hand already — no body (202), or a JSON body the
// connection has read whole — and gives its messages to drainOut: no
// goroutine per answer. It reports whether it did; else the answer is
// for readAnswer.
func (c *HTTPConn) answerNow(resp *http.Response, st *stream) bool {
	b, ok := resp.Body.(*leanBody)
	if !ok || resp.StatusCode < 200 || resp.StatusCode >= 300 || !b.inHand() {
		return false
	}
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent || resp.ContentLength == 0:
		st.why = fmt.Errorf("HTTP %d with no body", resp.StatusCode)
		_ = resp.Body.Close()
	case mediaType(resp) == "application/json" && resp.ContentLength <= int64(c.limit):
		c.readJSON(resp, st, c.enqueueF)
	default:
		return false
	}
	if st.reqID != nil && !st.answered && !c.isClosing() {
		_ = c.spawn(func() { c.lost(st) }) // onFault is called on a reading goroutine
	}
	return true
}

// enqueue delivers in at once when the session is waiting for it and
// nothing delivered earlier is still on its way (then no goroutine
// hand-off is made), else gives it to drainOut; true (it never waits).
func (c *HTTPConn) enqueue(in Incoming) bool {
	c.outMu.Lock()
	if c.outBusy == 0 {
		select {
		case c.in <- in: // in is closed only after the lean client's goroutines are gone
			c.outMu.Unlock()
			return true
		default:
		}
	}
	c.outq = append(c.outq, in)
	c.outBusy++
	c.outMu.Unlock()
	select {
	case c.outWake <- struct{}{}:
	default: // drainOut has been told already
	}
	return true
}

// drainOut delivers what enqueue gave it, in order, until Close.
func (c *HTTPConn) drainOut() {
	var batch []Incoming
	for {
		select {
		case <-c.outWake:
		case <-c.ctx.Done():
			return
		}
		c.outMu.Lock()
		batch, c.outq = c.outq, batch[:0]
		c.outMu.Unlock()
		for i, in := range batch {
			if !c.deliver(in) {
				return
			}
			batch[i] = Incoming{}
		}
		c.outMu.Lock()
		c.outBusy -= len(batch)
		c.outMu.Unlock()
	}
}

// readStream delivers an SSE stream's messages and resumes it when it
// drops, until it is done or Close.
func (c *HTTPConn) readStream(resp *http.Response, st *stream) {
	for resp != nil {
		if !c.readEvents(resp, st) {
			return
		}
		resp = c.reconnect(st)
	}
}

// readEvents delivers the messages of one SSE response; false on Close.
func (c *HTTPConn) readEvents(resp *http.Response, st *stream) bool {
	defer resp.Body.Close()
	meta := c.metaOf(resp)
	sr := NewSSEReader(resp.Body, MaxEventSize(c.limit))
	for {
		ev, err := sr.Next()
		if id := sr.LastEventID(); id != "" {
			st.lastID = id
		}
		if r := sr.RetryMS(); r > 0 {
			st.retry = r
		}
		if _, ok := errors.AsType[*TooLargeError](err); ok { // resuming would send it again
			c.fail(fmt.Errorf("the event stream of %s %s: %w", resp.Request.Method, c.url, err))
			return false
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !c.isClosing() {
				c.log.Debug().Err(err).Str("stream", st.kind).Msg("event stream broke")
				st.why = fmt.Errorf("the event stream broke: %w", err)
			}
			return !c.isClosing()
		}
		if ev.Event != "" && ev.Event != "message" {
			c.log.Debug().Str("event", ev.Event).Msg("ignored SSE event of another type")
			continue
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue // a priming event: an id for resumption, no message
		}
		if !jsonscan.Valid(ev.Data) { // json.Valid's verdict, at several times its speed
			c.log.Warn().Str("data", clip(ev.Data, 200)).Msg("SSE event data is not JSON; dropped")
			st.why = fmt.Errorf("an event of the stream is not JSON: %q", clip(ev.Data, 200))
			continue
		}
		c.note(st, ev.Data)
		in := Incoming{Msg: ev.Data, At: time.Now(), HTTP: meta,
			SSE: &tape.SSEMeta{ID: ev.ID, Event: ev.Event, Retry: ev.Retry}}
		if !c.deliver(in) {
			return false
		}
	}
}

// note records what a message means for its stream: the answer to the
// stream's request, and the protocol version of an initialize answer
// (kept before the answer is delivered, so the next request carries it).
func (c *HTTPConn) note(st *stream, msg []byte) {
	mi := inspect(msg)
	if mi.method != "" {
		return
	}
	if st.reqID != nil && bytes.Equal(mi.id, st.reqID) {
		st.answered = true
		if st.method == mcp.MethodToolsList && mi.result != nil {
			c.learnTools(mi.result)
		}
	}
	if st.init && mi.result != nil {
		if pv := protocolVersion(mi.result); pv != "" {
			c.mu.Lock()
			c.protocolVersion = pv
			// A session-based session from here on, even after a
			// stateless probe (a 2026-07-28 server/discover the server
			// refused, and the client fell back to initialize).
			c.stateless = ""
			c.mu.Unlock()
		}
	}
}

// reconnect reopens a stream that ended, when it should go on: a POST
// stream that ended before its answer (resumed with Last-Event-ID), or
// the standalone GET stream. It returns nil when the stream is done.
func (c *HTTPConn) reconnect(st *stream) *http.Response {
	if c.isClosing() || (st.kind == "POST" && (st.answered || st.reqID == nil)) {
		return nil
	}
	if st.kind == "POST" && st.lastID == "" {
		c.log.Warn().Str("id", string(st.reqID)).
			Msg("answer stream ended before the answer and carried no event ids, so it cannot be resumed")
		st.why = alsoErr(st.why, errors.New("the event stream ended before the answer and carried no event ids, so it cannot be resumed"))
		return nil
	}
	wait := time.Duration(st.retry) * time.Millisecond
	if wait <= 0 {
		wait = defaultReconnect
		if st.kind == "GET" && st.lastID == "" {
			wait = getReconnect
		}
	}
	b := backoff.NewExponentialBackOff(backoff.WithInitialInterval(wait), backoff.WithMaxElapsedTime(reconnectMaxTotal))
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
		return nil
	}
	resp, err := backoff.RetryWithData(func() (*http.Response, error) {
		resp, err := c.get(st.lastID)
		var he *HTTPError
		if errors.Is(err, errNoGET) || (errors.As(err, &he) && !he.Temporary()) {
			return nil, backoff.Permanent(err)
		}
		return resp, err
	}, backoff.WithContext(b, c.ctx))
	if err != nil {
		if !c.isClosing() {
			c.log.Warn().Err(err).Str("stream", st.kind).Str("last_event_id", st.lastID).Msg("could not resume event stream")
		}
		st.why = alsoErr(st.why, fmt.Errorf("the event stream ended before the answer and could not be resumed: %w", err))
		return nil
	}
	c.log.Debug().Str("stream", st.kind).Str("last_event_id", st.lastID).Msg("event stream resumed")
	return resp
}

// openGET opens the standalone server-to-client stream, once. It returns
// a channel closed when the server has answered the GET (the stream is
// open, or refused) or the connection has ended, at once if the stream
// was opened before.
func (c *HTTPConn) openGET() <-chan struct{} {
	ready := make(chan struct{})
	c.mu.Lock()
	opened := c.getOpened
	c.getOpened = true
	c.mu.Unlock()
	if opened {
		close(ready)
		return ready
	}
	err := c.spawn(func() {
		resp, err := c.get("")
		close(ready)
		switch {
		case errors.Is(err, errNoGET):
			c.log.Debug().Msg("server offers no standalone GET stream (405)")
		case err != nil:
			if !c.isClosing() {
				c.log.Warn().Err(err).Msg("could not open the standalone GET stream")
			}
		default:
			c.readStream(resp, &stream{kind: "GET"})
		}
	})
	if err != nil { // closing: fn will not run
		close(ready)
	}
	return ready
}

// getWait is the least time notifications/initialized waits for the
// standalone GET stream to open: a server that holds back a GET's headers
// (until its first event, as go-sdk's server did until its issue #410 was fixed) delays
// each session by that much, not for ever.
const getWait = 2 * time.Second

// getWaitPerInit is how many times the time the server took to answer
// initialize notifications/initialized waits for the GET stream, when
// that is longer than getWait: a loaded server answers its GET late too
// (server-everything, at a load average of 40, answered initialize in
// 0.7s and GETs past 2s; the tools/list_changed it sent as it handled
// initialized were lost).
const getWaitPerInit = 10

// getWaitFor is how long notifications/initialized waits for the
// standalone GET stream to open, the server having taken initTook to
// answer initialize: getWaitPerInit times that, getWait at least, and
// never more than half of left, the time the send has (a left of 0 or
// less with hasLeft: no wait; without hasLeft: no bound but those).
func getWaitFor(initTook, left time.Duration, hasLeft bool) time.Duration {
	w := max(getWait, getWaitPerInit*initTook)
	if hasLeft {
		w = max(0, min(w, left/2))
	}
	return w
}

// awaitGET opens the standalone GET stream and waits until the server has
// answered it, for getWaitFor at most, or until ctx is done. It is called
// before notifications/initialized is posted, as the go-sdk client does:
// a server often sends its first notifications (tools/list_changed, …)
// as it handles initialized, to the standalone stream if one is open
// (else they are dropped: the TypeScript SDK's server does so). deadline,
// if not zero, bounds the send as ctx's deadline does.
func (c *HTTPConn) awaitGET(ctx context.Context, deadline time.Time) {
	end, hasLeft := ctx.Deadline()
	if !deadline.IsZero() && (!hasLeft || deadline.Before(end)) {
		end, hasLeft = deadline, true
	}
	wait := getWaitFor(time.Duration(c.initTook.Load()), time.Until(end), hasLeft)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.openGET():
	case <-t.C:
		c.log.Debug().Dur("waited", wait).Msg("the standalone GET stream is not open yet; initialized is sent anyway")
	case <-ctx.Done():
	}
}

// get opens an event stream with GET, resuming after lastID if not "".
func (c *HTTPConn) get(lastID string) (*http.Response, error) {
	req, err := c.newRequest(c.ctx, http.MethodGet, nil, false)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set(HeaderLastEventID, lastID)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", c.url, err)
	}
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		discard(resp)
		return nil, errNoGET
	case resp.StatusCode >= 400:
		return nil, httpError(resp, c.url)
	case mediaType(resp) != "text/event-stream":
		discard(resp)
		return nil, backoff.Permanent(fmt.Errorf("GET %s: answer is %q, not an event stream", c.url, resp.Header.Get("Content-Type")))
	}
	return resp, nil
}

var errNoGET = errors.New("server offers no GET stream")
