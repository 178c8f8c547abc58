package engine

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// probeRefusingServer answers as server-everything does over Streamable
// HTTP: a 2026-07-28 server/discover probe is refused with an HTTP 400
// whose JSON-RPC error has a null id; initialize opens a session.
func probeRefusingServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := jsonrpc.Parse(body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(string(body), `"server/discover"`):
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "live-1")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, m.ID)
		case strings.Contains(string(body), `"tools/list"`):
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestNullIDErrorOverHTTPIsPaired: a tape recorded over HTTP where the
// server refused a request with a 400 whose error has a null id (the
// go-sdk client's server/discover probe against server-everything)
// replays against that server with zero failures: the recorded null-id
// error is the expected answer of the request before it, the live one
// (delivered with the request's id) its actual answer.
func TestNullIDErrorOverHTTPIsPaired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "probe.jsonl")
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-11-25","transport":"streamable-http"}`,
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}},"http":{"status":400}}`,
		`{"type":"message","seq":1,"t_us":900,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null},"http":{"status":400,"headers":{"Content-Type":["application/json"]}}}`,
		`{"type":"message","seq":2,"t_us":1000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},"http":{"status":200}}`,
		`{"type":"message","seq":3,"t_us":1500,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}},"http":{"status":200}}`,
		`{"type":"message","seq":4,"t_us":1600,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"},"http":{"status":202}}`,
		`{"type":"message","seq":5,"t_us":1700,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"},"http":{"status":200}}`,
		`{"type":"message","seq":6,"t_us":1800,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},"http":{"status":200}}`,
		`{"type":"end","messages":7,"duration_us":1800}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := probeRefusingServer(t)
	rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: transport.HTTP{URL: url}, Target: url})
	if err != nil {
		t.Fatal(err)
	}
	v := rep.Validation
	if v.Checked != 3 || v.Passed != 3 || v.Failed != 0 {
		t.Errorf("checked/passed/failed = %d/%d/%d, want 3/3/0 (the refused probe, initialize, tools/list)\n%+v", v.Checked, v.Passed, v.Failed, rep)
	}
}
