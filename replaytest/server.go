package replaytest

import (
	"net/http/httptest"
	"testing"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Server serves the tape at path as an MCP server for a client under
// test, as replayctl serve --listen does, and returns its Streamable HTTP
// endpoint: an httptest.Server on 127.0.0.1, closed when the test ends.
// Both eras are served at the URL (sessions with Mcp-Session-Id, and
// stateless 2026-07-28); the legacy HTTP+SSE transport is at the same
// host's /sse. opts configure the answering mock.Server (matching
// strategy, latency, chaos).
//
// A request the tape has no answer for gets a JSON-RPC error naming the
// closest recorded request, and fails the test when it ends (one t.Error
// per miss, after the client code has run). A tape that cannot be read
// fails the test at once.
func Server(t testing.TB, path string, opts ...mock.ServerOption) string {
	t.Helper()
	return ServerSource(t, tape.File(path), opts...)
}

// ServerSource is Server for a tape from any source.
func ServerSource(t testing.TB, src tape.Source, opts ...mock.ServerOption) string {
	t.Helper()
	srv, err := mock.NewServer(src, opts...)
	if err != nil {
		t.Fatalf("replaytest: serve %s: %v", src.Name(), err)
	}
	mux := transport.NewMux(srv)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		// The sessions first: their GET streams end, so that Close does
		// not wait for clients still holding one.
		_ = mux.Close()
		hs.Close()
		for _, m := range srv.Misses() {
			t.Errorf("replaytest: serve %s: session %s: no recorded answer: %s", src.Name(), m.Session, m)
		}
	})
	return hs.URL + "/mcp"
}
