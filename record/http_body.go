package record

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// jsonTap relays an application/json answer and records it when it has
// passed whole: one message, or a batch as it came. It keeps at most the
// message limit of it; a longer body is relayed and not recorded.
type jsonTap struct {
	ex   *exchange
	size int64 // Content-Length, or -1
	read int64
	rc   io.ReadCloser
	meta *tape.HTTPMeta
	enc  string // Content-Encoding
	buf  []byte
	over bool
	once sync.Once
}

func newJSONTap(ex *exchange, rc io.ReadCloser, meta *tape.HTTPMeta, enc string, size int64) *jsonTap {
	t := &jsonTap{ex: ex, rc: rc, meta: meta, enc: enc, size: size}
	if size > 0 && size <= int64(ex.p.limit) {
		t.buf = make([]byte, 0, size)
	}
	return t
}

// Read relays the body and keeps a copy of it. At its end — its last
// byte by Content-Length, before the client has it, or the end of the
// stream — it records it.
func (t *jsonTap) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	t.read += int64(n)
	if n > 0 && !t.over {
		if len(t.buf)+n > t.ex.p.limit {
			t.over, t.buf = true, nil
		} else {
			t.buf = append(t.buf, b[:n]...)
		}
	}
	if err == io.EOF || (t.size > 0 && t.read == t.size) {
		t.finish(true)
	}
	return n, err
}

// Close closes the upstream body; an answer cut short is not recorded.
func (t *jsonTap) Close() error {
	err := t.rc.Close()
	t.finish(false)
	return err
}

func (t *jsonTap) finish(whole bool) {
	t.once.Do(func() {
		defer t.ex.settle()
		defer t.ex.flushHeld()
		p, session := t.ex.p, t.ex.session
		switch {
		case !whole:
			p.log.Debug().Str("session", session).Msg("a JSON answer cut short: not recorded")
			return
		case t.over:
			p.drop(session, "a JSON answer over the message limit")
			return
		}
		body := t.buf
		if len(bytes.TrimSpace(body)) == 0 {
			return
		}
		var ok bool
		if body, ok = decode(body, t.enc, p.limit); !ok {
			p.drop(session, "a JSON answer in Content-Encoding "+t.enc+", over the limit once decoded or not decodable")
			return
		}
		t.ex.answer(time.Now(), bytes.TrimSpace(body), t.meta, nil)
	})
}

// decode undoes a Content-Encoding the proxy can read (gzip), keeping
// the result within limit.
func decode(body []byte, enc string, limit int) ([]byte, bool) {
	switch enc {
	case "", "identity":
		return body, true
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false
		}
		out, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
		if err != nil || len(out) > limit {
			return nil, false
		}
		return out, true
	}
	return nil, false
}

// sseTap relays a text/event-stream answer byte for byte and parses a
// copy of what passes with transport.SSEReader, as it passes: each Read
// hands the bytes it read to the reader and records every event they
// complete (its message, SSE id, event type and retry) before it returns
// them, so that an answer is on the tape before the client can act on it.
// Memory is bounded by the reader's limit (one event); the stream is
// never held whole. No goroutine: the handler's own Read does it all.
//
// A gzip-encoded stream is relayed but not recorded (noted): a
// decompressor cannot be resumed between two reads.
type sseTap struct {
	ex     *exchange
	rc     io.ReadCloser
	meta   *tape.HTTPMeta
	feed   feed
	sr     *transport.SSEReader // nil once the parse is over
	closed sync.Once
}

func newSSETap(ex *exchange, rc io.ReadCloser, meta *tape.HTTPMeta, enc string) *sseTap {
	t := &sseTap{ex: ex, rc: rc, meta: meta}
	switch enc {
	case "", "identity":
		t.sr = transport.NewSSEReader(&t.feed, transport.MaxEventSize(ex.p.limit))
	default:
		ex.p.drop(ex.session, "an SSE stream in Content-Encoding "+enc)
	}
	return t
}

// Read relays the stream; what it read is parsed and recorded first.
func (t *sseTap) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if t.sr != nil {
		t.feed.b, t.feed.end = b[:n], err
		t.parse()
		t.feed.b = nil // b is the caller's
	}
	if err != nil {
		t.finish()
	}
	return n, err
}

// parse records the events the fed bytes complete.
func (t *sseTap) parse() {
	p := t.ex.p
	for {
		ev, err := t.sr.Next()
		if errors.Is(err, transport.ErrWait) {
			return
		}
		if err != nil {
			var tl *transport.TooLargeError
			if errors.As(err, &tl) {
				// Only this event: the rest of the stream (its answer)
				// is still recorded.
				p.drop(t.ex.session, "an SSE event over the message limit (--max-message)")
				t.sr.SkipEvent()
				continue
			}
			t.sr = nil
			return
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || ev.Event == "endpoint" {
			continue // a priming event, a keep-alive, the legacy endpoint
		}
		var meta *tape.SSEMeta
		if ev.ID != "" || ev.Event != "" || ev.Retry != 0 {
			meta = &tape.SSEMeta{ID: ev.ID, Event: ev.Event, Retry: ev.Retry}
		}
		t.ex.answer(time.Now(), data, t.meta, meta)
	}
}

// Close closes the upstream body.
func (t *sseTap) Close() error {
	err := t.rc.Close()
	t.finish()
	return err
}

func (t *sseTap) finish() {
	t.closed.Do(func() {
		t.ex.flushHeld()
		t.ex.settle()
	})
}

// feed is the reader under an sseTap's SSEReader: the bytes of the
// current Read, then transport.ErrWait (or the stream's end).
type feed struct {
	b   []byte
	end error // the upstream read's error, once it has one
}

func (f *feed) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		if f.end != nil {
			return 0, f.end
		}
		return 0, transport.ErrWait
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}
