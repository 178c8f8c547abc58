package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// roundTrip exports the tape at path as HAR, imports it again, and
// returns both message lists and the HAR.
func roundTrip(t *testing.T, path string) (orig, back []Message, doc []byte) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	orig = readAll(t, r)
	var b bytes.Buffer
	if err := EncodeHAR(&b, r, "test"); err != nil {
		t.Fatal(err)
	}
	checkHAR12(t, b.Bytes())
	h, back, warnings, err := DecodeHAR("exported.har", b.Bytes())
	if err != nil {
		t.Fatalf("import the export: %v\n%s", err, b.Bytes())
	}
	if h.ProtocolVersion != r.Header().ProtocolVersion || h.Transport != r.Header().Transport {
		t.Errorf("header %+v, want %+v", h, r.Header())
	}
	for _, w := range warnings {
		if !bytes.Contains([]byte(w), []byte("a GET stream that carried")) {
			t.Errorf("warning %q", w)
		}
	}
	return orig, back, b.Bytes()
}

func sameTape(t *testing.T, orig, back []Message) {
	t.Helper()
	if len(back) != len(orig) {
		t.Fatalf("%d messages back, want %d", len(back), len(orig))
	}
	for i, o := range orig {
		b := back[i]
		if b.Seq != o.Seq || b.TUS != o.TUS || b.Session != o.Session || b.Dir != o.Dir || !bytes.Equal(b.Msg, o.Msg) {
			t.Errorf("seq %d: got %d t=%d %s %s %s, want %d t=%d %s %s %s", o.Seq, b.Seq, b.TUS, b.Session, b.Dir, b.Msg, o.Seq, o.TUS, o.Session, o.Dir, o.Msg)
		}
		if o.HTTP != nil && o.HTTP.Status != 0 && (b.HTTP == nil || b.HTTP.Status != o.HTTP.Status) {
			t.Errorf("seq %d: http %+v, want status %d", o.Seq, b.HTTP, o.HTTP.Status)
		}
		if o.SSE != nil && (b.SSE == nil || b.SSE.ID != o.SSE.ID || b.SSE.Event != o.SSE.Event || b.SSE.Retry != o.SSE.Retry) {
			t.Errorf("seq %d: sse %+v, want %+v", o.Seq, b.SSE, o.SSE)
		}
	}
}

func TestHARRoundTripFixtures(t *testing.T) {
	for _, f := range []string{"testdata/gosdk-2025.har", "testdata/gosdk-2026.har", "testdata/edge.vcr"} {
		t.Run(f, func(t *testing.T) {
			orig, back, _ := roundTrip(t, f)
			sameTape(t, orig, back)
		})
	}
}

// TestHARRoundTripNative: two sessions over HTTP, SSE ids and retry, a
// server request answered by the client, a server notification outside
// any request (a GET stream), a 401 with no body and a 202.
func TestHARRoundTripNative(t *testing.T) {
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-05-01T10:00:00Z","protocol_version":"2025-06-18","transport":"streamable-http","server":{"url":"http://127.0.0.1:8080/mcp"}}`,
		`{"type":"message","seq":0,"t_us":0,"session":"a","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}`,
		`{"type":"message","seq":1,"t_us":900,"session":"a","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}},"http":{"status":200,"headers":{"Mcp-Session-Id":["A"]}}}`,
		`{"type":"message","seq":2,"t_us":1000,"session":"b","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}`,
		`{"type":"message","seq":3,"t_us":1500,"session":"b","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}},"http":{"status":200}}`,
		`{"type":"message","seq":4,"t_us":2000,"session":"a","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}},"http":{"headers":{"Mcp-Session-Id":["A"]}}}`,
		`{"type":"message","seq":5,"t_us":2100,"session":"a","dir":"s2c","msg":{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}},"http":{"status":200},"sse":{"id":"e1","event":"message","retry":300}}`,
		`{"type":"message","seq":6,"t_us":2200,"session":"a","dir":"c2s","msg":{"jsonrpc":"2.0","id":7,"result":{"model":"m"}},"http":{"status":202}}`,
		`{"type":"message","seq":7,"t_us":2250,"session":"a","dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"},"http":{"status":200},"sse":{"id":"g1"}}`,
		`{"type":"message","seq":8,"t_us":2300,"session":"a","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}},"http":{"status":200},"sse":{"id":"e2","event":"message"}}`,
		`{"type":"message","seq":9,"t_us":3000,"session":"b","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"},"http":{"status":401}}`,
		`{"type":"end","messages":9,"duration_us":3000}`,
	}
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	orig, back, doc := roundTrip(t, writeTemp(t, "t.jsonl", b.String()))
	sameTape(t, orig, back)
	// seq 7 came while tools/call was open: it is on that POST's stream,
	// so there is no GET entry; 7 entries: 6 POSTs.
	var root harRoot
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, e := range root.Log.Entries {
		methods = append(methods, fmt.Sprintf("%s %d %s", e.Request.Method, e.Response.Status, e.Response.Content.MimeType))
	}
	want := "[POST 200 application/json POST 200 application/json POST 200 text/event-stream POST 202  POST 401 ]"
	if got := fmt.Sprint(methods); got != want {
		t.Errorf("entries %s, want %s", got, want)
	}
}

// checkHAR12 checks that doc has every member HAR 1.2 requires, of the
// right type.
func checkHAR12(t *testing.T, doc []byte) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	need := func(obj any, path string, members map[string]string) map[string]any {
		o, ok := obj.(map[string]any)
		if !ok {
			t.Fatalf("%s is %T, want an object", path, obj)
		}
		for k, kind := range members {
			x, ok := o[k]
			if !ok {
				t.Errorf("%s has no %q", path, k)
				continue
			}
			var good bool
			switch kind {
			case "string":
				_, good = x.(string)
			case "number":
				_, good = x.(float64)
			case "array":
				_, good = x.([]any)
			case "object":
				_, good = x.(map[string]any)
			}
			if !good {
				t.Errorf("%s.%s is %T, want %s", path, k, x, kind)
			}
		}
		return o
	}
	lg := need(v["log"], "log", map[string]string{"version": "string", "creator": "object", "entries": "array"})
	if lg["version"] != "1.2" {
		t.Errorf("log.version %v", lg["version"])
	}
	need(lg["creator"], "log.creator", map[string]string{"name": "string", "version": "string"})
	entries, _ := lg["entries"].([]any)
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	for i, e := range entries {
		p := fmt.Sprintf("log.entries[%d]", i)
		o := need(e, p, map[string]string{"startedDateTime": "string", "time": "number", "request": "object", "response": "object", "cache": "object", "timings": "object"})
		if _, ok := parseISO(o["startedDateTime"].(string)); !ok {
			t.Errorf("%s.startedDateTime %v", p, o["startedDateTime"])
		}
		need(o["request"], p+".request", map[string]string{"method": "string", "url": "string", "httpVersion": "string", "cookies": "array", "headers": "array", "queryString": "array", "headersSize": "number", "bodySize": "number"})
		resp := need(o["response"], p+".response", map[string]string{"status": "number", "statusText": "string", "httpVersion": "string", "cookies": "array", "headers": "array", "content": "object", "redirectURL": "string", "headersSize": "number", "bodySize": "number"})
		need(resp["content"], p+".response.content", map[string]string{"size": "number", "mimeType": "string"})
		need(o["timings"], p+".timings", map[string]string{"send": "number", "wait": "number", "receive": "number"})
		if req := o["request"].(map[string]any); req["postData"] != nil {
			need(req["postData"], p+".request.postData", map[string]string{"mimeType": "string", "text": "string"})
		}
	}
}
