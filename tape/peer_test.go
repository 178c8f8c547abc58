package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// peerFixtures holds the project's own files in the formats of the other
// MCP recorders, written by hand after the structure of files those
// tools wrote (see testdata/README.md).
const peerFixtures = "testdata/peers/"

// openAll opens a file with Open and reads every message.
func openAll(t *testing.T, path string) (*Reader, []Message) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { r.Close() })
	var out []Message
	for {
		m, err := r.Next()
		if err == io.EOF {
			return r, out
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		out = append(out, m)
	}
}

// dirs writes the directions of msgs as a string: "cs" per c2s/s2c.
func dirs(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Dir == C2S {
			b.WriteByte('c')
		} else {
			b.WriteByte('s')
		}
	}
	return b.String()
}

func TestPeerFixtures(t *testing.T) {
	tests := []struct {
		file      string
		format    Format
		transport string
		url       string
		session   string
		dirs      string
		lastTUS   int64
		warnings  []string // each said once, in this order
		check     func(t *testing.T, msgs []Message)
	}{
		{file: "cassette-stdio.json", format: FormatCassette, transport: "stdio", session: "s1",
			// the sampling request is the server's, its answer the client's; the raw line is left out
			dirs: "csccscscsssscscscscscs", lastTUS: 246000,
			warnings: []string{`3 times (first: messages[7]): mcp-cassette redacted`, `messages[20]: a "raw" message`},
			check: func(t *testing.T, msgs []Message) {
				if got := string(msgs[17].Msg); !strings.HasPrefix(got, `{"method":"sampling/createMessage"`) || msgs[17].Dir != S2C {
					t.Errorf("seq 17: %s %s, want the server's sampling request", msgs[17].Dir, got)
				}
				if msgs[15].TUS != 192000 || msgs[1].TUS != 57000 {
					t.Errorf("times %d, %d, want t_offset_ms less the first one's: 57000, 192000", msgs[1].TUS, msgs[15].TUS)
				}
			}},
		{file: "cassette-http.json", format: FormatCassette, transport: "streamable-http", url: "http://127.0.0.1:18400/mcp", session: "s1",
			dirs: "csccscsscsscs", lastTUS: 903000,
			warnings: []string{"keeps no HTTP status, headers or SSE event ids"}},
		{file: "recorder-http.json", format: FormatRecorder, transport: "streamable-http", url: "http://127.0.0.1:18401", session: "s1",
			dirs: "csccscscscscscs", lastTUS: 58000,
			warnings: []string{"2 times (first: interactions[8]): a lifecycle interaction", "keeps no time between interactions"},
			check: func(t *testing.T, msgs []Message) {
				// initialize at 0, its answer 21 ms later; the notification at 21 ms (202)
				if msgs[1].TUS != 21000 || msgs[2].TUS != 21000 || msgs[3].TUS != 24000 {
					t.Errorf("times %d %d %d, want 21000 21000 24000", msgs[1].TUS, msgs[2].TUS, msgs[3].TUS)
				}
				if h := msgs[2].HTTP; h == nil || h.Status != 202 {
					t.Errorf("notifications/initialized http %+v, want status 202", h)
				}
				for i, ct := range map[int]string{1: "text/event-stream", 6: "application/json"} {
					if h := msgs[i].HTTP; h == nil || h.Status != 200 || h.Headers["Content-Type"][0] != ct {
						t.Errorf("seq %d http %+v, want 200 %s", i, h, ct)
					}
				}
			}},
		{file: "recorder-stdio.json", format: FormatRecorder, transport: "stdio", session: "s1",
			dirs: "csccscscs", lastTUS: 246000,
			warnings: []string{"keeps no time between interactions"},
			check: func(t *testing.T, msgs []Message) {
				for _, m := range msgs {
					if m.HTTP != nil {
						t.Errorf("seq %d has http %+v over stdio", m.Seq, m.HTTP)
					}
				}
			}},
		{file: "mcpvcr-stdio.yaml", format: FormatMCPVCR, transport: "stdio", session: "9e41d07a",
			dirs: "csccscsssccsscs", lastTUS: 201000,
			check: func(t *testing.T, msgs []Message) {
				want := map[int]string{
					5:  `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"balance","arguments":{"account":"007","verbose":true,"limit":null}}}`,
					6:  `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"looking up 007\n(cold cache)\n"}}`,
					7:  `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"0.25 EUR"}],"structuredContent":{"cents":25,"rate":0.25,"overdrawn":false},"isError":false}}`,
					11: `{"jsonrpc":"2.0","id":4,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"ledger://missing"}}}`,
				}
				for i, w := range want {
					if string(msgs[i].Msg) != w {
						t.Errorf("seq %d:\n got %s\nwant %s", i, msgs[i].Msg, w)
					}
				}
				if msgs[5].Line != 74 {
					t.Errorf("seq 5 line %d, want 74 (where its payload starts)", msgs[5].Line)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, msgs := openAll(t, peerFixtures+tt.file)
			if r.Format() != tt.format {
				t.Errorf("format %s, want %s", r.Format(), tt.format)
			}
			h := r.Header()
			if h.Transport != tt.transport || h.Tags["imported_from"] != string(tt.format) {
				t.Errorf("header %+v, want transport %s, imported_from %s", h, tt.transport, tt.format)
			}
			if tt.url != "" && (h.Server == nil || h.Server.URL != tt.url) {
				t.Errorf("server %+v, want url %s", h.Server, tt.url)
			}
			if tt.format != FormatMCPVCR && (h.Server == nil || h.Server.Name != "ledger" || h.Server.Version != "2.4.1") {
				t.Errorf("server %+v, want ledger 2.4.1", h.Server)
			}
			if got := dirs(msgs); got != tt.dirs {
				t.Errorf("directions %s, want %s", got, tt.dirs)
			}
			for i, m := range msgs {
				if m.Seq != int64(i) || m.Session != tt.session || (i > 0 && m.TUS < msgs[i-1].TUS) {
					t.Errorf("seq %d: seq %d session %q t %d", i, m.Seq, m.Session, m.TUS)
				}
			}
			if n := len(msgs); n == 0 || msgs[0].TUS != 0 || msgs[n-1].TUS != tt.lastTUS {
				t.Errorf("times from %d to %d, want 0 to %d", msgs[0].TUS, msgs[n-1].TUS, tt.lastTUS)
			}
			if e := r.End(); e == nil || e.Messages != int64(len(msgs)) {
				t.Errorf("end %+v, want %d messages", e, len(msgs))
			}
			ws := r.Warnings()
			if len(ws) != len(tt.warnings) {
				t.Errorf("warnings %q, want %d", ws, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if i < len(ws) && !strings.Contains(ws[i], w) {
					t.Errorf("warning %d %q, want it to say %q", i, ws[i], w)
				}
			}
			if tt.check != nil {
				tt.check(t, msgs)
			}
		})
	}
}

// TestPeerBadInput: what is wrong in a peer's file is an *Error naming the
// file, the line and the JSON path, and saying what to do.
func TestPeerBadInput(t *testing.T) {
	cassette := func(msg string) string {
		return "{\n\"format_version\": 2,\n\"transport\": \"stdio\",\n\"messages\": [\n" + msg + "\n]\n}\n"
	}
	recorder := func(inter string) string {
		return "{\n\"version\": \"1.0\",\n\"metadata\": {\"transport_type\": \"stdio\"},\n\"interactions\": [\n" + inter + "\n]\n}\n"
	}
	tests := []struct {
		name, doc string
		line      int64
		want      string
		err       error
	}{
		{"cassette sender", cassette(`{"seq": 0, "t_offset_ms": 1, "sender": "proxy", "kind": "request", "payload": {"jsonrpc":"2.0","id":1,"method":"ping"}}`), 5,
			`messages[0].sender is "proxy", want "client" or "server"`, nil},
		{"cassette time", cassette(`{"seq": 0, "t_offset_ms": "soon", "sender": "client", "payload": {}}`), 5,
			"messages[0].t_offset_ms is a string, want a number", nil},
		{"cassette no payload", cassette(`{"seq": 0, "t_offset_ms": 1, "sender": "client", "kind": "request"}`), 5,
			"messages[0] has no payload", nil},
		{"cassette newer", "{\"format_version\": 3, \"messages\": []}", 1, "mcp-cassette format_version 3 is newer than this replayctl reads (1 to 2): upgrade replayctl", ErrNewerVersion},
		{"cassette torn", cassette(`{"seq": 0, "t_offset_ms": 1, "sender": "client", "payload": {"jsonrpc":"2.0"`)[:60], 5, "the mcp-cassette file is cut short (torn)", nil},
		{"recorder type", recorder(`{"type": "batch", "request": {}}`), 5, `interactions[0].type is "batch"`, nil},
		{"recorder status", recorder(`{"type": "notification", "request": {"jsonrpc":"2.0","method":"x"}, "response_status": 99}`), 5,
			"interactions[0].response_status is 99, want an HTTP status", nil},
		{"recorder no request", recorder(`{"type": "jsonrpc_request", "request": null}`), 5, "interactions[0] has no request", nil},
		{"recorder newer", "{\"version\": \"2.0\", \"interactions\": []}", 1, `mcp-recorder version "2.0" is not one this replayctl reads (1.x)`, ErrNewerVersion},
		{"yaml dir", "meta:\n  version: 1\nmessages:\n  - t: 0\n    dir: up\n    payload: {jsonrpc: \"2.0\", method: x}\n", 5,
			`messages[0].dir is "up", want "c2s" or "s2c"`, nil},
		{"yaml time", "meta: {version: 1}\nmessages:\n  - t: -4\n    dir: c2s\n    payload: {jsonrpc: \"2.0\", method: x}\n", 3,
			`messages[0].t is "-4", want milliseconds`, nil},
		{"yaml payload", "meta: {version: 1}\nmessages:\n  - t: 0\n    dir: c2s\n    payload: [1]\n", 5,
			"messages[0].payload is a list, want a mapping", nil},
		{"yaml inf", "meta: {version: 1}\nmessages:\n  - t: 0\n    dir: c2s\n    payload:\n      x: .inf\n", 6,
			`messages[0].payload.x is ".inf", a number JSON cannot hold`, nil},
		{"yaml syntax", "meta:\n  version: 1\nmessages:\n  - t: 0\n   dir: c2s\n", 3, "not valid YAML", nil},
		{"yaml newer", "meta:\n  version: 2\nmessages: []\n", 2, "mcp-vcr transcript version 2 is newer", ErrNewerVersion},
		{"yaml other", "# a config file\nname: x\n", 1, `without "meta" and "messages": this is not an mcp-vcr transcript`, ErrUnknownFormat},
		{"markdown", "# A title\n\nSome prose: with a colon: and another\n", 1, `without "meta" and "messages": this is not an mcp-vcr transcript`, ErrUnknownFormat},
		{"json other", "{\n\"version\": 3,\n\"items\": []\n}\n", 1, `"version" and "interactions" (mcp-recorder): this is not a tape replayctl can read`, ErrUnknownFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(path, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err == nil {
				r.Close()
				t.Fatalf("opened %q, want an error", tt.doc)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.Line != tt.line || !strings.Contains(e.Msg, tt.want) || !strings.HasPrefix(err.Error(), "tape "+path) {
				t.Errorf("got %q (line %d), want line %d and %q", err, e.Line, tt.line, tt.want)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %v does not wrap %v", err, tt.err)
			}
		})
	}
}

// TestPeerCompactDocuments: a cassette or an mcp-recorder file written on
// one line, or with its members in another order (read whole), is read
// as the pretty-printed one.
func TestPeerCompactDocuments(t *testing.T) {
	for _, file := range []string{"cassette-stdio.json", "recorder-http.json"} {
		t.Run(file, func(t *testing.T) {
			_, want := openAll(t, peerFixtures+file)
			raw, err := os.ReadFile(peerFixtures + file)
			if err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				t.Fatal(err)
			}
			// the same document with a first member no detector looks at
			moved := append([]byte(`{"x-note":"moved",`), compact.Bytes()[1:]...)
			for name, doc := range map[string][]byte{"compact": compact.Bytes(), "moved": moved} {
				path := filepath.Join(t.TempDir(), name)
				if err := os.WriteFile(path, doc, 0o644); err != nil {
					t.Fatal(err)
				}
				_, got := openAll(t, path)
				if len(got) != len(want) {
					t.Fatalf("%s: %d messages, want %d", name, len(got), len(want))
				}
				for i := range got {
					if string(got[i].Msg) != string(want[i].Msg) || got[i].Dir != want[i].Dir || got[i].TUS != want[i].TUS {
						t.Errorf("%s seq %d: %+v, want %+v", name, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// TestPeerSamples imports the files the peers wrote themselves, when
// REPLAYCTL_PEER_SAMPLES names a folder of them (as the project's shared
// samples/ folder is laid out); the fixtures in testdata/peers are what
// every clone reads. Nothing outside the repository is read unless asked.
func TestPeerSamples(t *testing.T) {
	dir := os.Getenv("REPLAYCTL_PEER_SAMPLES")
	if dir == "" {
		t.Skip("REPLAYCTL_PEER_SAMPLES is not set: the peers' own sample files are not read (the fixtures in testdata/peers are)")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("REPLAYCTL_PEER_SAMPLES=%s: %v", dir, err)
	}
	tests := []struct {
		file    string
		format  Format
		msgs    int
		warning string
	}{
		{"mcp-cassette/stdio.json", FormatCassette, 35, "redacted"},
		// 15 requests answered, one of them by a progress notification
		// (the stream's first event), and notifications/initialized
		{"mcp-recorder/http.json", FormatRecorder, 31, "the recorded response is a notification"},
		{"mcp-vcr/with_notifications.yaml", FormatMCPVCR, 8, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, msgs := openAll(t, filepath.Join(dir, tt.file))
			if r.Format() != tt.format || len(msgs) != tt.msgs {
				t.Errorf("%s with %d messages, want %s with %d", r.Format(), len(msgs), tt.format, tt.msgs)
			}
			if tt.warning != "" && !strings.Contains(strings.Join(r.Warnings(), "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", r.Warnings(), tt.warning)
			}
		})
	}
}

// TestMCPVCRIncomplete: a transcript mcp-vcr marked incomplete says so.
func TestMCPVCRIncomplete(t *testing.T) {
	doc := "meta:\n  version: 1\n  incomplete: true\n  incomplete_reason: server_crash\nmessages:\n  - {t: 0, dir: c2s, payload: {jsonrpc: \"2.0\", id: 1, method: ping}}\n  - {dir: s2c, payload: {jsonrpc: \"2.0\", id: 1, result: {}}}\n"
	_, msgs, warnings, err := DecodeMCPVCR("i.yaml", []byte(doc))
	if err != nil || len(msgs) != 2 {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	w := strings.Join(warnings, "\n")
	for _, want := range []string{"marked the transcript incomplete (server_crash)", "messages[1]: the message has no t"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	if msgs[1].TUS != 0 || msgs[1].Dir != S2C {
		t.Errorf("the answer without t: %+v, want s2c at the time before it (0)", msgs[1])
	}
}

// TestMCPVCRAliasBomb: YAML aliases of aliases, which grow exponentially
// when expanded, are refused once a message passes the bound.
func TestMCPVCRAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("meta: {version: 1}\nmessages:\n  - t: 0\n    dir: c2s\n    payload:\n      a0: &a0 [x, x]\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "      a%d: &a%d [*a%d, *a%d]\n", i, i, i-1, i-1)
	}
	_, _, _, err := DecodeMCPVCR("bomb.yaml", []byte(b.String()))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "larger than 8 MiB once its aliases are expanded") {
		t.Fatalf("got %v, want the bound", err)
	}
}
