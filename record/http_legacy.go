package record

import (
	"bytes"
	"io"
	"net/url"

	"github.com/replayctl/replayctl/transport"
)

// firstBlockMax bounds what the endpoint rewriter holds of a GET stream
// before it passes the stream on unchanged.
const firstBlockMax = 64 << 10

// endpointRewriter relays a GET stream, looking at its first event: a
// legacy HTTP+SSE server's "endpoint" event names where the client posts
// its messages. The proxy routes posts to that endpoint to the stream's
// session; when the endpoint is an absolute URL to the upstream, the
// event is written again (transport.SSEWriter) with the proxy's own
// origin, so that the client posts through the proxy — the only bytes the
// proxy ever changes. Every other byte passes as it came.
type endpointRewriter struct {
	ex      *exchange
	rc      io.ReadCloser
	pending []byte // what to hand out before reading on
	checked bool
}

func newEndpointRewriter(ex *exchange, rc io.ReadCloser) *endpointRewriter {
	return &endpointRewriter{ex: ex, rc: rc}
}

func (e *endpointRewriter) Read(b []byte) (int, error) {
	if !e.checked {
		e.checked = true
		if err := e.firstBlock(); err != nil && len(e.pending) == 0 {
			return 0, err
		}
	}
	if len(e.pending) > 0 {
		n := copy(b, e.pending)
		e.pending = e.pending[n:]
		return n, nil
	}
	return e.rc.Read(b)
}

func (e *endpointRewriter) Close() error { return e.rc.Close() }

// firstBlock reads the stream up to the end of its first event (or
// firstBlockMax, or its end) into pending, rewriting an endpoint event.
func (e *endpointRewriter) firstBlock() error {
	buf := make([]byte, 0, 512)
	var err error
	for {
		if end := blockEnd(buf); end > 0 {
			e.pending = append(e.rewrite(buf[:end]), buf[end:]...)
			return nil
		}
		if len(buf) >= firstBlockMax || err != nil {
			e.pending = buf
			return err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		var n int
		n, err = e.rc.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
	}
}

// blockEnd is the index after the first blank line of b (the end of an
// SSE event block), or 0.
func blockEnd(b []byte) int {
	end := 0
	for _, sep := range []string{"\n\n", "\r\n\r\n", "\r\r"} {
		if i := bytes.Index(b, []byte(sep)); i >= 0 && (end == 0 || i+len(sep) < end) {
			end = i + len(sep)
		}
	}
	return end
}

// rewrite returns block, or the endpoint event it holds pointed at the
// proxy; it announces the endpoint to the session table either way.
func (e *endpointRewriter) rewrite(block []byte) []byte {
	ev, err := transport.NewSSEReader(bytes.NewReader(block)).Next()
	if err != nil || ev.Event != "endpoint" {
		return block
	}
	p, r := e.ex.p, e.ex.req
	ref, err := url.Parse(string(bytes.TrimSpace(ev.Data)))
	if err != nil {
		return block
	}
	abs := p.upstream.ResolveReference(ref)
	if abs.Host != p.upstream.Host {
		p.log.Warn().Str("endpoint", abs.String()).Msg("legacy endpoint on another host: its posts bypass the proxy and are not recorded")
		return block
	}
	p.announce(abs.RequestURI(), e.ex.session)
	if !ref.IsAbs() {
		return block // relative: the client resolves it against the proxy already
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	own := &url.URL{Scheme: scheme, Host: r.Host, Path: abs.Path, RawPath: abs.RawPath, RawQuery: abs.RawQuery}
	ev.Data = []byte(own.String())
	var out bytes.Buffer
	if err := transport.NewSSEWriter(&out).Write(ev); err != nil {
		return block
	}
	return out.Bytes()
}
