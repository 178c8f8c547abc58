package transport

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

func TestLegacySSERealServer(t *testing.T) {
	conn, err := LegacySSE{URL: testserver.EverythingSSE(t), Logger: testLogger(t)}.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	c := conn.(*LegacyConn)
	defer c.Close()
	if !strings.Contains(c.Endpoint(), "/message?sessionId=") {
		t.Errorf("got endpoint %q, want the server's /message?sessionId=… resolved", c.Endpoint())
	}
	init := mcpSession(t, c, "echo", `{"message":"legacy"}`, "Echo: legacy")
	if init.SSE == nil || init.SSE.Event != "message" || init.HTTP == nil || init.HTTP.Status != 200 {
		t.Errorf("initialize answer meta: got SSE %+v HTTP %+v, want event message, status 200", init.SSE, init.HTTP)
	}
	if err := c.Close(); err != nil || c.Err() != nil {
		t.Errorf("Close: got %v, Err %v; want nil, nil", err, c.Err())
	}
}

func TestLegacySSEStreamEnds(t *testing.T) {
	posted := make(chan string, 1)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch s.Method {
		case http.MethodGet:
			writeSSE(w, "event: endpoint\ndata: /msg?sid=1\n\n",
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"hello\"}\n\n")
		case http.MethodPost:
			posted <- r.URL.String()
			w.WriteHeader(http.StatusAccepted)
		}
	})
	conn, err := LegacySSE{URL: f.srv.URL + "/sse", Logger: testLogger(t)}.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer conn.Close()
	send(t, conn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if got := <-posted; got != "/msg?sid=1" {
		t.Errorf("POST went to %q, want /msg?sid=1", got)
	}
	var got []string
	for in := range conn.Incoming() {
		got = append(got, string(in.Msg))
	}
	if len(got) != 1 || !strings.Contains(got[0], "hello") {
		t.Errorf("got messages %q, want the hello notification", got)
	}
	if err := conn.Err(); !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "server closed it") {
		t.Errorf("Err: got %v, want the stream's end wrapping ErrTarget", err)
	}
}

func TestLegacySSEDialErrors(t *testing.T) {
	tests := []struct {
		name   string
		handle func(w http.ResponseWriter)
		want   string
	}{
		{"not found", func(w http.ResponseWriter) { w.WriteHeader(404) }, "HTTP 404"},
		{"not SSE", func(w http.ResponseWriter) { writeJSON(w, 200, "{}") }, "not an event stream"},
		{"no endpoint", func(w http.ResponseWriter) { writeSSE(w, "data: {}\n\n") }, "before the endpoint event"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) { tc.handle(w) })
			c, err := LegacySSE{URL: f.srv.URL, Logger: testLogger(t)}.Dial(t.Context(), "s")
			if err == nil {
				_ = c.Close()
				t.Fatalf("got a connection, want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to contain %q", err, tc.want)
			}
		})
	}
}
