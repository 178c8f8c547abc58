package tape

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// The fixtures gosdk-*.har are HTTP traffic of the go-sdk client running
// testtape.ScriptAll against the go-sdk conformance server, captured by
// internal/testtools/genhar (see its doc for the commands).

func openHAR(t *testing.T, path string) (*Reader, []Message) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if r.Format() != FormatHAR {
		t.Fatalf("format %s, want %s", r.Format(), FormatHAR)
	}
	return r, readAll(t, r)
}

func methodOf(m Message) string {
	p, _ := jsonrpc.Parse(m.Msg)
	return p.Method
}

func TestHARFixtureSessionBased(t *testing.T) {
	r, msgs := openHAR(t, "testdata/gosdk-2025.har")
	if len(msgs) != 40 {
		t.Fatalf("%d messages, want 40", len(msgs))
	}
	if h := r.Header(); h.ProtocolVersion != "2025-11-25" || h.Transport != "streamable-http" || h.Server == nil || !strings.HasPrefix(h.Server.URL, "http://127.0.0.1:") {
		t.Errorf("header %+v", h)
	}
	if methodOf(msgs[0]) != "initialize" || msgs[0].Dir != C2S || msgs[1].Dir != S2C || msgs[0].TUS != 0 {
		t.Errorf("first messages: %s %s t=%d, %s", methodOf(msgs[0]), msgs[0].Dir, msgs[0].TUS, msgs[1].Dir)
	}
	var sampling, answered, sse, streams int
	var samplingID []byte
	prev := int64(-1)
	for i, m := range msgs {
		if m.Seq != int64(i) || m.TUS < prev || m.Session != "s1" {
			t.Fatalf("message %d: seq %d t %d session %q (previous t %d)", i, m.Seq, m.TUS, m.Session, prev)
		}
		prev = m.TUS
		if m.HTTP == nil || m.HTTP.Status == 0 {
			t.Fatalf("seq %d has no HTTP status: %+v", m.Seq, m.HTTP)
		}
		for k := range m.HTTP.Headers {
			if Sensitive(k) {
				t.Errorf("seq %d keeps credential header %s", m.Seq, k)
			}
		}
		p, err := jsonrpc.Parse(m.Msg)
		if err != nil {
			t.Fatalf("seq %d: %v", m.Seq, err)
		}
		switch {
		case p.Method == "sampling/createMessage":
			sampling++
			samplingID = p.ID
			if m.Dir != S2C || m.SSE == nil || m.SSE.Event != "message" {
				t.Errorf("sampling request: dir %s sse %+v", m.Dir, m.SSE)
			}
		case samplingID != nil && jsonrpc.IsResponseKind(p.Kind) && bytes.Equal(p.ID, samplingID) && m.Dir == C2S:
			answered++
			if m.HTTP.Status != 202 || m.HTTP.Headers["Mcp-Session-Id"] == nil {
				t.Errorf("the client's answer to sampling: http %+v", m.HTTP)
			}
			samplingID = nil
		}
		if m.Dir == S2C {
			streams++
			if m.SSE != nil {
				sse++
			}
		}
	}
	if sampling != 1 || answered != 1 {
		t.Errorf("%d sampling requests, %d answered by the client; want 1, 1", sampling, answered)
	}
	if sse != streams || sse < 15 {
		t.Errorf("%d of %d server messages came over SSE", sse, streams)
	}
	if raw, _ := json.Marshal(msgs); bytes.Contains(raw, []byte("genhar-secret-token")) {
		t.Error("the Authorization header's value was imported")
	}
	w := strings.Join(r.Warnings(), "\n")
	for _, want := range []string{"1 HAR entry skipped (first: log.entries[0]): a GET whose answer is not a text/event-stream",
		"a GET stream that carried no JSON-RPC message", "a DELETE"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

func TestHARFixtureStatelessBase64(t *testing.T) {
	raw := readFile(t, "testdata/gosdk-2026.har")
	if !bytes.Contains(raw, []byte(`"encoding": "base64"`)) {
		t.Fatal("the fixture has no base64 body")
	}
	r, msgs := openHAR(t, "testdata/gosdk-2026.har")
	if len(msgs) != 39 || r.Header().ProtocolVersion != "2026-07-28" {
		t.Fatalf("%d messages, protocol %q; want 39, 2026-07-28", len(msgs), r.Header().ProtocolVersion)
	}
	var requests, responses int
	for _, m := range msgs {
		p, _ := jsonrpc.Parse(m.Msg)
		if m.Session != "s1" {
			t.Errorf("seq %d in session %q: stateless exchanges of one endpoint are one session", m.Seq, m.Session)
		}
		if !json.Valid(m.Msg) {
			t.Fatalf("seq %d: %q", m.Seq, m.Msg)
		}
		switch {
		case m.Dir == C2S && p.Kind == jsonrpc.KindRequest:
			requests++
			if m.HTTP.Headers["Mcp-Method"] == nil {
				t.Errorf("seq %d: request headers not kept: %+v", m.Seq, m.HTTP)
			}
		case m.Dir == S2C && jsonrpc.IsResponseKind(p.Kind):
			responses++
		}
	}
	if requests != 18 || responses != requests {
		t.Errorf("%d client requests, %d server responses: want 18, every stateless POST answered", requests, responses)
	}
}

// har builds a HAR document around entries.
func har(entries ...string) string {
	return `{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[` + strings.Join(entries, ",\n") + "]}}\n"
}

// entry builds a HAR entry.
func entry(at, method, url, reqHeaders, post string, status int, respHeaders, mime, text, encoding string) string {
	pd := ""
	if post != "" {
		pd = fmt.Sprintf(`,"postData":{"mimeType":"application/json","text":%q}`, post)
	}
	enc := ""
	if encoding != "" {
		enc = fmt.Sprintf(`,"encoding":%q`, encoding)
	}
	return fmt.Sprintf(`{"startedDateTime":%q,"time":10,"request":{"method":%q,"url":%q,"httpVersion":"HTTP/1.1","cookies":[],"headers":[%s],"queryString":[],"headersSize":-1,"bodySize":0%s},
"response":{"status":%d,"statusText":"","httpVersion":"HTTP/1.1","cookies":[],"headers":[%s],"content":{"size":%d,"mimeType":%q,"text":%q%s},"redirectURL":"","headersSize":-1,"bodySize":-1},
"cache":{},"timings":{"send":1,"wait":4,"receive":5}}`, at, method, url, reqHeaders, pd, status, respHeaders, len(text), mime, text, enc)
}

func TestHARDecode(t *testing.T) {
	const u = "http://127.0.0.1:9/mcp"
	sid := func(s string) string { return `{"name":"mcp-session-id","value":"` + s + `"}` }
	auth := `{"name":"Authorization","value":"Bearer hunter2"},{"name":"Cookie","value":"a=hunter2"}`
	sseBody := "id: e1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\r\n\r\n" +
		": keep-alive\n\nid: e2\nretry: 500\ndata: {\"jsonrpc\":\"2.0\",\n" + "data: \"id\":2,\"result\":{}}\n\n"
	doc := har(
		entry("2026-05-01T10:00:00.000Z", "GET", "http://127.0.0.1:9/logo.png", "", "", 200, "", "image/png", "iVBORw0KGgo=", "base64"),
		entry("2026-05-01T10:00:00.010Z", "POST", u, auth, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
			200, sid("A"), "application/json", base64.StdEncoding.EncodeToString([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`)), "base64"),
		entry("2026-05-01T10:00:00.020Z", "POST", u, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 200, sid("B"), "application/json",
			`{"jsonrpc":"2.0","id":1,"result":{}}`, ""),
		entry("2026-05-01T10:00:00.030Z", "POST", u, sid("A")+","+auth, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"method\": \"tools/call\"\n}", 200,
			`{"name":"Content-Type","value":"text/event-stream"},{"name":"Set-Cookie","value":"s=hunter2"}`, "text/event-stream", sseBody, ""),
		entry("2026-05-01T10:00:00.040Z", "POST", u, sid("B"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, "", "", "", ""),
		entry("2026-05-01T10:00:00.050Z", "POST", u, sid("B"), `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, 401, `{"name":"WWW-Authenticate","value":"Bearer"}`, "text/plain", "unauthorized", ""),
		entry("2026-05-01T10:00:00.060Z", "POST", "http://127.0.0.1:9/login", "", `user=a&pass=b`, 200, "", "text/html", "<html>", ""),
		entry("2026-05-01T10:00:00.070Z", "DELETE", u, sid("A"), "", 204, "", "", "", ""),
	)
	h, msgs, warnings, err := DecodeHAR("t.har", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		session string
		dir     Dir
		status  int
		sse     string
	}
	wants := []want{
		{"s1", C2S, 200, ""}, {"s1", S2C, 200, ""}, // initialize, base64 answer
		{"s2", C2S, 200, ""}, {"s2", S2C, 200, ""},
		{"s1", C2S, 200, ""}, {"s1", S2C, 200, "e1"}, {"s1", S2C, 200, "e2"}, // SSE with CRLF, a comment, two data lines
		{"s2", C2S, 202, ""},
		{"s2", C2S, 401, ""}, // no body: the status stays on the request
	}
	if len(msgs) != len(wants) {
		t.Fatalf("%d messages, want %d: %+v", len(msgs), len(wants), msgs)
	}
	for i, w := range wants {
		m := msgs[i]
		sse := ""
		if m.SSE != nil {
			sse = m.SSE.ID
		}
		if m.Session != w.session || m.Dir != w.dir || m.HTTP.Status != w.status || sse != w.sse || m.Seq != int64(i) {
			t.Errorf("seq %d: session %s dir %s status %d sse %q, want %+v", m.Seq, m.Session, m.Dir, m.HTTP.Status, sse, w)
		}
	}
	if got := string(msgs[1].Msg); got != `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}` {
		t.Errorf("base64 answer: %s", got)
	}
	if got := string(msgs[4].Msg); got != `{"jsonrpc":"2.0","id":2,"method":"tools/call"}` {
		t.Errorf("a pretty-printed body is made compact: %s", got)
	}
	if got := string(msgs[6].Msg); got != "{\"jsonrpc\":\"2.0\",\n\"id\":2,\"result\":{}}" && got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("two data lines: %q", got)
	}
	if msgs[6].SSE.Retry != 500 || msgs[5].SSE.Event != "message" {
		t.Errorf("SSE meta %+v %+v", msgs[5].SSE, msgs[6].SSE)
	}
	if msgs[0].TUS != 0 || msgs[1].TUS != 5000 || msgs[2].TUS != 10000 {
		t.Errorf("times %d %d %d, want 0, 5000 (first byte: send+wait), 10000", msgs[0].TUS, msgs[1].TUS, msgs[2].TUS)
	}
	if h.ProtocolVersion != "2025-06-18" || h.CreatedAt != "2026-05-01T10:00:00.01Z" {
		t.Errorf("header %+v", h)
	}
	raw, _ := json.Marshal(msgs)
	if bytes.Contains(raw, []byte("hunter2")) || bytes.Contains(bytes.ToLower(raw), []byte("authorization")) {
		t.Errorf("a credential was imported: %s", raw)
	}
	w := strings.Join(warnings, "\n")
	for _, s := range []string{"1 HAR entry skipped (first: log.entries[0]): a GET whose answer",
		"1 HAR entry skipped (first: log.entries[6]): a POST whose body is not a JSON-RPC message",
		"1 HAR entry skipped (first: log.entries[7]): a DELETE"} {
		if !strings.Contains(w, s) {
			t.Errorf("warnings %q lack %q", w, s)
		}
	}
}

func TestHARBadInput(t *testing.T) {
	good := har(entry("2026-05-01T10:00:00.000Z", "POST", "http://h/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, "", "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`, ""))
	cases := []struct {
		name, doc string
		line      int64
		want      string
	}{
		{"torn", good[:len(good)-40], 3, "cut short (torn)"},
		{"torn, pretty-printed", "{\n  \"log\": {\n    \"entries\": [\n", 3, "HAR file is cut short (torn)"},
		{"not JSON", strings.Replace(good, `"time":10,`, `"time":10,,`, 1), 1, "not valid JSON"},
		{"wrong type", strings.Replace(good, `"time":10`, `"time":"10"`, 1), 1, "log.entries[0].time is string, want float64"},
		{"bad time", strings.Replace(good, "2026-05-01T10:00:00.000Z", "yesterday", 1), 1, `log.entries[0].startedDateTime "yesterday" is not an ISO 8601 time`},
		{"no entries", `{"log":{"version":"1.2"}}`, 1, `log has no "entries"`},
		{"bad base64", strings.Replace(good, `"mimeType":"application/json","text":"{`, `"encoding":"base64","mimeType":"application/json","text":"{`, 1), 1, "log.entries[0].request.postData.text is not valid base64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(writeTemp(t, "x.har", c.doc))
			e := asError(t, err)
			if !strings.Contains(e.Error(), c.want) || (c.line > 0 && e.Line != c.line) {
				t.Errorf("got %q (line %d), want %q at line %d", e.Error(), e.Line, c.want, c.line)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	r, err := File(path).Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
