package transport

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// sseData is data as a reader of what SSEWriter wrote returns it: line
// breaks made LF.
func sseData(data []byte) []byte {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
}

func TestSSEWriterRoundTrip(t *testing.T) {
	events := []SSEEvent{
		{Data: []byte(`{"jsonrpc":"2.0","method":"ping","id":1}`)},
		{ID: "e1", HasID: true, Event: "message", Data: []byte(`{"a":1}`), Retry: 1500},
		{Data: []byte("line one\nline two\r\nline three\rfour")},
		{Data: []byte{}},
		{Data: []byte(" leading space and : colon")},
		{ID: "", HasID: true, Data: []byte("resets the id")},
		{Event: "endpoint", Data: []byte("/message?sessionId=abc")},
		{Data: []byte("\n\n")},
	}
	rec := httptest.NewRecorder()
	w := NewSSEWriter(rec)
	for i, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if err := w.Comment("keep-alive"); err != nil {
		t.Fatal(err)
	}
	if !rec.Flushed {
		t.Error("the writer did not flush the response")
	}
	got, sr, err := readAllEvents(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(events) {
		t.Fatalf("read %d events, want %d:\n%s", len(got), len(events), rec.Body.String())
	}
	for i, want := range events {
		g := got[i]
		if g.ID != want.ID || g.HasID != (want.HasID || want.ID != "") || g.Event != want.Event || g.Retry != want.Retry || !bytes.Equal(g.Data, sseData(want.Data)) {
			t.Errorf("event %d: got %+v (data %q), want %+v (data %q)", i, g, g.Data, want, sseData(want.Data))
		}
	}
	if sr.LastEventID() != "" || sr.RetryMS() != 1500 {
		t.Errorf("last id %q retry %d, want \"\" and 1500", sr.LastEventID(), sr.RetryMS())
	}
}

func TestSSEWriterRefuses(t *testing.T) {
	tests := []struct {
		name string
		ev   SSEEvent
	}{
		{"id with LF", SSEEvent{ID: "a\nb"}},
		{"id with NUL", SSEEvent{ID: "a\x00b"}},
		{"event with CR", SSEEvent{Event: "a\rb"}},
		{"negative retry", SSEEvent{Retry: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := NewSSEWriter(&buf).Write(tc.ev); !errors.Is(err, ErrSSEField) || buf.Len() != 0 {
				t.Errorf("got %v and %q written, want ErrSSEField and nothing", err, buf.String())
			}
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("client gone")
}

func TestSSEWriterStickyError(t *testing.T) {
	f := &failWriter{}
	w := NewSSEWriter(f)
	if err := w.Write(SSEEvent{Data: []byte("x")}); err == nil {
		t.Fatal("no error from a failing writer")
	}
	if err := w.Write(SSEEvent{Data: []byte("y")}); err == nil || f.n != 1 {
		t.Errorf("second write: %v after %d writes, want the first error and no write", err, f.n)
	}
}

var _ http.Flusher = httptest.NewRecorder()

func FuzzSSEWriterRoundTrip(f *testing.F) {
	f.Add("e1", "message", []byte(`{"a":1}`), int64(10))
	f.Add("", "", []byte("a\r\nb\rc\n"), int64(0))
	f.Add("\xEF\xBB\xBF", "x", []byte(""), int64(1))
	f.Fuzz(func(t *testing.T, id, event string, data []byte, retry int64) {
		ev := SSEEvent{ID: id, HasID: id != "", Event: event, Data: data, Retry: retry}
		var buf bytes.Buffer
		if err := NewSSEWriter(&buf).Write(ev); err != nil {
			if !errors.Is(err, ErrSSEField) {
				t.Fatal(err)
			}
			return
		}
		got, _, err := readAllEvents(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("%d events from %+v", len(got), ev)
		}
		g := got[0]
		wantRetry := max(retry, 0)
		if g.ID != id || g.Event != event || g.Retry != wantRetry || !bytes.Equal(g.Data, sseData(data)) {
			t.Fatalf("got %+v, want %+v", g, ev)
		}
	})
}
