// A lean connection whose requests its senders write themselves
// (direct): its goroutine only reads, waiting in a read of the socket
// for the next answer (serveDirect), as net/http's readLoop does. The
// request is written on the sender's goroutine without waiting
// (writeCall); the part a full socket buffer does not take is written on
// a goroutine of its own, bounded by the call's deadline.
//
// Why (issue 24): handing each request to the connection's goroutine
// woke that goroutine once per request, and on two processors that
// wake-up also woke an idle processor's thread which found nothing to
// run — one context switch per request for nothing. With the connection's
// goroutine already waiting in its read, the network poller's wake-up
// for the answer is the only one.

package transport

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"syscall"
	"time"
)

// nowWriter writes without waiting (rawWriter, on Linux).
type nowWriter interface {
	io.Writer
	// WriteNow writes what of p the connection takes without waiting for
	// it to take more: fewer bytes than p, and a nil error, when the rest
	// would wait.
	WriteNow(p []byte) (int, error)
}

// direct reports whether c's senders write its requests (nw is set:
// the connection writes without waiting), its goroutine only reading.
func (c *leanConn) direct() bool { return c.nw != nil }

// errIdleBytes is what a connection is left with when its server wrote
// to it while no request was in flight: its next call fails.
var errIdleBytes = errors.New("the server sent bytes on an idle connection")

// errIdleEnded wraps what ended a connection's read while it was idle
// (c.dead): the next call fails with it before a byte of it is written,
// so it may go on a new connection whatever ended the read — a server's
// close, a reset, unasked bytes, or a deadline left from the last call,
// which passed between its answer and the connection's return to the
// idle ones (put clears it).
var errIdleEnded = errors.New("the connection ended while idle")

// directInline bounds the body copied into the request's buffer with its
// head, so that the request goes out in one write; a longer one is
// written after the head, from where it is.
const directInline = 16 << 10

// serveDirect reads the answer of each call its senders write, until c
// is closed. Between calls it waits in a read: a server's close of the
// idle connection (or bytes it sent unasked) is kept for the next call,
// which fails with it as it would have failed writing to it (a closed
// kept-alive connection is tried again on a new one).
func (c *leanConn) serveDirect() {
	for {
		_, err := c.br.Peek(1)
		k, ok := c.await(err)
		if !ok {
			return
		}
		var r leanResult
		if err != nil {
			r.err = &noAnswerError{err}
		} else {
			r.resp, r.err = c.readAnswerHead()
		}
		if r.err == nil {
			c.mu.Lock()
			c.held = !r.resp.Body.(*leanBody).released
			c.mu.Unlock()
		}
		if r.err == nil && k.st != nil && c.lc.onHead != nil && !isRedirect(r.resp.StatusCode) {
			r.handled = c.lc.onHead(r.resp, k.st)
		}
		if r.handled { // read whole: neither the sender nor onStarted reads it
			c.spare, r.resp = r.resp, nil
		}
		if k.started {
			c.finish(k, r)
		} else {
			c.done <- r // the sender waits for it
		}
		if !c.awaitBody() {
			return
		}
	}
}

// await is the call whose answer serve reads next, once its sender has
// written it, after a read that found bytes to read or failed (err).
// false when there is none: c is closed, or it was idle and err (or
// errIdleBytes) is kept for its next call. A write always ends (wrote,
// endWrite): the call's deadline bounds it, and closing c fails it.
func (c *leanConn) await(err error) (leanCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.writing { // the answer came before its sender was done writing
		c.wake.Wait()
	}
	switch {
	case c.busy:
		c.busy = false
		return c.call, true
	case c.shut:
		return leanCall{}, false
	}
	if err == nil {
		err = errIdleBytes
	}
	c.dead = fmt.Errorf("%w: %w", errIdleEnded, err)
	return leanCall{}, false
}

// awaitBody waits until the last answer's body, read on another
// goroutine, has ended; false when c is closed with no call in flight.
// A call may be in flight however soon c was closed: the body's end
// gave c back before serve came here, and a sender took it and wrote
// its call. serve then reads on (its read fails on the closed socket)
// and ends that call (see await); returning would leave it unended, its
// sender waiting for ever (a started call's done never called).
func (c *leanConn) awaitBody() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.held && !c.shut {
		c.wake.Wait()
	}
	return !c.shut || c.busy
}

// bodyEnded tells serve that the answer's body is read to its end: it
// reads from c again.
func (c *leanConn) bodyEnded() {
	c.mu.Lock()
	c.held = false
	c.wake.Signal()
	c.mu.Unlock()
}

// writeCall writes k, the call begin handed to c, on its sender's
// goroutine. A started call's write never waits: what the socket does
// not take at once is written on a goroutine of its own, until the
// call's deadline; a failure ends the call there (failWrite). A call its
// sender waits for (now false) is written whole here. It returns the
// error of a write that failed here, or of the connection's end while
// idle, for the caller to end the call with (failWrite).
func (c *leanConn) writeCall(k leanCall, now bool) error {
	c.mu.Lock()
	dead := c.dead
	c.mu.Unlock()
	if dead != nil {
		return dead
	}
	c.wbuf = c.appendRequest(c.wbuf[:0], k)
	var body []byte
	if len(k.msg) > directInline {
		body = k.msg
	} else {
		c.wbuf = append(c.wbuf, k.msg...)
	}
	if !now {
		return c.writeWaiting(c.wbuf, body)
	}
	n, err := c.nw.WriteNow(c.wbuf)
	head := c.wbuf[n:]
	if err == nil && len(head) == 0 && len(body) > 0 {
		n, err = c.nw.WriteNow(body)
		body = body[n:]
	}
	switch {
	case err != nil && !c.resetWhileWriting(err):
		return err
	case err != nil || len(head) == 0 && len(body) == 0:
		c.wrote()
		return nil
	}
	rest := func() {
		if err := c.writeWaiting(head, body); err != nil {
			c.failWrite(k, err)
		}
	}
	if !c.lc.spawn(rest) {
		return ErrClosed
	}
	return nil
}

// writeWaiting writes head, then body, waiting as long as the call's
// deadline lets it: the whole request of a call its sender waits for, or
// what the socket did not take at once of a started call. Once they are
// written, or the server reset c meanwhile (resetWhileWriting), the
// answer is serve's to read (wrote); else it returns the error, for the
// caller to end the call with.
func (c *leanConn) writeWaiting(head, body []byte) error {
	for _, p := range [][]byte{head, body} {
		if len(p) == 0 {
			continue
		}
		if _, err := c.nw.Write(p); err != nil {
			if c.resetWhileWriting(err) {
				break
			}
			return err
		}
	}
	c.wrote()
	return nil
}

// resetWhileWriting reports whether err, a failed write of the call in
// flight, is the server's reset of the connection (ECONNRESET, EPIPE).
// Then the call's end is serve's to tell, as for a request written
// whole: the server may have answered before it reset — a refusal of a
// long request (413) it did not read — and a request answered is not
// sent again; a reset with no answer before it ends the call as
// unanswered, which may be sent again. c is not kept after that answer
// (see put): its writes fail.
func (c *leanConn) resetWhileWriting(err error) bool {
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		return false
	}
	c.mu.Lock()
	c.broken = true
	c.mu.Unlock()
	return true
}

// isBroken reports whether a write to c failed (resetWhileWriting).
func (c *leanConn) isBroken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// wrote tells serve that the call in flight is written: its answer is
// serve's to read.
func (c *leanConn) wrote() {
	c.mu.Lock()
	c.writing = false
	c.wake.Signal()
	c.mu.Unlock()
}

// failWrite ends a started call whose request could not be written
// (err), as serve ends one whose write failed: c is closed, and a
// kept-alive connection the server had closed is tried again.
func (c *leanConn) failWrite(k leanCall, err error) {
	c.endWrite()
	c.finish(k, leanResult{err: &noAnswerError{err}})
}

// endWrite takes back the call in flight whose write failed: serve does
// not read its answer.
func (c *leanConn) endWrite() {
	c.mu.Lock()
	c.busy, c.writing = false, false
	c.wake.Signal()
	c.mu.Unlock()
}

// appendRequest appends k's request line and headers to b.
func (c *leanConn) appendRequest(b []byte, k leanCall) []byte {
	b = append(b, c.lc.head...)
	line := func(key, v string) {
		b = append(b, key...)
		b = append(b, ": "...)
		b = append(b, headerSafe(v)...)
		b = append(b, "\r\n"...)
	}
	if k.sid != "" {
		line(HeaderSessionID, k.sid)
	}
	if k.pv != "" && k.std[HeaderProtocolVersion] == nil {
		line(HeaderProtocolVersion, k.pv)
	}
	for key, vs := range k.std {
		for _, v := range vs {
			line(key, v)
		}
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(k.msg)), 10)
	return append(b, "\r\n\r\n"...)
}

// clearDeadline removes the last call's deadline from a direct
// connection before it goes idle: its read between calls has none.
func (c *leanConn) clearDeadline() {
	if c.deadlineSet {
		c.deadlineSet = false
		_ = c.nc.SetDeadline(time.Time{})
	}
}
