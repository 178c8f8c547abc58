package record_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	mcpwire "github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// secretToken is the bearer token every test client sends: it must
// appear nowhere in a tape.
const secretToken = "sekrit-bearer-7f3a9c"

// withAuth adds the test's credentials to every request.
type withAuth struct{ rt http.RoundTripper }

func (a withAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+secretToken)
	r.Header.Set("X-Api-Key", secretToken)
	return a.rt.RoundTrip(r)
}

// startProxy starts a recording proxy to upstream on a loopback port and
// returns its base URL, the proxy and the tape's path.
func startProxy(t *testing.T, upstream string) (*httptest.Server, *record.HTTP, string) {
	t.Helper()
	return startProxyFrom(t, upstream, context.Background())
}

// startProxyFrom is startProxy with base the context of every request
// the proxy serves, from which its upstream requests' contexts come.
func startProxyFrom(t *testing.T, upstream string, base context.Context) (*httptest.Server, *record.HTTP, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	p, err := record.NewHTTP(upstream, func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(p)
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	srv.Start()
	t.Cleanup(func() {
		p.Stop()
		srv.Close()
		_ = p.Close()
	})
	return srv, p, path
}

// streamable is a go-sdk Streamable HTTP client transport to endpoint.
func streamable(endpoint string) func(*http.Client) mcp.Transport {
	return func(hc *http.Client) mcp.Transport {
		return &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}
	}
}

// runClients runs n go-sdk clients at once through the proxy, each with
// its own HTTP connection pool, each running script.
func runClients(t *testing.T, endpoint, version string, n int, script testtape.Script) {
	t.Helper()
	runClientsOver(t, streamable(endpoint), version, n, script)
}

// runClientsOver is runClients over the transports mk makes.
func runClientsOver(t *testing.T, mk func(*http.Client) mcp.Transport, version string, n int, script testtape.Script) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			var opts *mcp.ClientSessionOptions
			if version != "" {
				opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
			}
			cs, err := testtape.NewClient(fmt.Sprintf("proxied-%d", i)).Connect(ctx, mk(&http.Client{Transport: withAuth{tr}}), opts)
			if err != nil {
				errs <- fmt.Errorf("client %d: connect: %w", i, err)
				return
			}
			if err := script(ctx, cs); err != nil {
				errs <- fmt.Errorf("client %d: %w", i, err)
			}
			if err := cs.Close(); err != nil {
				errs <- fmt.Errorf("client %d: close: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// readTape reads a whole tape; a line it cannot read fails the test.
func readTape(t *testing.T, path string) (tape.Header, []tape.Message) {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var msgs []tape.Message
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		msgs = append(msgs, m)
	}
	return r.Header(), msgs
}

// TestHTTPProxyGoSDK puts 8 concurrent go-sdk clients through the proxy
// to the go-sdk conformance server, stateful (2025-11-25, with the
// server's elicitation and sampling requests and the GET stream) and
// stateless (2026-07-28, with MRTR rounds); each is a session of its own
// on the tape, no credential is on it, and the tape replays against the
// same server with zero failures.
func TestHTTPProxyGoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	cases := []struct {
		name     string
		upstream func(testing.TB) string
		version  string // the client's; "" its newest
		want     string // the tape's protocol version
	}{
		{"stateful 2025-11-25", testserver.GoSDKHTTP, mcpwire.V20251125, mcpwire.V20251125},
		{"stateless 2026-07-28", testserver.GoSDKHTTPStateless, "", mcpwire.V20260728},
	}
	const clients = 8
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			upstream := c.upstream(t)
			srv, p, path := startProxy(t, upstream)
			runClients(t, srv.URL+"/", c.version, clients, testtape.ScriptAll)
			p.Stop()
			srv.Close()
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(secretToken)) {
				t.Fatalf("the client's credentials are on the tape")
			}
			h, msgs := readTape(t, path)
			if h.Transport != record.TransportStreamableHTTP || h.ProtocolVersion != c.want || h.Server == nil || h.Server.URL != upstream {
				t.Errorf("header %+v (server %+v), want transport %s, protocol %s, url %s", h, h.Server, record.TransportStreamableHTTP, c.want, upstream)
			}
			perSession := map[string]int{}
			for _, m := range msgs {
				perSession[m.Session]++
			}
			if len(perSession) != clients {
				t.Errorf("%d sessions on the tape (%v), want %d", len(perSession), perSession, clients)
			}
			if p.Dropped() != 0 {
				t.Errorf("%d messages not recorded", p.Dropped())
			}
			rep, err := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Against(replay.HTTP(upstream)))
			if rep == nil {
				t.Fatal(err)
			}
			if err != nil || !rep.Passed() || rep.Validation.Failed != 0 || rep.Validation.Checked < int64(14*clients) {
				t.Fatalf("replay: err %v; passed %v, %d checked, %d failed, warnings %q; failures %+v, errors %+v",
					err, rep.Passed(), rep.Validation.Checked, rep.Validation.Failed, rep.Summary.Warnings, rep.Validation.Failures, rep.Errors)
			}
			if strings.Contains(t.Name(), "stateful") {
				var get int
				for _, m := range msgs {
					if m.HTTP != nil && m.HTTP.Status == 200 && m.SSE != nil {
						get++
					}
				}
				t.Logf("%d messages, %d with SSE metadata", len(msgs), get)
			}
		})
	}
}

// TestHTTPProxyBytesGoSDK: the client gets the go-sdk server's answer
// through the proxy byte for byte as it gets it directly.
func TestHTTPProxyBytesGoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	upstream := testserver.GoSDKHTTPStateless(t)
	srv, _, _ := startProxy(t, upstream)
	hdr := map[string]string{mcpwire.HeaderProtocolVersion: mcpwire.V20260728, mcpwire.HeaderMethod: "tools/call", mcpwire.HeaderName: "test_tool_with_progress"}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},` +
		`"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`
	st, h, got := do(t, "POST", srv.URL+"/", body, hdr)
	wst, wh, want := do(t, "POST", upstream, body, hdr)
	if st != 200 || wst != 200 || !bytes.Equal(got, want) || h.Get("Content-Type") != wh.Get("Content-Type") {
		t.Fatalf("through the proxy: %d %s %q\ndirect: %d %s %q", st, h.Get("Content-Type"), got, wst, wh.Get("Content-Type"), want)
	}
	if !bytes.Contains(got, []byte("notifications/progress")) {
		t.Errorf("no progress in %q: the test does not test an SSE answer", got)
	}
}
