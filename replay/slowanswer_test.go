package replay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/replay"
)

// askTape: the server asked roots/list after initialized, the client
// answered, then listed the tools.
const askTape = `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-11-28T10:00:00Z","protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":352000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"type":"message","seq":4,"t_us":353000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}}
{"type":"message","seq":5,"t_us":400000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":6,"t_us":401000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
{"type":"end","messages":7,"duration_us":401000}
`

// slowAnswerServer is a Streamable HTTP server that asks roots/list on
// its GET stream once the client is initialized and never answers the
// POST that carries the client's answer (a server too busy to take it),
// but answers every request.
func slowAnswerServer(t *testing.T) *httptest.Server {
	initialized := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			return
		case http.MethodGet:
			if r.Header.Get("Mcp-Session-Id") == "" {
				w.WriteHeader(http.StatusMethodNotAllowed) // not a legacy SSE server
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-initialized:
				fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"roots/list\"}\n\n")
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		w.Header().Set("Mcp-Session-Id", "sess-1")
		switch {
		case m.Method == "":
			<-r.Context().Done() // the client's answer: never taken
		case m.ID == nil:
			if m.Method == "notifications/initialized" {
				initialized <- struct{}{}
			}
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, m.ID)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSlowAnswerToServerRequestIsTheSessionsError: a POST of the
// client's answer to a server request that times out is that session's
// error, counted once in the report, and the replay goes on to the end
// (--on-error continue); it used to end the whole run as a failed target
// (exit 3).
func TestSlowAnswerToServerRequestIsTheSessionsError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ask.jsonl")
	if err := os.WriteFile(path, []byte(askTape), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := slowAnswerServer(t)
	// The timeout bounds the POST of the answer, which never ends.
	rep, err := replay.Run(t.Context(), path, replay.Against(replay.HTTP(srv.URL)), replay.WithSpeed(replay.Fast()), replay.Timeout(2*time.Second))
	if errors.Is(err, engine.ErrTarget) || rep == nil {
		t.Fatalf("the replay failed as a target: %v", err)
	}
	p := rep.Performance
	if got, want := p.Errors+p.Timeouts, int64(1); got != want {
		t.Errorf("errors %d + timeouts %d = %d, want %d: the answer's POST", p.Errors, p.Timeouts, got, want)
	}
	if got, want := rep.Summary.Sent, int64(4); got != want {
		t.Errorf("sent %d client messages, want %d: tools/list after the answer, too", got, want)
	}
	if rep.Summary.Aborted != "" {
		t.Errorf("aborted: %s", rep.Summary.Aborted)
	}
}

// TestNotificationNotTakenIsNoTimeout: a notification whose POST the
// target does not take within the timeout is that message's error, not a
// timeout: timeouts count requests that got no answer, so that they never
// outnumber the requests (the handshake said "200 requests … 262
// errors", the JSON timeouts 261 against requests 200: each session's
// initialized was counted as a timeout beside its initialize).
func TestNotificationNotTakenIsNoTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ask.jsonl")
	if err := os.WriteFile(path, []byte(askTape), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			return
		case http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed) // no GET stream: the server asks nothing
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.ID == nil:
			<-r.Context().Done() // initialized: never taken
		case m.Method == "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, m.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
		}
	}))
	defer srv.Close()
	const sessions = 3
	rep, err := replay.Run(t.Context(), path, replay.Against(replay.HTTP(srv.URL)), replay.WithSpeed(replay.Fast()),
		replay.Timeout(time.Second), replay.Sessions(sessions))
	if err != nil || rep == nil {
		t.Fatalf("replay: %v", err)
	}
	h, p := rep.Handshake, rep.Performance
	if h.Requests != sessions || h.Timeouts != 0 || h.Errors != sessions {
		t.Errorf("handshake: %d requests, %d timeouts, %d errors; want %d, 0, %d (each initialized not taken)", h.Requests, h.Timeouts, h.Errors, sessions, sessions)
	}
	if p.Requests != 2*sessions || p.Timeouts != 0 || p.Errors != sessions {
		t.Errorf("performance: %d requests, %d timeouts, %d errors; want %d, 0, %d", p.Requests, p.Timeouts, p.Errors, 2*sessions, sessions)
	}
}
