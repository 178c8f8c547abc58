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
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/internal/testbuf"
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

// earlyAskTape: the server asked roots/list after tools/list's answer.
const earlyAskTape = `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-11-28T10:00:00Z","protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":3000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":4,"t_us":4000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
{"type":"message","seq":5,"t_us":352000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"type":"message","seq":6,"t_us":353000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}}
{"type":"message","seq":7,"t_us":400000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"ping"}}
{"type":"message","seq":8,"t_us":401000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
{"type":"end","messages":9,"duration_us":401000}
`

// TestAskBeforeTheReplayGetsThere: a live server that asks roots/list
// at once after initialized, and answers tools/list only once the client
// has answered it, asks before the replay has read its recorded ask (it
// comes after tools/list's answer on the tape), while the session is held
// for tools/list's answer: the replay answers it with the client's
// recorded answer further on in the session's backlog. It used to refuse
// it there, and then, reading the client's recorded answer, wait its
// timeout for the server to ask again ("the live server did not ask
// roots/list within …").
func TestAskBeforeTheReplayGetsThere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "early.jsonl")
	if err := os.WriteFile(path, []byte(earlyAskTape), 0o644); err != nil {
		t.Fatal(err)
	}
	initialized, answered := make(chan struct{}, 1), make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			return
		case http.MethodGet:
			if r.Header.Get("Mcp-Session-Id") == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
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
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "": // the answer to roots/list (a refusal)
			answered <- struct{}{}
			w.WriteHeader(http.StatusAccepted)
		case m.ID == nil:
			initialized <- struct{}{}
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, m.ID)
		case m.Method == "tools/list":
			select { // only once roots/list is answered
			case <-answered:
			case <-r.Context().Done():
				return
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	defer srv.Close()
	var log testbuf.Buffer
	rep, err := replay.Run(t.Context(), path, replay.Against(replay.HTTP(srv.URL)), replay.WithSpeed(replay.Fast()),
		replay.Timeout(3*time.Second), replay.Logger(zerolog.New(io.MultiWriter(&log, zerolog.NewTestWriter(t)))))
	if err != nil || rep == nil {
		t.Fatalf("replay: %v", err)
	}
	if strings.Contains(log.String(), "did not ask") {
		t.Errorf("the replay waited for the server to ask again what it had asked and been refused:\n%s", log.String())
	}
	if sv := rep.Summary.Server; sv.RequestsAnswered != 1 || sv.RequestsRefused != 0 {
		t.Errorf("server requests: %d answered, %d refused; want 1, 0", sv.RequestsAnswered, sv.RequestsRefused)
	}
	if got, want := rep.Summary.Sent, int64(5); got != want || !rep.Passed() {
		t.Errorf("sent %d client messages (passed %v), want %d", got, rep.Passed(), want)
	}
}
