package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// seen is a request as the fake server saw it.
type seen struct {
	Method string
	Header http.Header
	Body   string
}

// fake is a scripted Streamable HTTP server on 127.0.0.1.
type fake struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex // guards reqs
	reqs   []seen
	handle func(w http.ResponseWriter, r *http.Request, s seen)
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, s seen)) *fake {
	f := &fake{t: t, handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := seen{Method: r.Method, Header: r.Header.Clone(), Body: string(body)}
		f.mu.Lock()
		f.reqs = append(f.reqs, s)
		f.mu.Unlock()
		f.handle(w, r, s)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func (f *fake) dial(t *testing.T, h HTTP) *HTTPConn {
	t.Helper()
	h.URL, h.Logger = f.srv.URL+"/mcp", testLogger(t)
	c, err := h.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*HTTPConn)
}

func writeSSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		_, _ = io.WriteString(w, e)
	}
	w.(http.Flusher).Flush()
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

const initAnswer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"fake","version":"0"}}}`

func TestHTTPHandshakeAndStreams(t *testing.T) {
	t.Setenv("REPLAYCTL_TEST_TOKEN", "sekret")
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case s.Method == http.MethodPost && strings.Contains(s.Body, `"initialize"`):
			w.Header().Set(HeaderSessionID, "sess-1")
			writeJSON(w, http.StatusOK, initAnswer)
		case s.Method == http.MethodPost && strings.Contains(s.Body, `"notifications/initialized"`):
			w.WriteHeader(http.StatusAccepted)
		case s.Method == http.MethodPost && strings.Contains(s.Body, `"tools/list"`):
			writeSSE(w,
				": keep-alive\n\n",
				"id: p0\ndata:\n\n",
				"id: a1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
				"id: a2\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"roots/list\"}\n\n",
				"id: a3\nretry: 1500\ndata: {\"jsonrpc\":\"2.0\",\n",
				"data: \"id\":2,\"result\":{\"tools\":[]}}\n\n")
		case s.Method == http.MethodPost && strings.Contains(s.Body, `"batch"`):
			writeJSON(w, http.StatusOK, `[{"jsonrpc":"2.0","id":7,"result":{}}, {"jsonrpc":"2.0","id":8,"result":{}}]`)
		case s.Method == http.MethodGet:
			writeSSE(w, "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n")
			<-r.Context().Done() // held open until the client goes
		case s.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusTeapot)
		}
	})
	c := f.dial(t, HTTP{Header: http.Header{"Authorization": {"Bearer ${REPLAYCTL_TEST_TOKEN}"}}})

	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	in, _, _ := await(t, c, 1)
	if in.HTTP == nil || in.HTTP.Status != 200 || in.HTTP.Headers[HeaderSessionID][0] != "sess-1" || in.SSE != nil {
		t.Errorf("initialize answer meta: got HTTP %+v SSE %+v, want status 200 with the session header, no SSE", in.HTTP, in.SSE)
	}
	if c.SessionID() != "sess-1" || c.ProtocolVersion() != "2025-06-18" {
		t.Errorf("got session %q version %q, want sess-1 2025-06-18", c.SessionID(), c.ProtocolVersion())
	}
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	get := <-c.Incoming() // the standalone GET stream's message
	if !strings.Contains(string(get.Msg), "notifications/message") || get.SSE == nil || get.SSE.ID != "g1" {
		t.Errorf("GET stream: got %s SSE %+v, want notifications/message with id g1", get.Msg, get.SSE)
	}

	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	ans, _, before := await(t, c, 2)
	var order []string
	for _, b := range before {
		order = append(order, b.SSE.ID)
	}
	if fmt.Sprint(order) != "[a1 a2]" {
		t.Errorf("messages before the answer: got ids %v, want [a1 a2] in order", order)
	}
	if ans.SSE == nil || ans.SSE.ID != "a3" || ans.SSE.Retry != 1500 || ans.HTTP.Status != 200 {
		t.Errorf("answer meta: got SSE %+v HTTP %+v, want id a3 retry 1500 status 200", ans.SSE, ans.HTTP)
	}
	if want := "{\"jsonrpc\":\"2.0\",\n\"id\":2,\"result\":{\"tools\":[]}}"; string(ans.Msg) != want {
		t.Errorf("multi-line data: got %q, want %q", ans.Msg, want)
	}

	send(t, c, `{"jsonrpc":"2.0","id":7,"method":"batch"}`)
	for _, id := range []int{7, 8} {
		await(t, c, id)
	}

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, ok := <-c.Incoming(); ok {
		t.Errorf("Incoming after Close: got a message, want closed")
	}

	reqs := f.requests()
	initialized := slices.IndexFunc(reqs, func(r seen) bool { return strings.Contains(r.Body, `"notifications/initialized"`) })
	checks := []struct {
		name       string
		req        seen
		sid, pv    string
		accept, ct string
	}{
		{"initialize", reqs[0], "", "", "application/json, text/event-stream", "application/json"},
		{"initialized", reqs[initialized], "sess-1", "2025-06-18", "application/json, text/event-stream", "application/json"},
		{"last", reqs[len(reqs)-1], "sess-1", "2025-06-18", "", ""},
	}
	for _, ck := range checks {
		h := ck.req.Header
		if h.Get(HeaderSessionID) != ck.sid || h.Get(HeaderProtocolVersion) != ck.pv ||
			h.Get("Accept") != ck.accept || h.Get("Content-Type") != ck.ct {
			t.Errorf("%s request headers: got session %q version %q accept %q type %q, want %q %q %q %q", ck.name,
				h.Get(HeaderSessionID), h.Get(HeaderProtocolVersion), h.Get("Accept"), h.Get("Content-Type"),
				ck.sid, ck.pv, ck.accept, ck.ct)
		}
		if got := h.Get("Authorization"); got != "Bearer sekret" {
			t.Errorf("%s: got Authorization %q, want the expanded token", ck.name, got)
		}
	}
	var methods []string
	for _, r := range reqs {
		methods = append(methods, r.Method)
	}
	if got := fmt.Sprint(methods); !strings.Contains(got, "GET") || methods[len(methods)-1] != http.MethodDelete {
		t.Errorf("got requests %v, want a GET stream and DELETE last", got)
	}
	if h := reqs[len(reqs)-1].Header; h.Get(HeaderSessionID) != "sess-1" {
		t.Errorf("DELETE: got session %q, want sess-1", h.Get(HeaderSessionID))
	}
}

// TestHTTPGETBeforeInitialized: the standalone GET stream is open before
// notifications/initialized is posted, so that what a server sends to it
// as it handles initialized arrives. The fake server, like the TypeScript
// SDK's, drops a notification when no GET stream is open.
func TestHTTPGETBeforeInitialized(t *testing.T) {
	var mu sync.Mutex // guards stream
	var stream chan string
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case s.Method == http.MethodPost && strings.Contains(s.Body, `"initialize"`):
			w.Header().Set(HeaderSessionID, "sess-1")
			writeJSON(w, http.StatusOK, initAnswer)
		case s.Method == http.MethodPost && strings.Contains(s.Body, `"notifications/initialized"`):
			mu.Lock()
			if stream != nil {
				stream <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
			}
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		case s.Method == http.MethodGet:
			ch := make(chan string, 1)
			mu.Lock()
			stream = ch // registered before the headers go, as the TypeScript SDK does
			mu.Unlock()
			writeSSE(w) // the headers: the stream is open
			select {
			case msg := <-ch:
				writeSSE(w, "data: "+msg+"\n\n")
			case <-r.Context().Done():
				return
			}
			<-r.Context().Done()
		case s.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		}
	})
	c := f.dial(t, HTTP{})
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	await(t, c, 1)
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	select {
	case in := <-c.Incoming():
		if !strings.Contains(string(in.Msg), "tools/list_changed") {
			t.Errorf("got %s, want the notification sent to the GET stream", in.Msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the notification the server sent as it handled initialized never came: the GET stream was not open yet")
	}
}

// TestHTTPFallbackToInitialize: a client that probes with a 2026-07-28
// server/discover, is refused, and falls back to initialize (as the go-sdk
// client does against an older server) is session-based from the
// answer on: its later requests carry the agreed version, not the probe's.
func TestHTTPFallbackToInitialize(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case strings.Contains(s.Body, `"server/discover"`):
			writeJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
		case strings.Contains(s.Body, `"initialize"`):
			w.Header().Set(HeaderSessionID, "sess-1")
			writeJSON(w, http.StatusOK, initAnswer)
		case strings.Contains(s.Body, `"tools/list"`):
			writeJSON(w, http.StatusOK, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
		case s.Method == http.MethodPost:
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
	c := f.dial(t, HTTP{})
	probe := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	send(t, c, probe)
	// The 400's error has a null id: it is the probe's answer all the same.
	refused, _, _ := await(t, c, 0)
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":0}`; string(refused.Msg) != want || refused.HTTP == nil || refused.HTTP.Status != http.StatusBadRequest {
		t.Fatalf("probe answer %s (HTTP %+v), want %s with status 400", refused.Msg, refused.HTTP, want)
	}
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	await(t, c, 1)
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	await(t, c, 2)
	for _, r := range f.requests() {
		if strings.Contains(r.Body, `"initialize"`) {
			if got := r.Header.Get(HeaderProtocolVersion); got != "" {
				t.Errorf("initialize after the probe: got %s %q, want none (the probe's revision is not the handshake's)", HeaderProtocolVersion, got)
			}
		}
		if strings.Contains(r.Body, `"tools/list"`) || strings.Contains(r.Body, `"notifications/initialized"`) {
			if got := r.Header.Get(HeaderProtocolVersion); got != "2025-06-18" {
				t.Errorf("%s: got %s %q, want the version initialize agreed, 2025-06-18", r.Body, HeaderProtocolVersion, got)
			}
		}
	}
}

func TestHTTPResumeWithLastEventID(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch s.Method {
		case http.MethodPost: // a stream that drops before the answer
			writeSSE(w, "retry: 5\nid: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
			panic(http.ErrAbortHandler)
		case http.MethodGet:
			if r.Header.Get(HeaderLastEventID) != "e1" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			writeSSE(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n")
		}
	})
	c := f.dial(t, HTTP{})
	send(t, c, `{"jsonrpc":"2.0","id":5,"method":"tools/call"}`)
	ans, _, before := await(t, c, 5)
	if len(before) != 1 || before[0].SSE.ID != "e1" || ans.SSE.ID != "e2" {
		t.Fatalf("got %d messages before, answer SSE %+v; want e1 then the answer as e2", len(before), ans.SSE)
	}
	var gets []string
	for _, r := range f.requests() {
		if r.Method == http.MethodGet {
			gets = append(gets, r.Header.Get(HeaderLastEventID))
		}
	}
	if fmt.Sprint(gets) != "[e1]" {
		t.Errorf("got GETs with Last-Event-ID %v, want exactly [e1]", gets)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		retry     time.Duration
		temporary bool
	}{
		{"503 with Retry-After", 503, http.Header{"Retry-After": {"2"}}, "overloaded", 2 * time.Second, true},
		{"429", 429, nil, "slow down", 0, true},
		{"500 long body truncated", 500, nil, strings.Repeat("e", 10000), 0, true},
		{"400", 400, nil, `{"error":"bad"}`, 0, false},
		{"404 session gone", 404, nil, "", 0, false},
		{"400 JSON-RPC error of another request", 400, http.Header{"Content-Type": {"application/json"}},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}`, 0, false},
		{"429 JSON-RPC error asks for a retry", 429, http.Header{"Content-Type": {"application/json"}},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"busy"}}`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
				for k, vs := range tc.header {
					w.Header()[k] = vs
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			c := f.dial(t, HTTP{})
			err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			var he *HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("got %v (%T), want *HTTPError", err, err)
			}
			if he.Status != tc.status || he.RetryAfter != tc.retry || he.Temporary() != tc.temporary {
				t.Errorf("got status %d retry %v temporary %v, want %d %v %v", he.Status, he.RetryAfter, he.Temporary(), tc.status, tc.retry, tc.temporary)
			}
			if len(he.Body) > errorBodyBytes || !strings.HasPrefix(he.Body, tc.body[:min(len(tc.body), 20)]) {
				t.Errorf("got body of %d bytes %q…, want at most %d starting %q", len(he.Body), clip([]byte(he.Body), 20), errorBodyBytes, tc.body[:min(len(tc.body), 20)])
			}
		})
	}
}

// A JSON-RPC error answering the request, with a 4xx status (as servers of
// MCP 2026-07-28 answer a header mismatch, an unknown method or bad
// params), is the request's answer, not a failed send.
func TestHTTPErrorAnswer(t *testing.T) {
	for _, status := range []int{400, 404} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			const answer = `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"missing required Mcp-Method header"}}`
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = io.WriteString(w, answer+"\n")
			})
			c := f.dial(t, HTTP{})
			if err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)); err != nil {
				t.Fatalf("Send: %v, want the error delivered as the answer", err)
			}
			select {
			case in := <-c.Incoming():
				if string(in.Msg) != answer || in.HTTP == nil || in.HTTP.Status != status {
					t.Errorf("got %s (HTTP %+v), want the error answer with status %d", in.Msg, in.HTTP, status)
				}
			case <-time.After(30 * time.Second): // a bound, not a wait: the answer comes at once
				t.Fatal("no answer delivered")
			}
		})
	}
}

// A JSON-RPC error with a null id answers the POST's one request (its
// id put in place of null); not a POST of a notification or of a client's
// answer, and not a 429 or 5xx: those stay an *HTTPError.
func TestHTTPNullIDErrorAnswer(t *testing.T) {
	const refusal = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	const status = http.StatusBadRequest
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case s.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(s.Body, `"id":4`):
			writeJSON(w, http.StatusTooManyRequests, refusal)
		default:
			writeJSON(w, status, refusal)
		}
	})
	c := f.dial(t, HTTP{})
	send(t, c, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	in, _, _ := await(t, c, 7)
	if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`; string(in.Msg) != want || in.HTTP.Status != status {
		t.Errorf("got %s (HTTP %+v), want %s with status %d", in.Msg, in.HTTP, want, status)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, // no request to answer
		`{"jsonrpc":"2.0","id":3,"result":{}}`,                   // a client's answer
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,   // no id an answer may carry (chaos's invalid)
	} {
		var he *HTTPError
		if err := c.Send(t.Context(), []byte(msg)); !errors.As(err, &he) || he.Status != status {
			t.Errorf("POST %s: got %v, want an *HTTPError with status %d", msg, err, status)
		}
	}
	var he *HTTPError
	if err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)); !errors.As(err, &he) || he.Status != http.StatusTooManyRequests {
		t.Errorf("429: got %v, want an *HTTPError", err)
	}
}

func TestHTTPNoGETNoDELETE(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case s.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(s.Body, "initialize\""):
			w.Header().Set(HeaderSessionID, "s")
			writeJSON(w, 200, initAnswer)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	c := f.dial(t, HTTP{})
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	await(t, c, 1)
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// The GET runs on its own goroutine, so it may come anywhere after
	// the second POST, or not before Close; DELETE is always last.
	var methods []string
	for _, r := range f.requests() {
		if r.Method != http.MethodGet {
			methods = append(methods, r.Method)
		}
	}
	if got := fmt.Sprint(methods); got != "[POST POST POST DELETE]" {
		t.Errorf("got requests %s (GETs left out), want three POSTs then DELETE", got)
	}
}

func TestHTTPSendCancelledBeforeAnswer(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		if strings.Contains(s.Body, `"slow"`) {
			close(arrived)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	})
	defer close(release)
	c := f.dial(t, HTTP{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	await(t, c, 2)
}

func TestHTTPUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	c, err := HTTP{URL: "http://" + addr + "/mcp", Logger: testLogger(t)}.Dial(t.Context(), "s")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	if err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); !errors.Is(err, ErrTarget) {
		t.Fatalf("got %v, want an error wrapping ErrTarget", err)
	}
}

func TestHTTPDialErrors(t *testing.T) {
	tests := []struct {
		name string
		h    HTTP
		want string
	}{
		{"no scheme", HTTP{URL: "localhost:3000/mcp"}, "want an http:// or https:// URL"},
		{"unset variable", HTTP{URL: "http://127.0.0.1:1/", Header: http.Header{"Authorization": {"Bearer ${REPLAYCTL_SURELY_UNSET}"}}},
			"header Authorization: environment variable REPLAYCTL_SURELY_UNSET is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.h.Dial(t.Context(), "s")
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

func TestHTTPRealServers(t *testing.T) {
	tests := []struct {
		name           string
		url            func(testing.TB) string
		tool, args, in string
	}{
		{"server-everything", testserver.EverythingHTTP, "echo", `{"message":"over http"}`, "Echo: over http"},
		{"go-sdk conformance", testserver.GoSDKHTTP, "test_simple_text", `{}`, "simple text response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := tc.url(t)
			conn, err := HTTP{URL: url, Logger: testLogger(t)}.Dial(t.Context(), "s1")
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			c := conn.(*HTTPConn)
			defer c.Close()
			init := mcpSession(t, c, tc.tool, tc.args, tc.in)
			if init.HTTP == nil || init.HTTP.Status != 200 {
				t.Errorf("initialize answer: got HTTP meta %+v, want status 200", init.HTTP)
			}
			if c.SessionID() == "" || c.ProtocolVersion() == "" {
				t.Errorf("got session %q version %q, want both set", c.SessionID(), c.ProtocolVersion())
			}
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			// The server forgot the session: a request with its id is refused.
			c2, _ := HTTP{URL: url, Header: http.Header{HeaderSessionID: {c.SessionID()}}}.Dial(t.Context(), "s2")
			defer c2.Close()
			var he *HTTPError
			if err := c2.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)); !errors.As(err, &he) {
				t.Errorf("request with a deleted session: got %v, want *HTTPError", err)
			}
		})
	}
}

func TestExpandHeader(t *testing.T) {
	env := map[string]string{"TOKEN": "abc", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		in, want, err string
	}{
		{"plain", "plain", ""},
		{"Bearer ${TOKEN}", "Bearer abc", ""},
		{"${TOKEN}${EMPTY}-${TOKEN}", "abc-abc", ""},
		{"$TOKEN and $ sign", "$TOKEN and $ sign", ""},
		{"${MISSING}", "", "MISSING is not set"},
		{"${TOKEN", "", "unterminated"},
		{"${1X}", "", "bad variable name"},
		{"${}", "", "bad variable name"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := expandVars(tc.in, lookup, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"7", 7 * time.Second}, {"-1", 0}, {"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.in, now); got != tc.want {
			t.Errorf("retryAfter(%q): got %v, want %v", tc.in, got, tc.want)
		}
	}
}

// A stateless session's POSTs (MCP 2026-07-28) carry the headers the
// revision requires, from each message; a session-based one's do not.
func TestHTTPStandardHeaders(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	tools := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"where","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}`
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case strings.Contains(s.Body, `"tools/list"`):
			writeJSON(w, 200, tools)
		case strings.Contains(s.Body, `"id"`):
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":2,"result":{}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	c := f.dial(t, HTTP{})
	send := func(msg string) {
		t.Helper()
		if err := c.Send(t.Context(), []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
	<-c.Incoming() // the tools are learned before the answer is delivered
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"where","arguments":{"region":"Zürich"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	want := []map[string]string{
		{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": ""},
		{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "where", "Mcp-Param-Region": "=?base64?WsO8cmljaA==?="},
		// A notification has no _meta: the session's version.
		{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "notifications/cancelled"},
	}
	for i, w := range want {
		for k, v := range w {
			if got := reqs[i].Header.Get(k); got != v {
				t.Errorf("request %d %s = %q, want %q", i, k, got, v)
			}
		}
	}

	// Session-based: only what it had before.
	old := f.dial(t, HTTP{})
	if err := old.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"where","arguments":{}}}`)); err != nil {
		t.Fatal(err)
	}
	last := f.requests()[3]
	if last.Header.Get("Mcp-Method") != "" || last.Header.Get("Mcp-Protocol-Version") != "" {
		t.Errorf("a session-based request got %v", last.Header)
	}
}

// TestHTTPProbeAnsweredThenInitialize: the go-sdk stateful server answers
// a 2026-07-28 server/discover probe with 200 and the versions it
// supports, none of them 2026-07-28; a client then falls back to
// initialize (the go-sdk client does). The handshake must not carry the
// probe's Mcp-Protocol-Version, or the server refuses it (-32022).
func TestHTTPProbeAnsweredThenInitialize(t *testing.T) {
	url := testserver.GoSDKHTTP(t)
	conn, err := HTTP{URL: url, Logger: testLogger(t)}.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	c := conn.(*HTTPConn)
	defer c.Close()
	send(t, c, `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if in, probe, _ := await(t, c, 0); probe.Error != nil || !strings.Contains(string(probe.Result), `"supportedVersions"`) {
		t.Fatalf("probe: got %s, want a result listing supportedVersions (the server this test needs)", in.Msg)
	}
	mcpSession(t, c, "test_simple_text", `{}`, "simple text response")
	if got := c.ProtocolVersion(); got != "2025-06-18" {
		t.Errorf("got protocol version %q, want 2025-06-18 as initialize agreed", got)
	}
}
