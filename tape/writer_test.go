package tape

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sampleMessages() []Message {
	return []Message{
		{Seq: 0, TUS: 0, Session: "s1", Dir: C2S, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{ "b":1, "a":2 }}`)},
		{Seq: 1, TUS: 1830, Session: "s1", Dir: S2C, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"x":"<&>"}}`),
			HTTP: &HTTPMeta{Status: 200, Headers: map[string][]string{"Content-Type": {"text/event-stream"}}},
			SSE:  &SSEMeta{ID: "e1", Event: "message", Retry: 1000}},
		{Seq: 2, TUS: 2000, Session: `quote"d é`, Dir: C2S, Msg: json.RawMessage(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`),
			Extra: map[string]json.RawMessage{"z": json.RawMessage(`{"k":[1,2]}`), "a": json.RawMessage(`true`)}},
		{Seq: 7, TUS: 1990, Dir: S2C, Msg: json.RawMessage("{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"x\"\n}")},
	}
}

func TestRoundTrip(t *testing.T) {
	h := Header{CreatedAt: "2026-01-02T03:04:05Z", ProtocolVersion: "2025-06-18", Transport: "stdio",
		Server: &Server{Command: []string{"node", "server.js"}, Name: "calc", Version: "1"},
		Tags:   map[string]string{"b": "2", "a": "1"}, Extra: map[string]json.RawMessage{"recorder": json.RawMessage(`{"v":"x"}`)}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	in := sampleMessages()
	for _, m := range in {
		if err := w.Write(m); err != nil {
			t.Fatalf("Write seq %d: %v", m.Seq, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	first := buf.Bytes()
	if got := bytes.Count(first, []byte("\n")); got != len(in)+2 {
		t.Fatalf("got %d lines, want %d:\n%s", got, len(in)+2, first)
	}
	wantEnd := `{"type":"end","messages":4,"duration_us":2000}` + "\n"
	if !bytes.HasSuffix(first, []byte(wantEnd)) {
		t.Errorf("tape ends %q, want %q", first[bytes.LastIndexByte(first[:len(first)-1], '\n')+1:], wantEnd)
	}

	p := writeTemp(t, "a.jsonl", string(first))
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := readAll(t, r)
	if len(got) != len(in) {
		t.Fatalf("read %d messages, want %d", len(got), len(in))
	}
	for i := range in {
		want := string(in[i].Msg)
		if i == 3 {
			want = `{"jsonrpc":"2.0","method":"x"}` // had line breaks: compacted
		}
		if string(got[i].Msg) != want {
			t.Errorf("msg %d: got %q, want %q", i, got[i].Msg, want)
		}
		if got[i].Seq != in[i].Seq || got[i].TUS != in[i].TUS || got[i].Session != in[i].Session || got[i].Dir != in[i].Dir {
			t.Errorf("msg %d: got %+v, want %+v", i, got[i], in[i])
		}
	}
	if got[1].SSE == nil || *got[1].SSE != *in[1].SSE || got[1].HTTP.Headers["Content-Type"][0] != "text/event-stream" {
		t.Errorf("transport metadata: got http %+v sse %+v", got[1].HTTP, got[1].SSE)
	}
	if string(got[2].Extra["z"]) != `{"k":[1,2]}` || string(got[2].Extra["a"]) != "true" {
		t.Errorf("extra: got %q", got[2].Extra)
	}
	if rh := r.Header(); rh.Server.Command[1] != "server.js" || rh.Tags["a"] != "1" || string(rh.Extra["recorder"]) != `{"v":"x"}` {
		t.Errorf("header: got %+v", rh)
	}

	// Converting the tape again gives the same bytes.
	out := filepath.Join(t.TempDir(), "b.jsonl")
	if err := WriteFile(out, r); err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("round trip changed the bytes:\ngot  %s\nwant %s", second, first)
	}
}

func TestWriterRefuses(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"bad dir", Message{Seq: 5, Dir: "x", Msg: json.RawMessage(`{}`)}, "dir"},
		{"msg not json", Message{Seq: 5, Dir: C2S, Msg: json.RawMessage(`{`)}, "not a JSON object"},
		{"msg string", Message{Seq: 5, Dir: C2S, Msg: json.RawMessage(`"x"`)}, "not a JSON object"},
		{"seq not increasing", Message{Seq: 1, Dir: C2S, Msg: json.RawMessage(`{}`)}, "seq must increase"},
		{"negative t", Message{Seq: 5, TUS: -1, Dir: C2S, Msg: json.RawMessage(`{}`)}, "≥ 0"},
		{"bad extra", Message{Seq: 5, Dir: C2S, Msg: json.RawMessage(`{}`), Extra: map[string]json.RawMessage{"x": json.RawMessage(`nope`)}}, "extra member"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Header{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(Message{Seq: 1, Dir: C2S, Msg: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
			size := buf.Len()
			err = w.Write(tt.m)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if buf.Len() != size {
				t.Errorf("a refused message wrote %d bytes, want 0", buf.Len()-size)
			}
		})
	}
}

// countingWriter records the size of every Write call.
type countingWriter struct{ calls []int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls = append(c.calls, len(p))
	return len(p), nil
}

func TestWriterOneWritePerLine(t *testing.T) {
	var cw countingWriter
	w, err := NewWriter(&cw, Header{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range sampleMessages() {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	w.Close() // idempotent
	if got, want := len(cw.calls), len(sampleMessages())+2; got != want {
		t.Fatalf("got %d write calls, want %d (one per line)", got, want)
	}
	if err := w.Write(Message{Seq: 100, Dir: C2S, Msg: json.RawMessage(`{}`)}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
}

func TestCreateCrashLeavesReadableTape(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rec.jsonl")
	w, err := Create(p, Header{Transport: "stdio"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(10) {
		if err := w.Write(Message{Seq: i, TUS: i, Session: "s1", Dir: C2S, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	// A crash now: no Close. The file holds whole lines only.
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Simulate a torn write of the next line too.
	torn := append(data, `{"type":"message","seq":10,"t_us":10,"ses`...)
	r, err := Open(writeTemp(t, "crashed.jsonl", string(torn)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := len(readAll(t, r)); got != 10 {
		t.Errorf("got %d messages after a crash, want 10", got)
	}
	if len(r.Warnings()) != 1 {
		t.Errorf("warnings = %q, want one", r.Warnings())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	readAll(t, r2)
	if e := r2.End(); e == nil || e.Messages != 10 || e.DurationUS != 9 || len(r2.Warnings()) != 0 {
		t.Errorf("after Close: end %+v warnings %q, want {10 9} and none", e, r2.Warnings())
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := tapeOf(3, 1, false) + `{"type":"message","seq":"x"}` + "\n"
	r, err := Open(writeTemp(t, "bad.jsonl", bad))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = WriteFile(out, r)
	if e := asError(t, err); e.Line != 5 {
		t.Fatalf("WriteFile = %v, want the input's error at line 5", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Errorf("a failed convert changed the output to %q, want it untouched", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("got %d files in the directory, want 1 (no temporary file left)", len(entries))
	}
}

func TestConvertVCR(t *testing.T) {
	r, err := Open(fixtures + "abacus-v2.vcr")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := readAll(t, r) // WriteFile copies from the first message anyway
	out := filepath.Join(t.TempDir(), "v2.jsonl")
	if err := WriteFile(out, r); err != nil {
		t.Fatal(err)
	}
	n, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	got := readAll(t, n)
	if len(first) != 11 || len(got) != len(first) || n.Format() != FormatNative || len(n.Warnings()) != 0 {
		t.Fatalf("converted tape: %d messages of %d (%s, warnings %q), want 11 native", len(got), len(first), n.Format(), n.Warnings())
	}
	for i := range got {
		if string(got[i].Msg) != string(first[i].Msg) || got[i].TUS != first[i].TUS || got[i].Dir != first[i].Dir {
			t.Errorf("message %d: got %+v, want %+v", i, got[i], first[i])
		}
	}
	if h := n.Header(); h.Server == nil || h.Server.Name != "abacus-server" || h.CreatedAt != "2026-03-14T13:40:00Z" {
		t.Errorf("converted header = %+v", h)
	}
}

// TestWriteFileContextCancelled: a conversion stopped by its context
// leaves the output untouched and no temporary file behind.
func TestWriteFileContextCancelled(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(writeTemp(t, "in.jsonl", tapeOf(10, 1, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := WriteFileContext(ctx, out, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteFileContext: got %v, want context.Canceled", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Errorf("a cancelled convert changed the output to %q, want it untouched", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("got %d files in the directory, want 1 (no temporary file left)", len(entries))
	}
}

// TestWriteFileFromPipe: a tape read from a pipe converts; a reader that
// has read nothing yet rewinds without seeking.
func TestWriteFileFromPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if _, err := pw.WriteString(tapeOf(5, 1, true)); err != nil { // fits in the pipe's buffer
		t.Fatal(err)
	}
	pw.Close()
	r, err := NewReader("pipe", pr)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if err := WriteFile(out, r); err != nil {
		t.Fatalf("WriteFile from a pipe: %v", err)
	}
	n, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := readAll(t, n); len(got) != 5 {
		t.Errorf("converted %d messages, want 5", len(got))
	}
	if err := r.Rewind(); err == nil || !strings.Contains(err.Error(), "is it a pipe?") {
		t.Errorf("Rewind after reading a pipe: got %v, want the pipe error", err)
	}
}
