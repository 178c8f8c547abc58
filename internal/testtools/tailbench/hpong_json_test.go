package main

import (
	"bytes"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

// slowAnswer is the slow server's answer to body, from its handler
// (slowmcp.Handler, no network): its status, JSON (nil for none) and
// Content-Type, and the line it logs less its time (its first field).
func slowAnswer(t *testing.T, body []byte) (int, []byte, string, []byte) {
	var log bytes.Buffer
	w := httptest.NewRecorder()
	slowmcp.Handler(slowmcp.WithArrivals(&log)).ServeHTTP(w, httptest.NewRequest("POST", "/mcp", bytes.NewReader(body)))
	_, line, ok := bytes.Cut(log.Bytes(), []byte(" "))
	if !ok {
		t.Fatalf("body %q: the slow server logged %q, not an arrival", body, log.Bytes())
	}
	if w.Body.Len() == 0 {
		return w.Code, nil, w.Header().Get("Content-Type"), line
	}
	return w.Code, w.Body.Bytes(), w.Header().Get("Content-Type"), line
}

// sameAsSlow fails t unless hpong answers body as the slow server does
// and logs the same line.
func sameAsSlow(t *testing.T, body []byte) {
	t.Helper()
	got, a := answerBody(nil, body)
	contentType := "application/json" // what respond writes, but to a 202
	if a.status == 202 {
		contentType = ""
	}
	status, want, wantType, wantLine := slowAnswer(t, body)
	if a.status != status || !bytes.Equal(got, want) || contentType != wantType {
		t.Errorf("body %q: hpong answers %d %q %s, the slow server %d %q %s", body, a.status, contentType, got, status, wantType, want)
	}
	line := slowmcp.AppendArrival(nil, unixZero, unixZero, a.msg)
	if _, line, _ = bytes.Cut(line, []byte(" ")); !bytes.Equal(line, wantLine) {
		t.Errorf("body %q: hpong logs %q, the slow server %q", body, line, wantLine)
	}
}

// The bodies bench-tail.sh's clients send, and near misses of the fast
// path's every condition.
var bodies = []string{
	call(1), call(200), warmCall(3),
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":7,"result":{}}`,
	` { "id" : -1.5e3 , "method" : "tools/call" , "params" : { "arguments" : { "text" : "a b" } } } `,
	`{"id":1,"method":"tools/call"}`,
	`{"id":1,"method":"tools/call","params":{}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{}}}`,
	`{"id":1,"method":"tools/call","params":null}`,
	`{"id":1,"method":"tools/call","params":{"arguments":null}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":null}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":5}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":[1]}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":"a\"b"}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":"<é>"}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":"\u2028"}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"Text":"x","text":"y"}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":"x","text":"y"}}}`,
	`{"id":1,"method":"tools/call","params":{"Arguments":{"text":"x"}}}`,
	`{"id":1,"Method":"tools/call"}`,
	`{"id":1,"method":"tools/call","method":"ping"}`,
	`{"id":1,"id":2,"method":"tools/call"}`,
	`{"ID":1,"method":"tools/call"}`,
	`{"\u0069d":1,"method":"tools/call"}`,
	`{"id":"a b","method":"tools/call"}`,
	`{"id":[1, 2],"method":"tools/call"}`,
	`{"id":null,"method":"tools/call"}`,
	`{"id":1,"method":"tools\/call"}`,
	`{"id":1,"method":5}`,
	`{"id":1,"method":"tools/call"}x`,
	`{"id":1,"method":"tools/call",}`,
	`{"id":01,"method":"tools/call"}`,
	`{"id":1.,"method":"tools/call"}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":"a` + "\x01" + `"}}}`,
	`{"id":1,"method":"tools/call","params":{"arguments":{"text":"\x"}}}`,
	`{"id":1,"method":"tools/call","params":{"name":"echo","x":[true,false,null,{"a":[]}],"arguments":{"text":"t"}}}`,
	`[]`, ``, `{`, `"x"`, `{"id":1,"method":"tools/call","params":{"arguments":{"text":"` + "\xff" + `"}}}`,
}

func TestAnswerBodyAsSlow(t *testing.T) {
	for _, b := range bodies {
		sameAsSlow(t, []byte(b))
	}
}

// FuzzAnswerBody: whatever the body, hpong answers and logs it as the
// slow server does, by its fast path or not.
func FuzzAnswerBody(f *testing.F) {
	for _, b := range bodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameAsSlow(t, body) })
}

// TestFastCallTaken: the calls every client of bench-tail.sh sends, the
// warm-up's included, take the fast path, which allocates nothing.
func TestFastCallTaken(t *testing.T) {
	for _, b := range []string{call(1), call(199), warmCall(6)} {
		if _, _, ok := fastCall([]byte(b)); !ok {
			t.Errorf("%s: not the fast path", b)
		}
	}
	body := []byte(call(42))
	dst := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { dst, _ = answerBody(dst[:0], body) }); n != 0 {
		t.Errorf("answerBody of a tools/call: %v allocations, want 0", n)
	}
}

var unixZero time.Time
