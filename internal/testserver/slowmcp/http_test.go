package slowmcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// post sends body to url and returns the status, headers and body of the
// answer.
func post(t *testing.T, ctx context.Context, client *http.Client, url, body string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// newServer serves h on loopback until the test ends, with a client whose
// connections are closed then too.
func newServer(t *testing.T, h http.Handler) (string, *http.Client) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := srv.Client()
	t.Cleanup(client.CloseIdleConnections)
	return srv.URL + "/mcp", client
}

func TestHandler(t *testing.T) {
	const delay = 50 * time.Millisecond
	url, client := newServer(t, Handler(WithDelay(delay)))
	tests := []struct {
		name       string
		method     string
		body       string
		wantStatus int
		wantType   string
		wantBody   string // prefix
		minTime    time.Duration
	}{
		{"initialize", "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"`, 0},
		{"tools/call is delayed", "POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
			200, "application/json", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}`, delay},
		{"notification", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, "", "", 0},
		{"response", "POST", `{"jsonrpc":"2.0","id":"srv-1","result":{}}`, 202, "", "", 0},
		{"not JSON", "POST", `nope`, 400, "application/json", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`, 0},
		{"unknown method", "POST", `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`, 200, "application/json",
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601`, 0},
		{"GET", "GET", "", 405, "", "", 0},
		{"DELETE", "DELETE", "", 405, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tc.method, url, strings.NewReader(tc.body))
			req.Header.Set("Accept", "application/json, text/event-stream")
			began := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", tc.method, err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			took := time.Since(began)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("got status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if got := resp.Header.Get("Content-Type"); tc.wantType != "" && got != tc.wantType {
				t.Errorf("got Content-Type %q, want %q", got, tc.wantType)
			}
			if tc.wantStatus == 202 && len(b) != 0 {
				t.Errorf("got body %q, want none", b)
			}
			if !strings.HasPrefix(string(b), tc.wantBody) {
				t.Errorf("got body %s, want it to start with %s", b, tc.wantBody)
			}
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				t.Errorf("got Mcp-Session-Id %q, want none (stateless)", id)
			}
			if took < tc.minTime {
				t.Errorf("answered after %s, want at least %s", took, tc.minTime)
			}
		})
	}
}

func TestHandlerHang(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`
	t.Run("headers", func(t *testing.T) {
		url, client := newServer(t, Handler(WithHang(HangHeaders)))
		if resp, _, err := post(t, t.Context(), client, url, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); err != nil || resp.StatusCode != 200 {
			t.Fatalf("ping: got %v, %v; want 200 (only tools/call hangs)", resp, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		resp, _, err := post(t, ctx, client, url, call)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("tools/call: got %v, %v; want no answer until the deadline", resp, err)
		}
	})
	t.Run("429", func(t *testing.T) {
		url, client := newServer(t, Handler(WithHang(Hang429)))
		resp, _, err := post(t, t.Context(), client, url, call)
		if err != nil {
			t.Fatalf("tools/call: %v", err)
		}
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != RetryAfter {
			t.Errorf("got status %d, Retry-After %q; want 429, %s", resp.StatusCode, resp.Header.Get("Retry-After"), RetryAfter)
		}
	})
}

func BenchmarkHandler(b *testing.B) {
	h := Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
