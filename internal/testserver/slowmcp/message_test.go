package slowmcp

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestAnswer(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind Kind
		want string // "" when there is no answer
	}{
		{"initialize known version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, Request,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`},
		{"initialize unknown version", `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01"}}`, Request,
			`{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`},
		{"initialize no params", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, Request,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`},
		{"tools/call text", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a<b \"q\""}}}`, Request,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a<b \"q\""}]}}`},
		{"tools/call no text", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other","arguments":{"n":1}}}`, Request,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`},
		{"tools/call text not a string", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`, Request,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, Request,
			`{"jsonrpc":"2.0","id":3,"result":` + toolsListResult + `}`},
		{"ping", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, Request, `{"jsonrpc":"2.0","id":4,"result":{}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`, Request,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found: resources/list"}}`},
		{"id kept on one line", "{\"jsonrpc\":\"2.0\",\"id\":{\n\"a\": 1},\"method\":\"ping\"}", Request, `{"jsonrpc":"2.0","id":{"a":1},"result":{}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, Notification, ""},
		{"response", `{"jsonrpc":"2.0","id":"srv-1","result":{}}`, Response, ""},
		{"error response", `{"jsonrpc":"2.0","id":"srv-1","error":{"code":1,"message":"no"}}`, Response, ""},
		{"not JSON", `nope`, Invalid, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not JSON"}}`},
		{"truncated", `{"jsonrpc":"2.0","id":1`, Invalid, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not JSON"}}`},
		{"array", `[1,2]`, Invalid, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON-RPC message"}}`},
		{"empty object", `{}`, Invalid, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON-RPC message"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Parse([]byte(tc.in))
			if m.Kind != tc.kind {
				t.Errorf("got kind %d, want %d", m.Kind, tc.kind)
			}
			if got := string(Answer(m)); got != tc.want {
				t.Errorf("got answer\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestAppendArrival(t *testing.T) {
	at := time.Unix(2, 5)
	tests := []struct {
		in   string
		want string
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, "2000000005 tools/call 7\n"},
		{`{"jsonrpc":"2.0","id":"srv-1","result":{}}`, "2000000005 response \"srv-1\"\n"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "2000000005 notifications/initialized -\n"},
		{`nope`, "2000000005 invalid -\n"},
	}
	for _, tc := range tests {
		if got := string(AppendArrival(nil, at, time.Time{}, Parse([]byte(tc.in)))); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
	// With the kernel's receive time: a fourth field, after the id.
	rx := time.Unix(1, 999)
	if got, want := string(AppendArrival(nil, at, rx, Parse([]byte(tests[0].in)))), "2000000005 tools/call 7 rx=1000000999\n"; got != want {
		t.Errorf("with rx: got %q, want %q", got, want)
	}
}

func TestParseHang(t *testing.T) {
	for _, s := range []string{"", "none", "headers", "noread", "429"} {
		if _, err := ParseHang(s); err != nil {
			t.Errorf("ParseHang(%q): got %v, want no error", s, err)
		}
	}
	if _, err := ParseHang("forever"); err == nil {
		t.Errorf("ParseHang(forever): got no error, want one")
	}
}

// FuzzAnswer checks that every input gets a well-formed, one-line answer
// or none, and that only requests and invalid input are answered.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`,
		`nope`, `[]`, `{"id":{"a":[1, 2]},"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m := Parse(in)
		a := Answer(m)
		if (a == nil) != (m.Kind == Notification || m.Kind == Response) {
			t.Fatalf("kind %d: got answer %q", m.Kind, a)
		}
		if a == nil {
			return
		}
		if !json.Valid(a) || bytes.ContainsAny(a, "\r\n") {
			t.Fatalf("got answer %q, want one line of JSON", a)
		}
		if line := AppendArrival(nil, time.Unix(0, 0), time.Unix(0, 1), m); bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("got arrival %q, want one line", line)
		}
	})
}
