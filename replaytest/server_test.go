package replaytest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replaytest"
)

// connect is a go-sdk client session over Streamable HTTP to url.
func connect(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	c := testtape.NewClient("replayctl-testtape")
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, opts)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestServerAnswersAsRecorded(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			path := testtape.RecordClient(t, testtape.Stdio(testserver.GoSDK(t)), version, testtape.ScriptAll)
			url := replaytest.Server(t, path)
			if !strings.HasPrefix(url, "http://127.0.0.1:") {
				t.Errorf("URL %s is not on loopback", url)
			}
			cs := connect(t, url, version)
			if err := testtape.ScriptAll(t.Context(), cs); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// missTB records what Server reports at cleanup, instead of failing.
type missTB struct {
	testing.TB
	mu       sync.Mutex // guards the fields below
	errs     []string
	cleanups []func()
}

func (m *missTB) Cleanup(f func()) {
	m.mu.Lock()
	m.cleanups = append(m.cleanups, f)
	m.mu.Unlock()
}

func (m *missTB) Errorf(format string, args ...any) {
	m.mu.Lock()
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
	m.mu.Unlock()
}

func (m *missTB) cleanup() {
	for i := len(m.cleanups) - 1; i >= 0; i-- {
		m.cleanups[i]()
	}
}

func TestServerMissFailsTheTest(t *testing.T) {
	path := testtape.RecordClient(t, testtape.Stdio(testserver.GoSDK(t)), "2025-11-25", testtape.ScriptAll)
	tb := &missTB{TB: t}
	url := replaytest.Server(tb, path)
	cs := connect(t, url, "2025-11-25")
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{"changed": 1}})
	if err == nil || !strings.Contains(err.Error(), "closest recorded") {
		t.Errorf("the client got %v, want an error naming the closest recorded request", err)
	}
	_ = cs.Close()
	tb.cleanup()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "params.arguments.changed") {
		t.Errorf("at cleanup Server reported %q, want one miss naming params.arguments.changed", tb.errs)
	}
}
