package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// Pacing (WithPace): a listener that says SessionInfo.Paces writes a
// message so marked in pieces, each its own write.

// writeCounter records each Write.
type writeCounter struct {
	mu     sync.Mutex // guards writes
	writes []string
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *writeCounter) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

const pacedCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"paced"}}`

// wantPieces checks that writes, joined, hold msg, written 7 bytes at a
// time from its start.
func wantPieces(t *testing.T, writes []string, msg string) {
	t.Helper()
	all := strings.Join(writes, "")
	start := strings.Index(all, msg)
	if start < 0 {
		t.Fatalf("the answer %q is not in what was written: %q", msg, all)
	}
	pieces := 0
	for _, w := range writes {
		if len(w) > 7 && strings.Contains(msg, w) {
			t.Errorf("a write of %d bytes inside the paced answer: %q", len(w), w)
		}
		if len(w) <= 7 && strings.Contains(all[start:], w) {
			pieces++
		}
	}
	if want := (len(msg) + 6) / 7; pieces < want-1 {
		t.Errorf("%d small writes, want about %d (the %d-byte answer in 7-byte pieces): %q", pieces, want, len(msg), writes)
	}
}

func TestServeStdioPaces(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &writeCounter{}
	done := make(chan error, 1)
	fake := &fakeServer{}
	go func() { done <- ServeStdio(ctx, r, out, fake) }()
	if _, err := w.WriteString(pacedCall + "\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r.Close()
	if infos := fake.sessionInfos(); len(infos) != 1 || !infos[0].Paces {
		t.Errorf("session infos %+v, want one that Paces", infos)
	}
	wantPieces(t, out.get(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"paced answer"}]}}`+"\n")
}

// countingRecorder counts the writes of a response.
type countingRecorder struct {
	*httptest.ResponseRecorder
	out writeCounter
}

func (c *countingRecorder) Write(p []byte) (int, error) {
	_, _ = c.out.Write(p)
	return c.ResponseRecorder.Write(p)
}

func TestStreamablePaces(t *testing.T) {
	for _, accept := range []string{"application/json, text/event-stream", "text/event-stream"} {
		t.Run(accept, func(t *testing.T) {
			fake := &fakeServer{}
			h := NewStreamableHandler(fake)
			defer h.Close()
			post := func(body, session string) *countingRecorder {
				req := httptest.NewRequestWithContext(t.Context(), "POST", "/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", accept)
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
				}
				rec := &countingRecorder{ResponseRecorder: httptest.NewRecorder()}
				h.ServeHTTP(rec, req)
				return rec
			}
			init := post(initBody, "")
			id := init.Header().Get("Mcp-Session-Id")
			if id == "" {
				t.Fatalf("initialize: %d %s", init.Code, init.Body)
			}
			rec := post(pacedCall, id)
			if rec.Code != http.StatusOK || !rec.Flushed {
				t.Errorf("status %d, flushed %v", rec.Code, rec.Flushed)
			}
			wantPieces(t, rec.out.get(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"paced answer"}]}}`)
		})
	}
}
