package replay_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replay"
)

// nonceServer is a go-sdk server whose multi-round tool gives a fresh
// requestState each time and accepts a retry only with one it gave.
type nonceServer struct {
	mu     sync.Mutex
	issued map[string]bool
	bad    int  // retries with a state it never gave
	more   bool // asks for input once more on each retry
}

func (n *nonceServer) handler() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "nonce", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "confirm"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		n.mu.Lock()
		defer n.mu.Unlock()
		if st := req.Params.RequestState; st != "" {
			if !n.issued[st] {
				n.bad++
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "requestState not issued: " + st}}}, nil, nil
			}
			delete(n.issued, st)
			if !n.more {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed"}}}, nil, nil
			}
		}
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		st := hex.EncodeToString(b)
		n.issued[st] = true
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{Message: "Sure?"}},
			RequestState:  st,
		}, nil, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// A retry carries the requestState the live server gave, not the recorded
// one, and the rounds are judged equal although the states differ.
func TestMRTRLiveRequestState(t *testing.T) {
	n := &nonceServer{issued: map[string]bool{}}
	h := n.handler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	path := testtape.RecordClient(t, testtape.HTTP(srv.URL), "", func(ctx context.Context, cs *mcp.ClientSession) error {
		for range 3 {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
			if err != nil {
				return err
			}
			if res.IsError {
				return toolError{res}
			}
		}
		return nil
	})
	if n.bad != 0 {
		t.Fatalf("the recording itself sent %d bad states", n.bad)
	}
	for _, target := range []replay.Target{replay.Handler(h), replay.HTTP(srv.URL)} {
		rep, err := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Sessions(5), replay.Against(target))
		if rep == nil || err != nil || !rep.Passed() {
			t.Fatalf("%s: err %v; %+v %+v", target, err, rep.Validation, rep.Errors)
		}
		if rep.Validation.Checked != 5*(1+2*3) { // discover, then 2 rounds per call
			t.Errorf("%s: %d checked, want 35", target, rep.Validation.Checked)
		}
	}
	if n.bad != 0 {
		t.Errorf("the server got %d retries with a state it never gave", n.bad)
	}
}

// A server that needs more rounds than the recorded one fails at the
// round that differs, and the report says why.
func TestMRTRRoundsDiffer(t *testing.T) {
	n := &nonceServer{issued: map[string]bool{}}
	srv := httptest.NewServer(n.handler())
	defer srv.Close()
	path := testtape.RecordClient(t, testtape.HTTP(srv.URL), "", func(ctx context.Context, cs *mcp.ClientSession) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
		return err
	})
	n.more = true
	rep, _ := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Timeout(5*time.Second), replay.Against(replay.HTTP(srv.URL)))
	if rep == nil || rep.Passed() || rep.Validation.Failed != 1 {
		t.Fatalf("report %+v; want the second round to fail", rep.Validation)
	}
	if len(rep.Summary.Warnings) == 0 || !strings.Contains(rep.Summary.Warnings[0], "rounds differ from the recording's (recorded complete, live input_required)") {
		t.Errorf("warnings %q", rep.Summary.Warnings)
	}
}

// toolError is a tool's error result as an error.
type toolError struct{ r *mcp.CallToolResult }

func (e toolError) Error() string {
	var b strings.Builder
	for _, c := range e.r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
