package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The answer's events reach the client as the handler flushes them, and
// its headers as it calls WriteHeader, not when it returns.
func TestHandlerStreamsBeforeReturning(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(string(body), `"notifications/`):
			w.WriteHeader(http.StatusAccepted)
			select { // still running when Send has returned
			case <-release:
			case <-r.Context().Done():
			}
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
		}
	})
	c := dialIn(t, Handler{Handler: h, Logger: testLogger(t)}, "s1")
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`)
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	select {
	case in := <-c.Incoming():
		if !strings.Contains(string(in.Msg), "notifications/progress") || in.SSE == nil {
			t.Fatalf("got %s (SSE %+v), want the progress event", in.Msg, in.SSE)
		}
	case <-time.After(exchangeTimeout):
		t.Fatalf("no event within %s while the handler was still running", exchangeTimeout)
	}
	close(release)
	await(t, c, 1)
}

func TestHandlerSeesRequestAsServer(t *testing.T) {
	t.Setenv("REPLAYCTL_TEST_TOKEN", "sekret")
	got := make(chan *http.Request, 1)
	bodies := make(chan string, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- string(b)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(HeaderSessionID, "sess-9")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	c := dialIn(t, Handler{Handler: h, URL: "http://example.test/rpc?v=1", Logger: testLogger(t),
		Header: http.Header{"Authorization": {"Bearer ${REPLAYCTL_TEST_TOKEN}"}}}, "s1")
	msg := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	send(t, c, msg)
	in, _, _ := await(t, c, 1)
	r, body := <-got, <-bodies
	checks := []struct{ what, got, want string }{
		{"method", r.Method, "POST"},
		{"RequestURI", r.RequestURI, "/rpc?v=1"},
		{"URL", r.URL.String(), "/rpc?v=1"},
		{"Host", r.Host, "example.test"},
		{"RemoteAddr", r.RemoteAddr, inProcessRemoteAddr},
		{"Proto", r.Proto, "HTTP/1.1"},
		{"Authorization", r.Header.Get("Authorization"), "Bearer sekret"},
		{"Content-Type", r.Header.Get("Content-Type"), "application/json"},
		{"ContentLength", fmt.Sprint(r.ContentLength), fmt.Sprint(len(msg))},
		{"body", body, msg},
		{"context after return", fmt.Sprint(r.Context().Err()), "context canceled"},
		{"answer status", fmt.Sprint(in.HTTP.Status), "200"},
		{"answer session header", fmt.Sprint(in.HTTP.Headers[HeaderSessionID]), "[sess-9]"},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s: got %q, want %q", ck.what, ck.got, ck.want)
		}
	}
	if c.(*HTTPConn).SessionID() != "sess-9" {
		t.Errorf("got session %q, want sess-9", c.(*HTTPConn).SessionID())
	}
}

func TestHandlerPanics(t *testing.T) {
	tests := []struct {
		name    string
		handle  func(w http.ResponseWriter)
		wantErr error // Send's; nil: the answer begins, then breaks
	}{
		{"before the answer", func(http.ResponseWriter) { panic("nil map") }, ErrHandlerPanic},
		{"aborted before the answer", func(http.ResponseWriter) { panic(http.ErrAbortHandler) }, http.ErrAbortHandler},
		{"mid-answer", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
			panic("nil map")
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if body, _ := io.ReadAll(r.Body); strings.Contains(string(body), `"ping"`) {
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":2,"result":{}}`)
					return
				}
				tc.handle(w)
			})
			c := dialIn(t, Handler{Handler: h, Logger: testLogger(t)}, "s1")
			err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !errors.Is(err, ErrTarget) {
					t.Fatalf("Send: got %v, want an error wrapping %v and ErrTarget", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("Send: got %v, want the answer to begin", err)
				}
				if in := <-c.Incoming(); !strings.Contains(string(in.Msg), "notifications/progress") {
					t.Errorf("got %s, want the event written before the panic", in.Msg)
				}
			}
			send(t, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`) // the connection goes on
			await(t, c, 2)
		})
	}
}

// A request given up, or an answer closed, cancels the handler's context
// and waits for it to return; a handler that ignores that is waited for
// StopTimeout, not for ever.
func TestHandlerCancelled(t *testing.T) {
	tests := []struct {
		name          string
		ignoresCancel bool
	}{
		{"returns when cancelled", false},
		{"ignores cancellation", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			arrived := make(chan string, 2)
			var running atomic.Int32
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				running.Add(1)
				defer running.Add(-1)
				body, _ := io.ReadAll(r.Body)
				if strings.Contains(string(body), `"stream"`) {
					w.Header().Set("Content-Type", "text/event-stream")
					w.(http.Flusher).Flush()
				}
				arrived <- string(body)
				done := r.Context().Done()
				if tc.ignoresCancel {
					done = nil
				}
				select {
				case <-done:
				case <-release:
				}
			})
			c := dialIn(t, Handler{Handler: h, Logger: testLogger(t), StopTimeout: 50 * time.Millisecond}, "s1")

			ctx, cancel := context.WithCancel(t.Context())
			go func() { <-arrived; cancel() }()
			if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)); !errors.Is(err, context.Canceled) {
				t.Fatalf("Send given up: got %v, want context.Canceled", err)
			}

			send(t, c, `{"jsonrpc":"2.0","id":2,"method":"stream"}`) // an answer that never ends
			<-arrived
			closed := make(chan struct{})
			go func() { _ = c.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(exchangeTimeout):
				t.Fatalf("Close did not return within %s", exchangeTimeout)
			}
			if n := running.Load(); !tc.ignoresCancel && n != 0 {
				t.Errorf("after Close: got %d handlers running, want 0 (Close waits for them)", n)
			}
		})
	}
}
