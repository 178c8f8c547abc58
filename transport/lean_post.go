// The lean client's per-call path: post takes a connection and retries
// once on a new one when a kept-alive connection was closed unanswered;
// roundTrip hands the call to the connection's goroutine and waits;
// exchange writes the request's bytes and reads the answer's head.

package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// headerSafe is v with the bytes that would end a header line (CR, LF)
// replaced by spaces, as net/http's header writer does.
func headerSafe(v string) string {
	if !strings.ContainsAny(v, "\r\n") {
		return v
	}
	b := []byte(v)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// post sends one POST, k: k.msg as its body, the session id k.sid and
// protocol version k.pv (each unless "") and k.std (the standard headers of
// a stateless session; nil for none) as its own headers, and returns the answer
// once its status line and headers are read, or true when onHead read
// it whole (given k.st, what it answers; nil for none). Its body is read after, on
// any goroutine; closing it gives the connection back. ctx bounds the
// wait for the headers (its end fails the request), and so does deadline
// (the zero time: none; see socketDeadline). A connection kept alive from an earlier request that the
// server closed before answering (it sees nothing of it) is retried once
// on a new connection (not at all when ctx carries sentOnceMore).
func (lc *leanClient) post(ctx context.Context, k leanCall, deadline time.Time) (*http.Response, bool, error) {
	again := ctx.Value(sentOnceMore{}) == nil
	for tries := 0; ; tries++ {
		c, err := lc.get(ctx)
		if err != nil {
			return nil, false, err
		}
		resp, handled, err := c.roundTrip(ctx, k, deadline)
		if err == nil {
			return resp, handled, nil
		}
		c.close()
		if !c.reused || !closedUnanswered(err) || ctx.Err() != nil || tries == leanIdle {
			return nil, false, err
		}
		// Written once more at most: the next connection may be a
		// spare the server closes likewise, and a server that closes on
		// reading this request would be sent it again on every one. A
		// connection found closed before the request was written to it
		// (errIdleEnded) is passed over: a keep-alive timeout closes
		// every idle one at once.
		if !errors.Is(err, errIdleEnded) {
			if !again {
				return nil, false, err
			}
			again = false
		}
	}
}

// sentOnceMore is the key of a context value that marks a call sent
// once more after a kept-alive connection closed unanswered (a started
// call's, see startedAnswer): post does not send it again.
type sentOnceMore struct{}

// closedUnanswered reports whether err is a kept-alive connection closed
// by the server before a byte of the answer: the end of the stream, or a
// reset; or one whose read ended while it was idle, which the request
// was not written to (errIdleEnded).
func closedUnanswered(err error) bool {
	var ne *noAnswerError
	return errors.As(err, &ne) && (errors.Is(ne.err, io.EOF) || errors.Is(ne.err, syscall.ECONNRESET) || errors.Is(ne.err, syscall.EPIPE) ||
		errors.Is(ne.err, errIdleEnded))
}

// noAnswerError is a failure before the first byte of the answer.
type noAnswerError struct{ err error }

func (e *noAnswerError) Error() string {
	if errors.Is(e.err, io.EOF) {
		return "the server closed the connection before answering"
	}
	return e.err.Error()
}
func (e *noAnswerError) Unwrap() error { return e.err }

// roundTrip has serve make k and waits for it. deadline, when it comes
// before ctx's, is the connection's, and ctx's end aborts the wait (see
// abort). On an error the caller closes c.
func (c *leanConn) roundTrip(ctx context.Context, k leanCall, deadline time.Time) (*http.Response, bool, error) {
	c.call, c.inCall = k, true
	var r leanResult
	if c.begin(ctx, socketDeadline(ctx, deadline)) {
		var err error
		if c.direct() { // else serve writes it
			err = c.writeCall(k, false)
		}
		if err != nil {
			c.endWrite()
			r.err = &noAnswerError{err}
		} else {
			r = <-c.done
		}
	} else {
		r.err = ErrClosed
	}
	c.call = leanCall{}
	if c.unwatch(ctx) && !r.handled {
		r.err = ctx.Err()
	}
	c.inCall = false
	if r.err != nil {
		c.putLater = false // closed by the caller
		return nil, false, r.err
	}
	if c.putLater { // the answer ended on serve's goroutine
		c.putLater = false
		c.lc.put(c)
	} else {
		_ = c.nc.SetDeadline(time.Time{}) // the body is read for as long as it lasts (close ends it)
		c.deadlineSet = false
	}
	return r.resp, r.handled, nil
}

// exchange writes the request and reads the answer's head.
func (c *leanConn) exchange(msg []byte, sid, pv string, std http.Header) (*http.Response, error) {
	w := c.bw
	w.Write(c.lc.head)
	line := func(k, v string) {
		w.WriteString(k)
		w.WriteString(": ")
		w.WriteString(headerSafe(v))
		w.WriteString("\r\n")
	}
	if sid != "" {
		line(HeaderSessionID, sid)
	}
	if pv != "" && std[HeaderProtocolVersion] == nil {
		line(HeaderProtocolVersion, pv)
	}
	for k, vs := range std {
		for _, v := range vs {
			line(k, v)
		}
	}
	w.WriteString("Content-Length: ")
	w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(len(msg)), 10)) // no buffer of its own to allocate
	w.WriteString("\r\n\r\n")
	w.Write(msg)
	if err := w.Flush(); err != nil {
		return nil, &noAnswerError{err}
	}
	return c.readAnswerHead()
}

// readAnswerHead reads the answer's head (after any 1xx), into the
// last answer read whole if there is one (c.spare), and makes its body.
func (c *leanConn) readAnswerHead() (*http.Response, error) {
	into := c.spare
	c.spare = nil
	var body *leanBody
	if into != nil {
		body, _ = into.Body.(*leanBody)
	}
	for {
		resp, err := readHeadInto(c.br, &c.prev, into)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 { // 100 Continue and the like: the answer follows
			continue
		}
		b := newLeanBodyIn(c, resp, body)
		b.release() // an answer with no body (202) gives the connection back now
		resp.Body = b
		return resp, nil
	}
}
