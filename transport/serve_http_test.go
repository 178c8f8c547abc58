package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The Streamable HTTP handler's edges, spoken to with plain HTTP requests.

const (
	initBody    = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	both        = "application/json, text/event-stream"
)

type rawClient struct {
	t   *testing.T
	url string
	hc  *http.Client
}

func newRawClient(t *testing.T, url string) *rawClient {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	return &rawClient{t: t, url: url, hc: hc}
}

// do sends a request; header pairs are name, value, ….
func (c *rawClient) do(method, body string, header ...string) *http.Response {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), exchangeTimeout)
	c.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// initialize opens a session and returns its id.
func (c *rawClient) initialize() string {
	c.t.Helper()
	resp := c.do("POST", initBody, "Accept", both)
	body, _ := io.ReadAll(resp.Body)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		c.t.Fatalf("initialize: status %d, session %q, body %s", resp.StatusCode, id, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		c.t.Errorf("initialize answered as %q, want application/json (the answer alone)", ct)
	}
	if r := c.do("POST", initialized, "Accept", both, "Mcp-Session-Id", id); r.StatusCode != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: status %d, want 202", r.StatusCode)
	}
	return id
}

// wantError checks an HTTP error answer: its status and a JSON-RPC
// error body with code.
func wantError(t *testing.T, resp *http.Response, status, code int) string {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Errorf("status %d, want %d (body %s)", resp.StatusCode, status, body)
	}
	var m rpc
	if err := json.Unmarshal(body, &m); err != nil || m.Error == nil {
		t.Fatalf("body %s is not a JSON-RPC error (%v)", body, err)
	}
	if m.Error.Code != code {
		t.Errorf("error code %d, want %d: %s", m.Error.Code, code, m.Error.Message)
	}
	return m.Error.Message
}

// sseEvents reads an event stream to its end.
func sseEvents(t *testing.T, resp *http.Response) []SSEEvent {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	evs, _, err := readAllEvents(resp.Body)
	if err != nil {
		t.Fatalf("read events: %v (after %d)", err, len(evs))
	}
	return evs
}

func TestStreamableEdges(t *testing.T) {
	fake, _, url := serveFake(t)
	c := newRawClient(t, url)
	id := c.initialize()
	call := func(n int, tool string) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+n)) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"x"},"_meta":{"progressToken":7}}}`
	}

	t.Run("unknown session", func(t *testing.T) {
		wantError(t, c.do("POST", call(2, "echo"), "Accept", both, "Mcp-Session-Id", "nope"), 404, -32600)
		wantError(t, c.do("GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", "nope"), 404, -32600)
		wantError(t, c.do("DELETE", "", "Mcp-Session-Id", "nope"), 404, -32600)
	})
	t.Run("no session id after initialize", func(t *testing.T) {
		wantError(t, c.do("POST", call(2, "echo"), "Accept", both), 400, -32600)
		wantError(t, c.do("GET", "", "Accept", "text/event-stream"), 400, -32600)
	})
	t.Run("wrong Accept", func(t *testing.T) {
		wantError(t, c.do("POST", call(2, "echo"), "Accept", "text/html", "Mcp-Session-Id", id), 406, -32600)
		wantError(t, c.do("GET", "", "Accept", "application/json", "Mcp-Session-Id", id), 406, -32600)
	})
	t.Run("wrong Content-Type", func(t *testing.T) {
		wantError(t, c.do("POST", call(2, "echo"), "Accept", both, "Content-Type", "text/plain", "Mcp-Session-Id", id), 415, -32600)
	})
	t.Run("unknown protocol version", func(t *testing.T) {
		wantError(t, c.do("POST", call(2, "echo"), "Accept", both, "Mcp-Session-Id", id, "Mcp-Protocol-Version", "1999-01-01"), 400, -32600)
	})
	t.Run("not JSON", func(t *testing.T) {
		wantError(t, c.do("POST", `{"jsonrpc":`, "Accept", both, "Mcp-Session-Id", id), 400, -32700)
	})
	t.Run("bad Origin", func(t *testing.T) {
		msg := wantError(t, c.do("POST", call(2, "echo"), "Accept", both, "Mcp-Session-Id", id, "Origin", "http://evil.example"), 403, -32600)
		if !strings.Contains(msg, "evil.example") {
			t.Errorf("message %q does not name the origin", msg)
		}
		if r := c.do("POST", call(2, "echo"), "Accept", both, "Mcp-Session-Id", id, "Origin", "http://localhost:3000"); r.StatusCode != 200 {
			t.Errorf("loopback Origin: status %d, want 200", r.StatusCode)
		}
	})
	t.Run("progress then answer on an event stream", func(t *testing.T) {
		evs := sseEvents(t, c.do("POST", call(3, "echo"), "Accept", both, "Mcp-Session-Id", id))
		if len(evs) != 2 || !strings.Contains(string(evs[0].Data), "notifications/progress") || !strings.Contains(string(evs[1].Data), `"id":3`) {
			t.Fatalf("events %+v, want progress then the answer", evs)
		}
		for _, ev := range evs {
			if !ev.HasID || ev.ID == "" {
				t.Errorf("event %q has no id", ev.Data)
			}
		}
	})
	t.Run("only JSON accepted", func(t *testing.T) {
		resp := c.do("POST", call(4, "echo"), "Accept", "application/json", "Mcp-Session-Id", id)
		body, _ := io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(string(body), `"text":"x"`) {
			t.Errorf("Content-Type %q body %s, want the answer as JSON", ct, body)
		}
	})
	t.Run("batch", func(t *testing.T) {
		batch := "[" + call(5, "echo") + "," + initialized + "," + call(6, "echo") + "]"
		evs := sseEvents(t, c.do("POST", batch, "Accept", both, "Mcp-Session-Id", id))
		answers := 0
		for _, ev := range evs {
			if strings.Contains(string(ev.Data), `"result"`) {
				answers++
			}
		}
		if answers != 2 {
			t.Errorf("batch: %d answers in %d events, want 2", answers, len(evs))
		}
		resp := c.do("POST", batch, "Accept", "application/json", "Mcp-Session-Id", id)
		var arr []rpc
		if err := json.NewDecoder(resp.Body).Decode(&arr); err != nil || len(arr) != 2 {
			t.Errorf("batch to a JSON-only client: %v, %d answers, want a JSON array of 2", err, len(arr))
		}
		if r := c.do("POST", "["+initialized+"]", "Accept", both, "Mcp-Session-Id", id); r.StatusCode != 202 {
			t.Errorf("batch of notifications: status %d, want 202", r.StatusCode)
		}
	})
	t.Run("a failing session answers with an error", func(t *testing.T) {
		for _, tool := range []string{"fail", "silent"} {
			resp := c.do("POST", call(7, tool), "Accept", both, "Mcp-Session-Id", id)
			var m rpc
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Error == nil || m.Error.Code != -32603 {
				t.Errorf("%s: %v %+v, want error -32603", tool, err, m)
			}
		}
	})
	t.Run("hang up", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(call(8, "hangup")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := c.hc.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err == nil {
			t.Errorf("hang up: a whole answer (status %d), want the connection cut", resp.StatusCode)
		}
	})
	t.Run("GET stream keeps what came before it", func(t *testing.T) {
		if r := c.do("POST", call(9, "log"), "Accept", both, "Mcp-Session-Id", id); r.StatusCode != 200 {
			t.Fatalf("log: status %d", r.StatusCode)
		}
		resp := c.do("GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", id)
		if resp.StatusCode != 200 {
			t.Fatalf("GET: status %d", resp.StatusCode)
		}
		// The progress notifications sent to the JSON-only client went
		// here too, before the log.
		r := NewSSEReader(resp.Body)
		for n := 0; ; n++ {
			ev, err := r.Next()
			if err != nil {
				t.Fatalf("GET stream: %v before the log notification", err)
			}
			if want := "0-" + strconv.Itoa(n); ev.ID != want {
				t.Errorf("GET stream event %d: id %q, want %q", n, ev.ID, want)
			}
			if strings.Contains(string(ev.Data), "fake log") {
				break
			}
		}
		wantError(t, c.do("GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", id), 409, -32600)
	})
	t.Run("resume with Last-Event-ID", func(t *testing.T) {
		evs := sseEvents(t, c.do("POST", call(3, "echo"), "Accept", both, "Mcp-Session-Id", id))
		resp := c.do("GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", id, "Last-Event-ID", evs[0].ID)
		again := sseEvents(t, resp)
		if len(again) != 1 || again[0].ID != evs[1].ID || string(again[0].Data) != string(evs[1].Data) {
			t.Errorf("resumed after %s: %+v, want the answer %q again", evs[0].ID, again, evs[1].Data)
		}
		wantError(t, c.do("GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", id, "Last-Event-ID", "99-0"), 400, -32600)
	})
	t.Run("DELETE", func(t *testing.T) {
		if r := c.do("DELETE", "", "Mcp-Session-Id", id); r.StatusCode != 204 {
			t.Fatalf("DELETE: status %d, want 204", r.StatusCode)
		}
		if got := fake.closed.Load(); got != 1 {
			t.Errorf("%d sessions closed, want 1", got)
		}
		wantError(t, c.do("POST", call(2, "echo"), "Accept", both, "Mcp-Session-Id", id), 404, -32600)
	})
}

func TestStreamableBodyLimit(t *testing.T) {
	_, _, url := serveFake(t, ServerMaxMessage(1024))
	c := newRawClient(t, url)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	wantError(t, c.do("POST", big, "Accept", both), 413, -32600)
	c.initialize() // a message under the limit still goes
}

func TestStreamableStateless(t *testing.T) {
	fake, stop, url := serveFake(t)
	c := newRawClient(t, url)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	resp := c.do("POST", list, "Accept", both, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(body), `"echo"`) {
		t.Fatalf("stateless tools/list: status %d, session %q, body %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
	}
	callEcho := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},` + meta + `}}`
	// Mcp-Name must mirror the tool's name.
	wantError(t, c.do("POST", callEcho, "Accept", both, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "other"), 400, -32020)
	if r := c.do("POST", callEcho, "Accept", both, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo"); r.StatusCode != 200 {
		t.Errorf("stateless tools/call: status %d", r.StatusCode)
	}
	unknown := `{"jsonrpc":"2.0","id":3,"method":"nope/nope","params":{` + meta + `}}`
	wantError(t, c.do("POST", unknown, "Accept", both, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "nope/nope"), 404, -32601)
	wantError(t, c.do("GET", "", "Accept", "text/event-stream", "Mcp-Protocol-Version", "2026-07-28"), 405, -32600)
	stop() // every request ended: every stateless session closed
	if o, cl := fake.opened.Load(), fake.closed.Load(); o != 3 || cl != 3 {
		t.Errorf("%d sessions opened, %d closed; want 3 and 3 (one per POST that got through)", o, cl)
	}
}

func TestLegacyEdges(t *testing.T) {
	fake := &fakeServer{}
	h := NewLegacyHandler(fake)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	c := newRawClient(t, srv.URL+"/sse")
	resp := c.do("GET", "", "Accept", "text/event-stream")
	events := NewSSEReader(resp.Body)
	ev, err := events.Next()
	if err != nil || ev.Event != "endpoint" || !strings.HasPrefix(string(ev.Data), "/sse?sessionId=") {
		t.Fatalf("first event %q %q (%v), want endpoint /sse?sessionId=…", ev.Event, ev.Data, err)
	}
	post := &rawClient{t: t, url: srv.URL + string(ev.Data), hc: c.hc}
	if r := post.do("POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.StatusCode != 202 {
		t.Fatalf("POST: status %d, want 202", r.StatusCode)
	}
	if ev, err := events.Next(); err != nil || ev.Event != "message" || !strings.Contains(string(ev.Data), `"id":1,"result":{}`) {
		t.Fatalf("answer event %q %q (%v)", ev.Event, ev.Data, err)
	}
	wantError(t, (&rawClient{t: t, url: srv.URL + "/sse", hc: c.hc}).do("POST", `{}`), 400, -32600)
	wantError(t, (&rawClient{t: t, url: srv.URL + "/sse?sessionId=nope", hc: c.hc}).do("POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`), 404, -32600)
	wantError(t, post.do("POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Origin", "https://evil.example"), 403, -32600)
	// A hang-up cuts the stream: the reader sees an error, not a clean end.
	if r := post.do("POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hangup"}}`); r.StatusCode != 202 {
		t.Fatalf("POST: status %d, want 202", r.StatusCode)
	}
	if ev, err := events.Next(); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("after a hang-up: event %q, error %v; want the connection cut", ev.Data, err)
	}
}

// TestStreamableResumeMidStream: the client's connection drops while its
// request is being handled; the handling goes on, and a GET with the last
// event id it saw gets the rest of the stream, the answer.
func TestStreamableResumeMidStream(t *testing.T) {
	fake := &fakeServer{release: make(chan struct{})}
	h := NewStreamableHandler(fake)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	c := newRawClient(t, srv.URL+"/mcp")
	id := c.initialize()

	ctx, drop := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", c.url, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"held"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first, err := NewSSEReader(resp.Body).Next()
	if err != nil || !first.HasID || !strings.Contains(string(first.Data), "notifications/progress") {
		t.Fatalf("first event %+v (%v), want the progress notification with an id", first, err)
	}
	drop() // the connection is gone
	resp.Body.Close()
	close(fake.release)

	evs := sseEvents(t, c.do("GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", id, "Last-Event-ID", first.ID))
	if len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"id":5`) || !strings.Contains(string(evs[0].Data), "released") {
		t.Fatalf("resumed stream %+v, want the answer to id 5", evs)
	}
}

// TestStreamableIdleTimeout: a session with nothing in progress for the
// idle timeout is closed, as if DELETEd; one with its GET stream open is
// not. (synctest: the timers run on the bubble's clock.)
func TestStreamableIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &fakeServer{}
		h := NewStreamableHandler(fake, IdleTimeout(time.Minute))
		defer h.Close()
		do := func(ctx context.Context, method, body, session string) *httptest.ResponseRecorder {
			req := httptest.NewRequestWithContext(ctx, method, "/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", both)
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		idle := do(t.Context(), "POST", initBody, "").Header().Get("Mcp-Session-Id")
		watched := do(t.Context(), "POST", initBody, "").Header().Get("Mcp-Session-Id")
		getCtx, stopGET := context.WithCancel(t.Context())
		getDone := make(chan struct{})
		go func() {
			defer close(getDone)
			do(getCtx, "GET", "", watched)
		}()
		synctest.Wait()

		time.Sleep(59 * time.Second)
		synctest.Wait()
		if got := fake.closed.Load(); got != 0 {
			t.Fatalf("%d sessions closed before the idle timeout", got)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := fake.closed.Load(); got != 1 {
			t.Errorf("%d sessions closed after the idle timeout, want 1 (the one without a GET stream)", got)
		}
		if rec := do(t.Context(), "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, idle); rec.Code != http.StatusNotFound {
			t.Errorf("the idle session: status %d, want 404", rec.Code)
		}
		if rec := do(t.Context(), "POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, watched); rec.Code != http.StatusOK {
			t.Errorf("the watched session: status %d, want 200", rec.Code)
		}
		stopGET()
		<-getDone
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got := fake.closed.Load(); got != 2 {
			t.Errorf("%d sessions closed once the GET stream closed and the timeout passed, want 2", got)
		}
	})
}
