package testtape

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/tape"
)

// Transport names written in a tape's header.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "streamable-http"
)

const (
	recordTimeout    = 2 * time.Minute // a whole client recording: connect, script, close
	terminateTimeout = 5 * time.Second // a stdio server's exit after its stdin is closed
)

// Target is the server a client recording talks to: a command over stdio,
// or a Streamable HTTP endpoint. Make one with Stdio or HTTP.
type Target struct {
	argv []string
	url  string
}

// Stdio is the server started from argv, spoken to over its stdin and
// stdout.
func Stdio(argv []string) Target { return Target{argv: argv} }

// HTTP is the Streamable HTTP endpoint at url.
func HTTP(url string) Target { return Target{url: url} }

// Transport is the name of t's transport as a tape's header says it.
func (t Target) Transport() string {
	if t.url != "" {
		return TransportHTTP
	}
	return TransportStdio
}

func (t Target) server() *tape.Server {
	if t.url != "" {
		return &tape.Server{URL: t.url}
	}
	return &tape.Server{Command: t.argv}
}

// Script is what a recorded client does once connected. It returns when
// done, or with an error when a step failed or ctx is done.
type Script func(ctx context.Context, cs *mcp.ClientSession) error

// The answers the recording client gives to the server's requests.
var (
	// ElicitContent is the content of every elicitation the client
	// accepts: what the conformance server's elicitations ask for (name,
	// username, context; color, which the second round of
	// test_input_required_result_multi_round requires).
	ElicitContent = map[string]any{"name": "Ada", "username": "ada", "context": "tests", "color": "blue"}
	// SampleText is the text of every sampling answer, from model "fake".
	SampleText = "Paris"
	// Roots is the client's roots list.
	Roots = []*mcp.Root{{URI: "file:///tmp/replayctl-testtape", Name: "testtape"}}
)

// RecordClient connects a Go SDK client to t through a recording wrapper
// of its transport, runs script, closes the session, and returns the path
// of the tape it recorded (in tb.TempDir()): every message the client
// wrote (c2s) and read (s2c), in that order, as its bytes went on the
// wire, all in session "s1". The header names the transport, the server
// and the protocol version the client and server agreed on.
//
// version "" lets the client choose: its newest, 2026-07-28, through
// server/discover, falling back to a 2025-11-25 initialize when the server
// does not offer it. Any other value is the session's ProtocolVersion
// option ("2025-11-25": initialize, with no discover).
//
// The client accepts every elicitation with ElicitContent and answers
// every sampling request with SampleText; it lists Roots. RecordClient
// returns when the session is closed; the whole recording is bounded by a
// timeout. It fails the test on any error, after writing what it recorded
// to the tape and naming its path.
func RecordClient(tb testing.TB, t Target, version string, script Script) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), recordTimeout)
	defer cancel()

	seen := newTranscript()
	inner, stderr, done := t.transport(ctx)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := newClient().Connect(ctx, &tapingTransport{inner: inner, seen: seen}, opts)
	if err != nil {
		done()
		path := writeClientTape(tb, t, "", seen)
		tb.Fatalf("testtape: connect a go-sdk client to %s (protocol %q): %v\ntape so far: %s\nserver stderr:\n%s",
			t.Transport(), version, err, path, orNone(stderr))
	}
	negotiated := cs.InitializeResult().ProtocolVersion
	runErr := script(ctx, cs)
	closeErr := cs.Close()
	done()
	if t.url == "" && terminatedAfterClose(closeErr) {
		// server-everything does not exit when its stdin closes; the SDK
		// then stops it after TerminateDuration. The session was whole.
		tb.Logf("testtape: the stdio server did not exit within %s of its stdin closing and was terminated", terminateTimeout)
		closeErr = nil
	}
	path := writeClientTape(tb, t, negotiated, seen)
	switch {
	case runErr != nil:
		tb.Fatalf("testtape: client script (protocol %s over %s): %v\ntape so far: %s\nserver stderr:\n%s",
			negotiated, t.Transport(), runErr, path, orNone(stderr))
	case closeErr != nil:
		tb.Fatalf("testtape: close the client session (protocol %s over %s): %v\ntape: %s\nserver stderr:\n%s",
			negotiated, t.Transport(), closeErr, path, orNone(stderr))
	}
	return path
}

// transport returns the Go SDK transport to t, the stderr of the server it
// starts (stdio), and a function to call once the session is closed.
func (t Target) transport(ctx context.Context) (mcp.Transport, *testbuf.Buffer, func()) {
	stderr := &testbuf.Buffer{}
	if t.url != "" {
		hc := &http.Client{Transport: &http.Transport{}}
		tr := &mcp.StreamableClientTransport{
			Endpoint:   t.url,
			HTTPClient: hc,
			// The recording wrapper keeps it from opening anyway (see
			// tapingTransport); say so.
			DisableStandaloneSSE: true,
		}
		return tr, stderr, hc.CloseIdleConnections
	}
	cmd := exec.CommandContext(ctx, t.argv[0], t.argv[1:]...)
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateTimeout}, stderr, func() {}
}

// NewClient is the Go SDK client RecordClient drives, named name (its
// clientInfo), for tests that connect it themselves (through a recording
// proxy): it accepts elicitations with ElicitContent, answers sampling
// with SampleText and lists Roots.
func NewClient(name string) *mcp.Client { return newNamedClient(name) }

// newClient is the recording client: it accepts elicitations with
// ElicitContent, answers sampling with SampleText and lists Roots.
func newClient() *mcp.Client { return newNamedClient("replayctl-testtape") }

func newNamedClient(name string) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: ElicitContent}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "fake", Content: &mcp.TextContent{Text: SampleText}}, nil
		},
	})
	// Deprecated with 2026-07-28 roots, but still how a client lists them;
	// set before Connect, so no roots/list_changed is sent.
	c.AddRoots(Roots...)
	return c
}

// writeClientTape writes what seen holds to a tape in tb.TempDir() and
// returns its path.
func writeClientTape(tb testing.TB, t Target, protocolVersion string, seen *transcript) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "client.jsonl")
	w, err := tape.Create(path, tape.Header{
		CreatedAt:       time.Now().UTC().Format(time.RFC3339),
		ProtocolVersion: protocolVersion,
		Transport:       t.Transport(),
		Server:          t.server(),
		Tags:            map[string]string{"client": "go-sdk"},
	})
	if err != nil {
		tb.Fatalf("testtape: %v", err)
	}
	for _, m := range seen.messages() {
		if err := w.Write(m); err != nil {
			_ = w.Close()
			tb.Fatalf("testtape: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("testtape: %v", err)
	}
	return path
}

// orNone is a server's stderr as a failure message shows it.
func orNone(stderr *testbuf.Buffer) string {
	if s := stderr.String(); s != "" {
		return s
	}
	return "(none)"
}

// terminatedAfterClose reports whether err is a stdio server's exit by
// SIGTERM, which the SDK sends when the server does not exit on its own
// after its stdin is closed.
func terminatedAfterClose(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	return ee.ProcessState.String() == "signal: terminated" // portable; SIGTERM on unix
}
