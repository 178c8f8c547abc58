package replay_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/replay"
)

// laterAskTape: the recorded server asked roots/list only after the
// client's notifications/roots/list_changed, not after initialized (the
// recorded client's GET stream was not open then), and the client
// answered it. A request (ping) stands between tools/list and that ask.
const laterAskTape = `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-11-28T10:00:00Z","protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":3000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":4,"t_us":4000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
{"type":"message","seq":5,"t_us":5000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"ping"}}
{"type":"message","seq":6,"t_us":6000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
{"type":"message","seq":7,"t_us":7000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}}
{"type":"message","seq":8,"t_us":8000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"type":"message","seq":9,"t_us":9000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///tmp","name":"tmp"}]}}}
{"type":"message","seq":10,"t_us":10000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"ping"}}
{"type":"message","seq":11,"t_us":11000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{}}}
{"type":"end","messages":12,"duration_us":11000}
`

// TestAskAnsweredByItsOwnAnswer: a live server that asks roots/list on
// its GET stream after initialized (which the tape does not have) and
// again after notifications/roots/list_changed (which it has) gets the
// client's recorded answer for the second ask, the one the tape
// answers, and the first is refused. The replay used to take the answer
// recorded further on, past a request of the client (ping), for the
// first ask, and then refuse the second; and a recorded answer read
// after any refusal of its method was skipped though the live server
// asked again.
func TestAskAnsweredByItsOwnAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.jsonl")
	if err := os.WriteFile(path, []byte(laterAskTape), 0o644); err != nil {
		t.Fatal(err)
	}
	asks := make(chan string, 2) // what the GET stream asks
	var mu sync.Mutex
	got := map[string]string{} // ask id → "result" or "error"
	firstAnswered := make(chan struct{})
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
			for {
				select {
				case id := <-asks:
					fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%q,\"method\":\"roots/list\"}\n\n", id)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(body, &m)
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "": // an answer to roots/list
			var id string
			_ = json.Unmarshal(m.ID, &id)
			kind := "error"
			if m.Result != nil {
				kind = "result"
			}
			mu.Lock()
			got[id] = kind
			mu.Unlock()
			if id == "r1" {
				close(firstAnswered)
			}
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "notifications/initialized":
			asks <- "r1"
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "notifications/roots/list_changed":
			asks <- "r2"
			w.WriteHeader(http.StatusAccepted)
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, m.ID)
		case m.Method == "tools/list":
			select { // only once the first roots/list is answered
			case <-firstAnswered:
			case <-r.Context().Done():
				return
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	defer srv.Close()
	rep, err := replay.Run(t.Context(), path, replay.Against(replay.HTTP(srv.URL)), replay.WithSpeed(replay.Fast()),
		replay.Timeout(3*time.Second), replay.Logger(zerolog.New(zerolog.NewTestWriter(t))))
	if err != nil || rep == nil {
		t.Fatalf("replay: %v", err)
	}
	mu.Lock()
	answers := fmt.Sprint(got)
	r1, r2 := got["r1"], got["r2"]
	mu.Unlock()
	if r1 != "error" || r2 != "result" {
		t.Errorf("the live server's roots/list asks were answered %s; want r1 refused (error), r2 answered with the tape's result", answers)
	}
	if sv := rep.Summary.Server; sv.RequestsAnswered != 1 || sv.RequestsRefused != 1 {
		t.Errorf("server requests: %d answered, %d refused; want 1, 1", sv.RequestsAnswered, sv.RequestsRefused)
	}
	if got, want := rep.Summary.Sent, int64(7); got != want {
		t.Errorf("sent %d client messages, want %d (errors %v)", got, want, rep.Errors)
	}
	if s := fmt.Sprint(rep.Errors); strings.Contains(s, "roots/list") {
		t.Errorf("errors: %s", s)
	}
}
