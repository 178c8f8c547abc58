package record

import (
	"bytes"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// FuzzEndpointRewriter: whatever a GET stream starts with, the client
// gets it unchanged, except an endpoint event naming the upstream by an
// absolute URL, whose data is made the proxy's; the rest of the stream is
// never touched.
func FuzzEndpointRewriter(f *testing.F) {
	f.Add([]byte("event: endpoint\ndata: http://up.example:9/message?sessionId=a\n\ndata: {}\n\n"))
	f.Add([]byte("event: endpoint\r\ndata: /message?sessionId=b\r\n\r\n"))
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\"}\n\n"))
	f.Add([]byte(": comment only"))
	p, err := NewHTTP("http://up.example:9/sse", func(h tape.Header) (*tape.Writer, error) { return tape.NewWriter(io.Discard, h) })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		req := httptest.NewRequest("GET", "http://proxy.example:1/sse", nil)
		ex := &exchange{p: p, req: req, session: "s1"}
		out, err := io.ReadAll(newEndpointRewriter(ex, io.NopCloser(bytes.NewReader(in))))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(in, []byte("endpoint")) || !bytes.Contains(in, []byte("up.example:9")) {
			if !bytes.Equal(out, in) {
				t.Fatalf("changed %q into %q", in, out)
			}
			return
		}
		end := blockEnd(in)
		if end == 0 {
			end = len(in)
		}
		if !bytes.HasSuffix(out, in[end:]) {
			t.Fatalf("the stream after the first event changed: %q into %q", in, out)
		}
		if !bytes.Equal(out, in) && !bytes.Contains(out, []byte("http://proxy.example:1/")) {
			t.Fatalf("changed %q into %q, not to the proxy", in, out)
		}
	})
}
