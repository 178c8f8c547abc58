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

// errClientGone ends the parse of a stream whose client closed it.
var errClientGone = errors.New("record: the client closed the stream")

// jsonTap relays an application/json answer and records it when it has
// passed whole: one message, or a batch as it came. It keeps at most the
// message limit of it; a longer body is relayed and not recorded.
type jsonTap struct {
	ex   *exchange
	rc   io.ReadCloser
	meta *tape.HTTPMeta
	enc  string // Content-Encoding
	buf  []byte
	over bool
	once sync.Once
}

func newJSONTap(ex *exchange, rc io.ReadCloser, meta *tape.HTTPMeta, enc string, size int64) *jsonTap {
	t := &jsonTap{ex: ex, rc: rc, meta: meta, enc: enc}
	if size > 0 && size <= int64(ex.p.limit) {
		t.buf = make([]byte, 0, size)
	}
	return t
}

// Read relays the body and keeps a copy of it; at its end it records it.
func (t *jsonTap) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if n > 0 && !t.over {
		if len(t.buf)+n > t.ex.p.limit {
			t.over, t.buf = true, nil
		} else {
			t.buf = append(t.buf, b[:n]...)
		}
	}
	if err == io.EOF {
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

// sseTap relays a text/event-stream answer byte for byte and hands a copy
// of each read, through a pipe, to a goroutine that parses the events
// with transport.SSEReader and records each event's message with its SSE
// id, event type and retry. Memory is bounded by the reader's limit (one
// event); the stream is never held whole.
//
// Read blocks until the parser has taken the bytes it read (it does no
// I/O but the tape's one line per event). Close waits for the parser.
type sseTap struct {
	ex   *exchange
	rc   io.ReadCloser
	meta *tape.HTTPMeta
	pw   *io.PipeWriter
	done chan struct{} // closed when the parser has returned
}

func newSSETap(ex *exchange, rc io.ReadCloser, meta *tape.HTTPMeta, enc string) *sseTap {
	pr, pw := io.Pipe()
	t := &sseTap{ex: ex, rc: rc, meta: meta, pw: pw, done: make(chan struct{})}
	ex.p.parsers.Add(1)
	go t.parse(pr, enc)
	return t
}

// Read relays the stream and tees what it read to the parser.
func (t *sseTap) Read(b []byte) (int, error) {
	n, err := t.rc.Read(b)
	if n > 0 {
		_, _ = t.pw.Write(b[:n]) // fails only once the parser is done, which drains to the end
	}
	if err != nil {
		_ = t.pw.CloseWithError(err)
	}
	return n, err
}

// Close closes the upstream body and waits for the parser to finish.
func (t *sseTap) Close() error {
	err := t.rc.Close()
	_ = t.pw.CloseWithError(errClientGone)
	<-t.done
	return err
}

func (t *sseTap) parse(pr *io.PipeReader, enc string) {
	defer close(t.done)
	defer t.ex.p.parsers.Done()
	defer func() { _, _ = io.Copy(io.Discard, pr) }() // Read never waits on a parser that gave up
	defer t.ex.flushHeld()
	p, session := t.ex.p, t.ex.session
	var src io.Reader = pr
	switch enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(pr)
		if err != nil {
			p.drop(session, "an SSE stream that is not valid gzip")
			return
		}
		src = zr
	default:
		p.drop(session, "an SSE stream in Content-Encoding "+enc)
		return
	}
	sr := transport.NewSSEReader(src, transport.MaxEventSize(p.limit))
	for {
		ev, err := sr.Next()
		if err != nil {
			var tl *transport.TooLargeError
			if errors.As(err, &tl) {
				p.drop(session, "an SSE event over the message limit; the rest of its stream is relayed, not recorded")
			}
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
