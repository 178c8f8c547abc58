package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// methodLog is a Streamable HTTP target that answers every request with
// an empty result and keeps the methods in the order they arrived.
type methodLog struct {
	mu      sync.Mutex // guards methods
	methods []string
}

func (l *methodLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(b, &m)
	l.mu.Lock()
	l.methods = append(l.methods, m.Method)
	l.mu.Unlock()
	if m.ID == nil || m.Method == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
}

// TestOrderRandomKeepsHandshakeFirst: --order random shuffles the
// client's messages between answers, but never the handshake: whatever
// the seed, initialize then notifications/initialized go first.
func TestOrderRandomKeepsHandshakeFirst(t *testing.T) {
	for _, seed := range []string{"1", "2", "3", "4", "5", "6"} {
		t.Run("seed="+seed, func(t *testing.T) {
			log := &methodLog{}
			srv := httptest.NewServer(log)
			defer srv.Close()
			res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--order", "random", "--seed", seed, "-q", "--target", srv.URL+"/mcp")
			if res.code == 2 || res.code > 3 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			log.mu.Lock()
			got := slices.Clone(log.methods)
			log.mu.Unlock()
			if len(got) < 3 || got[0] != "initialize" || got[1] != "notifications/initialized" {
				t.Errorf("methods in the order sent: %q; want initialize, notifications/initialized first", got)
			}
		})
	}
}
