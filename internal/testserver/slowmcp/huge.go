package slowmcp

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// The answers of the modes that send too much: HangEndless, HangGzipBomb
// and HangSSEEndless.

// endlessStart is the beginning of a tools/call answer to id whose text
// never ends.
func endlessStart(id json.RawMessage) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	return append(b, `,"result":{"content":[{"type":"text","text":"`...)
}

var xs = bytes.Repeat([]byte("x"), 64<<10)

// writeEndless writes start, then EndlessBytes of text in pieces of 64
// KiB, calling flush (if not nil) after each; it stops at the first
// failed write and returns its error.
func writeEndless(w io.Writer, start []byte, flush func()) error {
	if _, err := w.Write(start); err != nil {
		return err
	}
	for n := 0; n < EndlessBytes; n += len(xs) {
		if _, err := w.Write(xs); err != nil {
			return err
		}
		if flush != nil {
			flush()
		}
	}
	return nil
}

// writeSized writes the answer to id of a text of n bytes of "x" (see
// WithAnswerSize), then end, in pieces: the server holds 64 KiB of it,
// not the answer.
func writeSized(w io.Writer, id json.RawMessage, n int, end string) error {
	if _, err := w.Write(endlessStart(id)); err != nil {
		return err
	}
	for ; n > 0; n -= len(xs) {
		if _, err := w.Write(xs[:min(n, len(xs))]); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, `"}]}}`+end)
	return err
}

// bombMember is a gzip member of 1 MiB of "x": about 1 KiB. Members
// follow each other in one gzip stream, and the reader of the stream
// unpacks them all, one after the other.
var bombMember = sync.OnceValue(func() []byte { return gzipped(nil, 1<<20) })

// gzipped is head and then n bytes of "x", as one gzip member.
func gzipped(head []byte, n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = zw.Write(head)
	for ; n > 0; n -= len(xs) {
		_, _ = zw.Write(xs[:min(n, len(xs))])
	}
	_ = zw.Close()
	return b.Bytes()
}

// serveHuge answers a tools/call request m as the hang mode h says: with
// an endless JSON body, a gzip bomb or an endless SSE data line. It
// returns when the whole of it is written or the client stopped reading.
func serveHuge(w http.ResponseWriter, m Message, h Hang) {
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	start := endlessStart(m.ID)
	switch h {
	case HangEndless:
		w.Header().Set("Content-Type", "application/json")
		_ = writeEndless(w, start, flush)
	case HangSSEEndless:
		w.Header().Set("Content-Type", "text/event-stream")
		_ = writeEndless(w, append([]byte("data: "), start...), flush)
	case HangGzipBomb:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		if _, err := w.Write(gzipped(start, 1<<20)); err != nil {
			return
		}
		member := bombMember()
		for n := 1 << 20; n < BombBytes; n += 1 << 20 {
			if _, err := w.Write(member); err != nil {
				return
			}
		}
	}
}
