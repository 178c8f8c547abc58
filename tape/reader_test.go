package tape

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadNative(t *testing.T) {
	msg0 := `{ "jsonrpc": "2.0", "id": 1, "method": "initialize" , "params":{}}`
	content := "\xef\xbb\xbf" + `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-01-02T03:04:05Z","protocol_version":"2025-06-18","transport":"http","server":{"url":"http://x/mcp"},"tags":{"k":"v"},"future":{"a":[1]}}` + "\n" +
		"\n" +
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":` + msg0 + `,"note":"kept"}` + "\r\n" +
		`{"msg":[{"jsonrpc":"2.0","id":2,"result":{}}],"dir":"s2c","t_us":1830,"seq":1,"type":"message","session":"s\u00e9","http":{"status":200,"headers":{"Mcp-Session-Id":["abc"]}},"sse":{"id":"e1","event":"message","retry":500}}` + "\n" +
		`{"type":"end","messages":2,"duration_us":1830}` + "\n"
	r, err := Open(writeTemp(t, "a.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Format(); got != FormatNative {
		t.Errorf("Format() = %q, want %q", got, FormatNative)
	}
	h := r.Header()
	if h.ProtocolVersion != "2025-06-18" || h.Transport != "http" || h.Server == nil || h.Server.URL != "http://x/mcp" || h.Tags["k"] != "v" {
		t.Errorf("header = %+v", h)
	}
	if got := string(h.Extra["future"]); got != `{"a":[1]}` {
		t.Errorf("header extra = %q, want %q", got, `{"a":[1]}`)
	}
	msgs := readAll(t, r)
	if len(msgs) != 2 {
		t.Fatalf("got %d messages, want 2", len(msgs))
	}
	if got := string(msgs[0].Msg); got != msg0 {
		t.Errorf("msg 0 = %q, want %q (byte for byte)", got, msg0)
	}
	if got := string(msgs[0].Extra["note"]); got != `"kept"` {
		t.Errorf("extra note = %q, want %q", got, `"kept"`)
	}
	m := msgs[1]
	if m.Seq != 1 || m.TUS != 1830 || m.Dir != S2C || m.Session != "sé" || m.Line != 4 {
		t.Errorf("msg 1 = seq %d t %d dir %s session %q line %d, want 1 1830 s2c sé 4", m.Seq, m.TUS, m.Dir, m.Session, m.Line)
	}
	if m.HTTP == nil || m.HTTP.Status != 200 || m.HTTP.Headers["Mcp-Session-Id"][0] != "abc" {
		t.Errorf("http = %+v", m.HTTP)
	}
	if m.SSE == nil || *m.SSE != (SSEMeta{ID: "e1", Event: "message", Retry: 500}) {
		t.Errorf("sse = %+v", m.SSE)
	}
	if e := r.End(); e == nil || *e != (End{Messages: 2, DurationUS: 1830}) {
		t.Errorf("End() = %+v, want {2 1830}", e)
	}
	if w := r.Warnings(); len(w) != 0 {
		t.Errorf("warnings = %q, want none", w)
	}
}

func TestNextMsgIsOwned(t *testing.T) {
	r, err := Open(writeTemp(t, "a.jsonl", tapeOf(3000, 1, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, _ := r.Next()
	keep := string(first.Msg)
	readAll(t, r)
	if got := string(first.Msg); got != keep {
		t.Fatalf("first message changed after reading on: got %q, want %q", got, keep)
	}
}

func TestBadTapes(t *testing.T) {
	long := hdr + msgLine(0, 0, "c2s", `{"x":"`+strings.Repeat("a", 300)+`"}`)
	tests := []struct {
		name    string
		content string
		opts    []Option
		line    int64
		seq     int64
		want    string // in the message
		is      error
		at      int // messages read before the error (Next calls)
	}{
		{"empty", "", nil, 0, -1, "empty", ErrEmpty, 0},
		{"white space", " \n\n \t\n", nil, 0, -1, "empty", ErrEmpty, 0},
		{"not json", "hello world\n", nil, 1, -1, "not valid JSON", ErrUnknownFormat, 0},
		{"binary", "\x00\x01\x02garbage\n", nil, 1, -1, "binary content", ErrUnknownFormat, 0},
		{"gzip", "\x1f\x8b\x08\x00\x00\n", nil, 1, -1, "gzip", ErrUnknownFormat, 0},
		{"json array", "[1,2]\n", nil, 1, -1, "an array", ErrUnknownFormat, 0},
		{"header missing", msgLine(0, 0, "c2s", `{}`), nil, 1, -1, "header is missing", ErrUnknownFormat, 0},
		{"unknown object", `{"a":1}` + "\n", nil, 1, -1, "neither", ErrUnknownFormat, 0},
		{"other format", `{"type":"header","format":"har","version":1}` + "\n", nil, 1, -1, `"har"`, ErrUnknownFormat, 0},
		{"newer version", `{"type":"header","format":"replayctl-tape","version":2}` + "\n", nil, 1, -1, "upgrade replayctl", ErrNewerVersion, 0},
		{"version string", `{"type":"header","format":"replayctl-tape","version":"1"}` + "\n", nil, 1, -1, `"version" is a string`, nil, 0},
		{"header tags wrong", `{"type":"header","format":"replayctl-tape","version":1,"tags":[1]}` + "\n", nil, 1, -1, `"tags" is an array`, nil, 0},
		{"broken header", `{"type":"header","format":` + "\n" + msgLine(0, 0, "c2s", "{}"), nil, 1, -1, "cut short", nil, 0},
		{"second header", hdr + hdr, nil, 2, -1, "second header", nil, 0},
		{"torn middle line", hdr + `{"type":"message","seq":0,"t_` + "\n" + msgLine(1, 0, "c2s", "{}"), nil, 2, -1, "cut short (torn) in the middle", nil, 0},
		{"binary middle line", hdr + "\x00\x00\x00\n", nil, 2, -1, "binary content", nil, 0},
		{"seq string", hdr + `{"type":"message","seq":"0","t_us":0,"dir":"c2s","msg":{}}` + "\n", nil, 2, -1, `field "seq" is a string, want an integer`, nil, 0},
		{"t_us string", hdr + `{"type":"message","seq":10,"t_us":"5","dir":"c2s","msg":{}}` + "\n", nil, 2, 10, `field "t_us" is a string, want an integer`, nil, 0},
		{"t_us float", hdr + `{"type":"message","seq":0,"t_us":1.5,"dir":"c2s","msg":{}}` + "\n", nil, 2, 0, "not a whole number", nil, 0},
		{"t_us negative", hdr + `{"type":"message","seq":0,"t_us":-1,"dir":"c2s","msg":{}}` + "\n", nil, 2, 0, "negative", nil, 0},
		{"seq too large", hdr + `{"type":"message","seq":12345678901234567890,"t_us":0,"dir":"c2s","msg":{}}` + "\n", nil, 2, -1, "too large", nil, 0},
		{"session number", hdr + `{"type":"message","seq":0,"t_us":0,"session":1,"dir":"c2s","msg":{}}` + "\n", nil, 2, 0, `"session" is a number`, nil, 0},
		{"missing seq", hdr + `{"type":"message","t_us":0,"dir":"c2s","msg":{}}` + "\n", nil, 2, -1, `no "seq"`, nil, 0},
		{"missing t_us", hdr + `{"type":"message","seq":0,"dir":"c2s","msg":{}}` + "\n", nil, 2, 0, `no "t_us"`, nil, 0},
		{"missing dir", hdr + `{"type":"message","seq":0,"t_us":0,"msg":{}}` + "\n", nil, 2, 0, `no "dir"`, nil, 0},
		{"missing msg", hdr + `{"type":"message","seq":0,"t_us":0,"dir":"c2s"}` + "\n", nil, 2, 0, `no "msg"`, nil, 0},
		{"bad dir", hdr + `{"type":"message","seq":0,"t_us":0,"dir":"up","msg":{}}` + "\n", nil, 2, 0, `"dir" is "up", want "c2s" or "s2c"`, nil, 0},
		{"msg string", hdr + `{"type":"message","seq":0,"t_us":0,"dir":"c2s","msg":"hi"}` + "\n", nil, 2, 0, `"msg" is a string`, nil, 0},
		{"msg invalid", hdr + `{"type":"message","seq":0,"t_us":0,"dir":"c2s","msg":{"a":tru}}` + "\n", nil, 2, 0, `"msg" is not valid JSON`, nil, 0},
		{"http wrong", hdr + `{"type":"message","seq":0,"t_us":0,"dir":"c2s","msg":{},"http":{"status":"ok"}}` + "\n", nil, 2, 0, `"http" member "status" is a string`, nil, 0},
		{"sse wrong", hdr + `{"type":"message","seq":0,"t_us":0,"dir":"c2s","msg":{},"sse":5}` + "\n", nil, 2, 0, `"sse" is a number`, nil, 0},
		{"no type", hdr + `{"seq":0,"t_us":0,"dir":"c2s","msg":{}}` + "\n", nil, 2, -1, `no "type"`, nil, 0},
		{"unknown type", hdr + `{"type":"marker"}` + "\n", nil, 2, -1, `unknown line type "marker"`, nil, 0},
		{"seq repeats", hdr + msgLine(3, 0, "c2s", "{}") + msgLine(3, 0, "s2c", "{}"), nil, 3, 3, "seqs must increase", nil, 1},
		{"seq decreases", hdr + msgLine(3, 0, "c2s", "{}") + msgLine(2, 0, "s2c", "{}"), nil, 3, 2, "seqs must increase", nil, 1},
		{"line after end", hdr + msgLine(0, 0, "c2s", "{}") + `{"type":"end","messages":1,"duration_us":0}` + "\n" + msgLine(1, 0, "c2s", "{}"), nil, 4, -1, "after the end line", nil, 1},
		{"end wrong", hdr + `{"type":"end","messages":"1"}` + "\n", nil, 2, -1, `end field "messages" is a string`, nil, 0},
		{"line too long", long, []Option{WithMaxLine(200)}, 2, -1, "--max-line", ErrLineTooLong, 0},
		{"header too long", `{"type":"header","format":"replayctl-tape","version":1,"x":"` + strings.Repeat("a", 300<<10) + `"}` + "\n", []Option{WithMaxLine(1000)}, 1, -1, "--max-line", ErrLineTooLong, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(writeTemp(t, "bad.jsonl", tt.content), tt.opts...)
			if err == nil {
				defer r.Close()
				var n int
				n, err = drain(r)
				if n != tt.at {
					t.Errorf("read %d messages before the error, want %d", n, tt.at)
				}
				if err != nil {
					if _, again := r.Next(); again != err {
						t.Errorf("Next after the error: got %v, want the same error again", again)
					}
				}
			}
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tt.want)
			}
			e := asError(t, err)
			if e.Line != tt.line || e.Seq != tt.seq {
				t.Errorf("got line %d seq %d, want line %d seq %d (%v)", e.Line, e.Seq, tt.line, tt.seq, e)
			}
			if !strings.Contains(e.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", e.Error(), tt.want)
			}
			if !strings.Contains(e.Error(), "bad.jsonl") {
				t.Errorf("got %q, want it to name the file", e.Error())
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("got %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Path: "examples/a.jsonl", Line: 12, Seq: 10, Msg: `field "t_us" is a string, want an integer: fix or remove the line`},
			`tape examples/a.jsonl line 12 (seq 10): field "t_us" is a string, want an integer: fix or remove the line`},
		{Error{Path: "a.jsonl", Seq: -1, Err: ErrEmpty}, "tape a.jsonl: tape: empty"},
		{Error{Seq: -1, Msg: "x"}, "tape: x"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestTornLastLine(t *testing.T) {
	content := tapeOf(3, 1, false) + `{"type":"message","seq":3,"t_us":300,"dir":"c2s","msg":{"jsonrpc":"2.0","id":`
	r, err := Open(writeTemp(t, "torn.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := len(readAll(t, r)); got != 3 {
		t.Fatalf("got %d messages, want 3", got)
	}
	w := r.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "torn.jsonl line 5: torn last line (") || !strings.Contains(w[0], "3 messages kept") {
		t.Fatalf("warnings = %q, want one torn-line warning for line 5 with 3 messages kept", w)
	}
	if r.End() != nil {
		t.Errorf("End() = %+v, want nil", r.End())
	}
	// Reading again after a seek does not repeat the warning.
	if err := r.SeekSeq(0); err != nil {
		t.Fatal(err)
	}
	readAll(t, r)
	if got := len(r.Warnings()); got != 1 {
		t.Errorf("got %d warnings after reading twice, want 1", got)
	}
}

func TestLastLineWithoutNewline(t *testing.T) {
	content := strings.TrimSuffix(tapeOf(2, 1, true), "\n")
	r, err := Open(writeTemp(t, "a.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := len(readAll(t, r)); got != 2 {
		t.Errorf("got %d messages, want 2", got)
	}
	if r.End() == nil || len(r.Warnings()) != 0 {
		t.Errorf("End() = %v, warnings %q; want an end and no warnings", r.End(), r.Warnings())
	}
}

func TestEndWarnings(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"no end", tapeOf(4, 1, false), "no end line; the recording was cut short or is still going on; 4 messages kept"},
		{"end count wrong", tapeOf(2, 1, false) + `{"type":"end","messages":5,"duration_us":0}` + "\n", "line 4: the end line says 5 messages but the tape has 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(writeTemp(t, "a.jsonl", tt.content))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			readAll(t, r)
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("Next after the end: got %v, want io.EOF", err)
			}
			w := r.Warnings()
			if len(w) != 1 || !strings.Contains(w[0], tt.want) {
				t.Errorf("got warnings %q, want one containing %q", w, tt.want)
			}
		})
	}
}

func TestLongLinesAssembled(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 3*bufferSize) + `"}}`
	content := hdr + msgLine(0, 0, "c2s", `{}`) + msgLine(1, 5, "s2c", big) + msgLine(2, 9, "c2s", `{}`)
	r, err := Open(writeTemp(t, "big.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	msgs := readAll(t, r)
	if len(msgs) != 3 || string(msgs[1].Msg) != big || msgs[2].Line != 4 {
		t.Fatalf("got %d messages (msg 1 %d bytes), want 3 with msg 1 of %d bytes", len(msgs), len(msgs[1].Msg), len(big))
	}
}

func TestNewReaderDoesNotClose(t *testing.T) {
	src := strings.NewReader(tapeOf(2, 1, true))
	r, err := NewReader("mem", src)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(readAll(t, r)); got != 2 {
		t.Errorf("got %d messages, want 2", got)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open("/nonexistent/x.jsonl")
	e := asError(t, err)
	if !strings.Contains(e.Error(), "/nonexistent/x.jsonl") || !strings.Contains(e.Error(), "check the path") {
		t.Errorf("got %q, want it to name the file and say what to do", e)
	}
}
