package shrink_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// statefulServer is a Streamable HTTP MCP server (JSON answers, no
// session id) that keeps state between connections: once tool a has been
// called, tool c answers "stale" instead of "ok c" — until Reset.
type statefulServer struct {
	mu     sync.Mutex // guards sawA
	sawA   bool
	resets atomic.Int64
}

func (s *statefulServer) Reset(context.Context) error {
	s.mu.Lock()
	s.sawA = false
	s.mu.Unlock()
	s.resets.Add(1)
	return nil
}

func (s *statefulServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{}`
	switch m.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"planted","version":"1"}}`
	case "tools/call":
		text := "ok " + m.Params.Name
		s.mu.Lock()
		if m.Params.Name == "a" {
			s.sawA = true
		}
		if m.Params.Name == "c" && s.sawA {
			text = "stale"
		}
		s.mu.Unlock()
		result = fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, text)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// TestShrinkReset: a URL target that keeps state between runs shrinks
// right with a Reset hook: to a and c (without a, c answers as
// recorded), each replay after a reset and one at a time; the failure is
// a difference at c's text.
func TestShrinkReset(t *testing.T) {
	t.Parallel()
	srv := &statefulServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	// The recording: c answered "stale" after a, in s1; s2 calls neither.
	sessions := [][]call{
		{{"d", "x"}, {"a", "x"}, {"e", "x"}, {"d", "y"}, {"c", "x"}, {"e", "y"}},
		{{"d", "x"}, {"e", "x"}, {"d", "y"}},
	}
	b := plantedTape(t, sessions)
	// The recorded answer of s1's c is the one before the bug: "ok c".
	src := tape.Bytes("stateful.jsonl", b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := shrink.Shrink(ctx, src, shrink.Replay(replay.Against(replay.HTTP(ts.URL))), shrink.Reset(srv.Reset), shrink.Parallel(4), shrink.NoSimplify())
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure.Kind != shrink.KindDifference || res.Failure.Path == "" || res.Failure.Session != "s1" {
		t.Fatalf("failure %s, want a difference in s1", res.Failure)
	}
	var calls []string
	for _, u := range res.Units {
		if !u.Handshake {
			calls = append(calls, u.Name)
		}
	}
	if !slices.Equal(calls, []string{"a", "c"}) || !res.ProofHolds {
		t.Errorf("kept %q (proof %d of %d), want a and c, every proof run", calls, res.Proof.Failed, res.Proof.Runs)
	}
	if got := srv.resets.Load(); got != int64(res.Runs) {
		t.Errorf("%d resets for %d runs, want one before each", got, res.Runs)
	}
}
