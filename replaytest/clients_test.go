package replaytest_test

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/replaytest"
	"github.com/replayctl/replayctl/tape"
)

// recordClient records replayctl's test client c, speaking protocol,
// through a recording proxy in front of upstream, and returns the tape's
// path.
func recordClient(t *testing.T, c testclient.Client, upstream, protocol string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	p, err := record.NewHTTP(upstream, func(h tape.Header) (*tape.Writer, error) { return tape.Create(path, h) })
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	u := strings.TrimPrefix(upstream, "http://")
	run := testclient.RunClient(t, c, testclient.HTTP(srv.URL+u[strings.Index(u, "/"):]),
		testclient.Options{Protocol: protocol, Timeout: time.Minute})
	p.Stop()
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if run.Status != 0 {
		t.Fatalf("recording: the client failed a step:\n%s\n%s", run.Stdout, run.Stderr)
	}
	return path
}

// TestServerDefaultClients: the official SDKs' clients with their default
// settings (no pinned protocol version) connect to Server as to the
// server recorded, and every step of their script gets its recorded
// answer: the go-sdk client on a session-based 2025-11-25 tape and on a
// stateless 2026-07-28 tape (each recorded by the go-sdk client pinned to
// that revision), the TypeScript SDK client on a 2025-11-25 tape (it
// speaks no later revision; recorded by itself, as the two clients'
// scripts differ in their arguments). The go-sdk client probes
// server/discover first: on the 2025-11-25 tape it must get what a
// 2025-11-25 server answers (method not found) and fall back to
// initialize. A miss fails the test (Server).
func TestServerDefaultClients(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients and servers")
	}
	cases := []struct {
		name     string
		client   testclient.Client
		upstream func(testing.TB) string
		protocol string // of the recording
	}{
		{"go-sdk/2025-11-25", testclient.Go, testserver.GoSDKHTTP, "2025-11-25"},
		{"go-sdk/2026-07-28", testclient.Go, testserver.GoSDKHTTPStateless, "2026-07-28"},
		{"typescript-sdk/2025-11-25", testclient.TypeScript, testserver.GoSDKHTTP, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := recordClient(t, c.client, c.upstream(t), c.protocol)
			url := replaytest.Server(t, path)
			run := testclient.RunClient(t, c.client, testclient.HTTP(url), testclient.Options{Timeout: time.Minute})
			if run.Status != 0 {
				t.Errorf("the %s client failed against the tape:\n%s\n%s", c.client, run.Stdout, run.Stderr)
			}
		})
	}
}

// TestServerTypeScriptClientOn2026Tape: the TypeScript SDK client (its
// default settings: 2025-11-25, initialize) connects to Server of a
// stateless 2026-07-28 tape as to the server recorded, which also serves
// 2025-11-25: initialize is answered from the recorded server/discover
// (its serverInfo and capabilities). Its requests, of another revision
// than the recorded ones, miss saying so; with the protocol version made
// volatile they get the recorded answers. (The tape is the go-sdk
// client's: where its script differs from the TypeScript client's, in
// test_simple_text's empty arguments, the steps miss, and are not
// looked at.)
func TestServerTypeScriptClientOn2026Tape(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients and servers")
	}
	path := recordClient(t, testclient.Go, testserver.GoSDKHTTPStateless(t), "2026-07-28")
	step := func(run testclient.Run, name string) testclient.Step {
		for _, s := range run.Steps {
			if s.Step == name {
				return s
			}
		}
		return testclient.Step{Step: name + " (not run)"}
	}

	tb := &missTB{TB: t}
	url := replaytest.Server(tb, path)
	run := testclient.RunClient(t, testclient.TypeScript, testclient.HTTP(url), testclient.Options{Timeout: time.Minute})
	tb.cleanup()
	if s := step(run, "initialize"); !s.OK || !strings.Contains(string(s.Result), `"serverInfo":{"name":"mcp-conformance-test-server"`) || !strings.Contains(string(s.Result), `"tools":{"listChanged":true}`) {
		t.Errorf("initialize: %+v, want the recorded server's serverInfo and capabilities\n%s", s, run.Stderr)
	}
	if s := step(run, "tools/list"); s.OK || !strings.Contains(string(s.Error), "protocolVersion") {
		t.Errorf("tools/list: %s %s, want a miss naming the protocol version", s.Result, s.Error)
	}
	if len(tb.errs) != 1 {
		t.Errorf("misses %q, want the one of tools/list", tb.errs)
	}

	tb = &missTB{TB: t}
	url = replaytest.Server(tb, path, mock.WithVolatile(`params._meta["io.modelcontextprotocol/protocolVersion"]`))
	run = testclient.RunClient(t, testclient.TypeScript, testclient.HTTP(url), testclient.Options{Timeout: time.Minute})
	tb.cleanup()
	for _, name := range []string{"initialize", "tools/list", "tools/call test_x_mcp_header"} {
		if s := step(run, name); !s.OK {
			t.Errorf("%s with the protocol version volatile: %+v, want the recorded answer", name, s)
		}
	}
}
