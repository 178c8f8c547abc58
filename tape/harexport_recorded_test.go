package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recorded fixtures, made once with replayctl and the test client of
// internal/testclient (from the repository root):
//
// everything-http.jsonl: two go-sdk clients over Streamable HTTP through
// the recording proxy, in front of server-everything (TypeScript SDK),
// which refuses their server/discover probes with a 400 JSON error (id
// null) and sends tools/list_changed on each session's GET stream:
//
//	PORT=38411 testdata/node_modules/.bin/mcp-server-everything streamableHttp &
//	replayctl record -o everything-http.jsonl --listen 127.0.0.1:0 --upstream http://127.0.0.1:38411/mcp &
//	go run ./internal/testclient/mcpclient -clients 2 -http http://127.0.0.1:PROXYPORT/mcp
//	kill -INT %2; kill %1
//
// everything-stdio.jsonl: one go-sdk client over stdio, server
// notifications while tools/list was open and a server request at the end:
//
//	go run ./internal/testclient/mcpclient -- replayctl record -o everything-stdio.jsonl -- testdata/node_modules/.bin/mcp-server-everything stdio

// exportImport exports the native tape at path as HAR, imports the HAR
// as a user does (Open, then WriteFile) and returns the native file
// written and the HAR.
func exportImport(t *testing.T, path string) (native, har []byte) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := EncodeHAR(&b, r, "test"); err != nil {
		t.Fatal(err)
	}
	checkHAR12(t, b.Bytes())
	dir := t.TempDir()
	hp := filepath.Join(dir, "e.har")
	if err := os.WriteFile(hp, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	hr, err := Open(hp)
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Close()
	if hr.Format() != FormatHAR {
		t.Fatalf("the export reads as %s", hr.Format())
	}
	out := filepath.Join(dir, "back.jsonl")
	if err := WriteFile(out, hr); err != nil {
		t.Fatal(err)
	}
	native, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return native, b.Bytes()
}

// sameLines fails for each line of got that is not want's.
func sameLines(t *testing.T, got, want []byte) {
	t.Helper()
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, a, b)
		}
	}
}

func TestHARRoundTripRecordedExact(t *testing.T) {
	for _, f := range []string{"testdata/everything-http.jsonl", "testdata/everything-stdio.jsonl"} {
		t.Run(f, func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := exportImport(t, f)
			sameLines(t, got, want)
		})
	}
}

// harEntrySummary is "METHOD STATUS MIME [seqs]" for each entry.
func harEntrySummary(t *testing.T, doc []byte) []string {
	t.Helper()
	var root harRoot
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range root.Log.Entries {
		out = append(out, fmt.Sprintf("%s %d %s %v", e.Request.Method, e.Response.Status, e.Response.Content.MimeType, e.Replayctl.Seq))
	}
	return out
}

// TestHARExportRecordedHTTP: the HAR of a real HTTP recording shows the
// exchanges as they went: the refused probe a 400 application/json, the
// notifications sent while handling initialized on the GET stream, the
// client's Accept and Content-Type on its requests.
func TestHARExportRecordedHTTP(t *testing.T) {
	_, doc := exportImport(t, "testdata/everything-http.jsonl")
	got := harEntrySummary(t, doc)
	want := []string{
		"POST 400 application/json [0 1]",
		"POST 400 application/json [2 3]",
		"POST 200 text/event-stream [4 5]",
		"POST 200 text/event-stream [6 7]",
		"POST 202  [8]",
		"GET 200 text/event-stream [9 10 11 12]",
		"POST 202  [13]",
		"GET 200 text/event-stream [14 15 16 17]",
	}
	if len(got) != 24 {
		t.Errorf("%d entries, want 24 (22 POSTs, 2 GETs): %q", len(got), got)
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Errorf("entry %d: %q, want %q", i, got[min(i, len(got)-1)], w)
		}
	}
	var root harRoot
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	for i, e := range root.Log.Entries {
		if e.Request.Method != "POST" {
			continue
		}
		var n int
		for _, h := range e.Request.Headers {
			if equalFold(h.Name, "Accept") || equalFold(h.Name, "Content-Type") {
				n++
			}
		}
		if n != 2 {
			t.Errorf("entry %d: request headers %v, want one Accept and one Content-Type", i, e.Request.Headers)
		}
	}
	if h := root.Log.Entries[0].Request.Headers; header(h, "Mcp-Method") != "server/discover" {
		t.Errorf("entry 0: request headers %v, want the recorded Mcp-Method", h)
	}
}

// TestHARRoundTripExactEdges: members this version does not know (on the
// header and on a message), a resumed stream's last_event_id, times out
// of seq order (a request recorded when its answer began) and a message
// with an empty http member come back as they were.
func TestHARRoundTripExactEdges(t *testing.T) {
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-05-01T10:00:00Z","protocol_version":"2025-11-25","transport":"streamable-http","server":{"url":"http://127.0.0.1:8080/mcp"},"future":{"a": 1}}`,
		`{"type":"message","seq":0,"t_us":500,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}},"http":{"status":200}}`,
		`{"type":"message","seq":1,"t_us":400,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"ping"},"http":{}}`,
		`{"type":"message","seq":2,"t_us":900,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}},"http":{"status":200,"headers":{"Content-Type":["application/json"]}}}`,
		`{"type":"message","seq":3,"t_us":950,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{}},"http":{"status":200,"headers":{"Content-Type":["text/event-stream"]}},"sse":{"id":"7"},"last_event_id":"5","note":[1, 2]}`,
		`{"type":"end","messages":4,"duration_us":950}`,
	}
	in := strings.Join(lines, "\n") + "\n"
	got, _ := exportImport(t, writeTemp(t, "t.jsonl", in))
	sameLines(t, got, []byte(in))
}
