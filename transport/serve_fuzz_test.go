package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzStreamablePost: whatever a client POSTs, with or without a session,
// the handler answers with a status it documents and, for an error, a
// JSON-RPC error body; it never panics (but for a hang-up, which cuts the
// connection on purpose).
func FuzzStreamablePost(f *testing.F) {
	for _, seed := range []string{
		initBody,
		`[` + initBody + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`,
		`[]`, `{}`, `null`, `[1,2]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hangup"}}`,
	} {
		f.Add(seed, "", "application/json, text/event-stream")
		f.Add(seed, "2026-07-28", "application/json")
	}
	f.Fuzz(func(t *testing.T, body, version, accept string) {
		// A tool that waits (sample asks the client, which never answers
		// here) is cut short: the request's deadline, then the resume
		// window, end it.
		released := make(chan struct{})
		close(released)
		h := NewStreamableHandler(&fakeServer{release: released}, ResumeWindow(10*time.Millisecond))
		defer h.Close()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		if version != "" {
			req.Header.Set("Mcp-Protocol-Version", version)
			req.Header.Set("Mcp-Method", "tools/call")
		}
		rec := httptest.NewRecorder()
		func() {
			defer func() {
				if r := recover(); r != nil {
					if err, ok := r.(error); !ok || !errors.Is(err, http.ErrAbortHandler) {
						panic(r)
					}
				}
			}()
			h.ServeHTTP(rec, req)
		}()
		switch rec.Code {
		case 200, 202:
		case 400, 404, 406, 413, 415, 500:
			var m struct {
				Error *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || m.Error == nil {
				t.Errorf("status %d with body %q: not a JSON-RPC error", rec.Code, rec.Body)
			}
		default:
			t.Errorf("status %d for %q", rec.Code, body)
		}
	})
}
