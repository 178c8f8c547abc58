package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// compact reports whether the JSON text b has no white space outside its
// strings: what a recorder that writes compact JSON wrote, read as it is.
func compact(b []byte) bool {
	in := false // inside a string
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// vcrLineSamples are the cassettes the one-line decoder is compared on:
// the fixtures, made one line each (json.Compact), and cases of each of
// its errors.
func vcrLineSamples(t testing.TB) [][]byte {
	var out [][]byte
	paths, _ := filepath.Glob(fixtures + "*.vcr")
	local, _ := filepath.Glob("testdata/*.vcr")
	for _, p := range append(paths, local...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if json.Compact(&buf, b) == nil {
			out = append(out, buf.Bytes())
		}
		out = append(out, bytes.ReplaceAll(b, []byte("\n"), []byte(" ")))
	}
	if len(out) < 10 {
		t.Fatalf("found %d samples, want the fixtures' (10 or more)", len(out))
	}
	for _, s := range []string{
		`[]`, `"x"`, `{}`, `{"format_version": "1.0.0"}`, `{"session": {}}`,
		`{"format_version": "2.0", "session": {}}`,
		`{"format_version": 1, "session": {}}`,
		`{"format_version": "1.0.0", "session": []}`,
		`{"format_version": "1.0.0", "session": {"interactions": {}}}`,
		`{"format_version": "1.0.0", "session": {"interactions": null}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [1]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "direction": "up"}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}, {"request": 5}, {"request": []}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": null}, "response": {"jsonrpc": "2.0", "id": 1, "result": null, "error": {"code": 1, "message": "x", "data": null}}, "latency_ms": 2.5, "timestamp": "2026-01-01T00:00:00Z"}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}]}, "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}], "interactions": []}}`,
		`{"format\u005fversion": "1.0.0", "session": {"interactions": [{"req\u0075est": {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": "x\"  y"}}}]}}`,
		`{"format_version": "1.0.0", "metadata": {"recorded_at": "yesterday"}, "session": {}}`,
		`{"format_version": "1.0.0", "metadata": {"tags": {"a": 1}}, "session": {}}`,
		`{"format_version": "1.0.0", "session": {"initialize_request": 3}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "notifications": [{"jsonrpc": "2.0", "method": "n"}, 7]}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "latency_ms": -1}]}}`,
		`{"format_version": "1.0.0", "session": {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "timestamp": "now"}]}}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// decodeBoth decodes doc with the stream decoder (encoding/json) and the
// one-line one, into memory, and says how they differ, or "".
func decodeBoth(doc []byte, lineBase int64) string {
	var want, got memStore
	wh, wim, werr := decodeVCRStream("a.vcr", bytes.NewReader(doc), lineBase, &want)
	gh, gim, gerr := decodeVCRLine("a.vcr", doc, lineBase, &got)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		return fmt.Sprintf("error %v, want %v", gerr, werr)
	}
	if werr != nil {
		return ""
	}
	if !reflect.DeepEqual(gh, wh) {
		return fmt.Sprintf("header %+v, want %+v", gh, wh)
	}
	wm, _ := wim.messages()
	gm, _ := gim.messages()
	if !reflect.DeepEqual(gm, wm) {
		return fmt.Sprintf("messages\n%+v\nwant\n%+v", gm, wm)
	}
	if gim.session != wim.session {
		return fmt.Sprintf("session %q, want %q", gim.session, wim.session)
	}
	return ""
}

// The one-line decoder decodes what encoding/json's stream decoder does,
// to the byte, and fails where it fails with the same error.
func TestDecodeVCRLineAgrees(t *testing.T) {
	for i, doc := range vcrLineSamples(t) {
		if !oneLineDoc(doc, true, nil) {
			continue
		}
		if diff := decodeBoth(doc, int64(i%3)); diff != "" {
			t.Errorf("sample %d (%.80s…): %s", i, doc, diff)
		}
	}
}

func FuzzDecodeVCRLine(f *testing.F) {
	for _, doc := range vcrLineSamples(f) {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !oneLineDoc(doc, true, nil) {
			return
		}
		if diff := decodeBoth(doc, 0); diff != "" {
			t.Fatalf("%q: %s", doc, diff)
		}
	})
}

// appendCompact makes of valid JSON what json.Compact makes of it.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range []string{`{"a":1}`, ` { "a" : [ 1 , "x y" ] } `, `{"a":"\" \\"}`, "[1,\n\t2 ]", `"a b"`, `true`, `{"a": {"b": null}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf bytes.Buffer
		if json.Compact(&buf, b) != nil {
			return
		}
		if got := appendCompact(nil, b); !bytes.Equal(got, buf.Bytes()) {
			t.Fatalf("appendCompact(%q) = %q, want %q (json.Compact)", b, got, buf.Bytes())
		}
	})
}

// A cassette on one line ending in a newline (or none) is imported by
// the one-line decoder; one on several lines is streamed.
func TestOneLineDoc(t *testing.T) {
	doc := []byte(`{"format_version": "1.0.0", "session": {}}`)
	for _, c := range []struct {
		name  string
		first []byte
		last  bool
		rest  string
		want  bool
	}{
		{"last line", doc, true, "", true},
		{"then a newline", doc, false, "", true},
		{"then blank lines", doc, false, "\n  \r\n", true},
		{"then more", doc, false, "{}", false},
		{"not valid", doc[:len(doc)-1], true, "", false},
		{"much white space after", doc, false, string(bytes.Repeat([]byte(" "), 5000)), false},
	} {
		if got := oneLineDoc(c.first, c.last, []byte(c.rest)); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// parseISO tries its layouts in another order when the time has no zone:
// it parses what trying them in the first order parses, to the same time.
func FuzzParseISO(f *testing.F) {
	for _, s := range []string{"2026-03-14T13:40:00.000", "2026-03-14T13:40:00Z", "2026-03-14T13:40:00.5+02:00", "2026-03-14 13:40:00", "2026-03-14 13:40:00-07:00", "2026-03-14T13:40:00", "2026-03-14T13:40:00.000-", "yesterday", "2026-03-14T13:40:00.123456789+01:00", "2026-03-14T13:40:00 Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want time.Time
		wantOK := false
		for _, layout := range isoLayouts {
			if tm, err := time.Parse(layout, s); err == nil {
				want, wantOK = tm, true
				break
			}
		}
		got, ok := parseISO(s)
		if ok != wantOK || !got.Equal(want) || got.Location().String() != want.Location().String() {
			t.Fatalf("parseISO(%q) = %v, %v; want %v, %v", s, got, ok, want, wantOK)
		}
	})
}
