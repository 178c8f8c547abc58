package tape

import (
	"errors"
	"strings"
	"testing"
)

const samples = "../../shared/samples/agent-vcr/"

type want struct {
	dir    Dir
	tus    int64
	prefix string // of Msg
}

func TestVCRSamples(t *testing.T) {
	tests := []struct {
		file    string
		created string
		args    []string
		msgs    []want
	}{
		{"calculator-v1.vcr", "2026-02-08T10:30:00Z", nil, []want{
			{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05"`},
			{S2C, 0, `{"jsonrpc":"2.0","id":0,"result":`},
			{C2S, 0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
			{C2S, 1_000_000, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
			{S2C, 1_023_400, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"add"`},
			{C2S, 1_050_000, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":15,"b":27}}}`},
			{S2C, 1_058_700, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"42"}]}}`},
			{C2S, 1_120_000, `{"jsonrpc":"2.0","id":3,"method":"tools/call"`},
			{S2C, 1_126_200, `{"jsonrpc":"2.0","id":3,"result"`},
		}},
		{"calculator-v2.vcr", "2026-02-08T14:15:00Z", []string{"--v2"}, []want{
			{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize"`},
			{S2C, 0, `{"jsonrpc":"2.0","id":0,"result"`},
			{C2S, 0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
			{C2S, 1_000_000, `{"jsonrpc":"2.0","id":1,"method":"tools/list"`},
			{S2C, 1_031_000, `{"jsonrpc":"2.0","id":1,`},
			{C2S, 1_050_000, `{"jsonrpc":"2.0","id":2,`},
			{S2C, 1_061_200, `{"jsonrpc":"2.0","id":2,`},
			{C2S, 1_120_000, `{"jsonrpc":"2.0","id":3,`},
			{S2C, 1_125_800, `{"jsonrpc":"2.0","id":3,`},
			{C2S, 1_200_000, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"divide"`},
			{S2C, 1_207_400, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"33.333333333333336"}]`},
		}},
		{"calculator-errors.vcr", "2026-02-08T16:00:00Z", []string{"--v2"}, []want{
			{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize"`},
			{S2C, 0, `{"jsonrpc":"2.0","id":0,"result"`},
			{C2S, 0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
			{C2S, 1_000_000, `{"jsonrpc":"2.0","id":1,"method":"tools/list"`},
			{S2C, 1_028_100, `{"jsonrpc":"2.0","id":1,`},
			{C2S, 1_050_000, `{"jsonrpc":"2.0","id":2,`},
			{S2C, 1_054_300, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Division by zero"`},
			{C2S, 1_100_000, `{"jsonrpc":"2.0","id":3,`},
			{S2C, 1_102_100, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"`},
			{C2S, 1_150_000, `{"jsonrpc":"2.0","id":4,`},
			{S2C, 1_155_900, `{"jsonrpc":"2.0","id":4,"result"`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := Open(samples + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Format() != FormatVCR {
				t.Errorf("Format() = %q, want %q", r.Format(), FormatVCR)
			}
			h := r.Header()
			// One string and no args: split as a shell would.
			wantCmd := []string{"node", "calculator-server.js"}
			if len(tt.args) > 0 {
				wantCmd = append([]string{"node calculator-server.js"}, tt.args...)
			}
			if h.Format != FormatName || h.Version != 1 || h.CreatedAt != tt.created || h.ProtocolVersion != "2024-11-05" || h.Transport != "stdio" ||
				h.Server == nil || h.Server.Name != "calculator-server" || strings.Join(h.Server.Command, "|") != strings.Join(wantCmd, "|") || h.Tags["env"] == "" {
				t.Errorf("header = %+v (server %+v)", h, h.Server)
			}
			msgs := readAll(t, r)
			if len(msgs) != len(tt.msgs) {
				t.Fatalf("got %d messages, want %d", len(msgs), len(tt.msgs))
			}
			for i, w := range tt.msgs {
				m := msgs[i]
				if m.Seq != int64(i) || m.Dir != w.dir || m.TUS != w.tus || m.Session != "s1" || !strings.HasPrefix(string(m.Msg), w.prefix) {
					t.Errorf("message %d: got seq %d %s t=%d session %q %.60s, want %s t=%d %s", i, m.Seq, m.Dir, m.TUS, m.Session, m.Msg, w.dir, w.tus, w.prefix)
				}
				if m.Line == 0 {
					t.Errorf("message %d: line 0, want the line it starts on", i)
				}
			}
			if e := r.End(); e == nil || e.Messages != int64(len(msgs)) {
				t.Errorf("End() = %+v, want %d messages", e, len(msgs))
			}
		})
	}
}

func TestVCREdgeCases(t *testing.T) {
	r, err := Open("testdata/edge.vcr")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Header()
	if h.CreatedAt != "" || h.ProtocolVersion != "2025-06-18" || h.Transport != "sse" || strings.Join(h.Server.Command, " ") != "python -m srv" || h.Tags != nil {
		t.Errorf("header = %+v", h)
	}
	// Earliest time: interaction 2 at 10:59:59Z. Interaction 0 is 11:00:00.5Z.
	wants := []struct {
		dir    Dir
		tus    int64
		prefix string
	}{
		{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize"`},
		{S2C, 0, `{"jsonrpc":"2.0","id":0,"result"`},
		{C2S, 0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{S2C, 1_500_000, `{"jsonrpc":"2.0","method":"notifications/progress"`},
		{S2C, 1_500_000, `{"jsonrpc":"2.0","method":"notifications/message"`},
		{C2S, 1_500_000, `{"z":1,"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`},
		{S2C, 3_500_250, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`},
		{S2C, 3_500_250, `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`}, // 2s, kept monotonic
		{C2S, 3_500_250, `{"jsonrpc":"2.0","method":"notifications/cancelled"`},  // 0s, kept monotonic
	}
	msgs := readAll(t, r)
	if len(msgs) != len(wants) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(wants))
	}
	for i, w := range wants {
		m := msgs[i]
		if m.Dir != w.dir || m.TUS != w.tus || m.Session != "sess-42" || !strings.HasPrefix(string(m.Msg), w.prefix) {
			t.Errorf("message %d: got %s t=%d %q %s, want %s t=%d %s", i, m.Dir, m.TUS, m.Session, m.Msg, w.dir, w.tus, w.prefix)
		}
	}
	if msgs[5].Line != 20 {
		t.Errorf("request line = %d, want 20", msgs[5].Line)
	}
}

func TestVCRCompact(t *testing.T) {
	r, err := Open("testdata/compact.vcr")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	msgs := readAll(t, r)
	// No handshake in the file: nothing restored.
	if len(msgs) != 2 || msgs[0].TUS != 1 || msgs[1].TUS != 401 || r.Header().CreatedAt != "2026-01-01T00:00:00Z" {
		t.Fatalf("got %+v, want ping at t=1 and its answer at t=401", msgs)
	}
}

func TestVCRBad(t *testing.T) {
	base := `{"format_version":"1.0.0","metadata":{"recorded_at":"2026-02-08T10:30:00","tags":{"a":"b"}},
"session":{"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize"},
"interactions":[
{"timestamp":"2026-02-08T10:30:01","direction":"client_to_server","request":{"jsonrpc":"2.0","id":1,"method":"a"},"latency_ms":1},
{"timestamp":"2026-02-08T10:30:02","direction":"client_to_server","request":{"jsonrpc":"2.0","id":2,"method":"b"},"latency_ms":1},
{"timestamp":"2026-02-08T10:30:03","direction":"client_to_server","request":{"jsonrpc":"2.0","id":3,"method":"c"},"latency_ms":1}]}}`
	tests := []struct {
		name, old, new string
		line           int64
		want           string
		is             error
	}{
		{"latency string", `"method":"c"},"latency_ms":1`, `"method":"c"},"latency_ms":"1"`, 6, `session.interactions[2].latency_ms is a string, want a number`, nil},
		{"latency negative", `"method":"b"},"latency_ms":1`, `"method":"b"},"latency_ms":-3`, 5, `session.interactions[1].latency_ms is -3`, nil},
		{"timestamp bad", `"2026-02-08T10:30:02"`, `"yesterday"`, 5, `session.interactions[1].timestamp "yesterday" is not an ISO 8601 time`, nil},
		{"timestamp number", `"2026-02-08T10:30:02"`, `5`, 5, `session.interactions[1].timestamp is a number, want a string`, nil},
		{"direction", `"direction":"client_to_server","request":{"jsonrpc":"2.0","id":2`, `"direction":"sideways","request":{"jsonrpc":"2.0","id":2`, 5, `session.interactions[1].direction is "sideways"`, nil},
		{"request missing", `"request":{"jsonrpc":"2.0","id":1,"method":"a"},`, ``, 4, `session.interactions[0] has no request`, nil},
		{"request string", `{"jsonrpc":"2.0","id":1,"method":"a"}`, `"a"`, 4, `session.interactions[0].request is a string, want a JSON-RPC object`, nil},
		{"notifications object", `"latency_ms":1},`, `"latency_ms":1,"notifications":{}},`, 4, `session.interactions[0].notifications is an object, want an array`, nil},
		{"notification number", `"latency_ms":1},`, `"latency_ms":1,"notifications":[{},3]},`, 4, `session.interactions[0].notifications[1] is a number`, nil},
		{"interactions object", `"interactions":[`, `"interactions":{"x":[`, 0, ``, nil}, // not JSON then: fixed below
		{"tags value", `"tags":{"a":"b"}`, `"tags":{"a":1}`, 1, `metadata.tags.a is a number, want a string`, nil},
		{"recorded_at", `"recorded_at":"2026-02-08T10:30:00"`, `"recorded_at":false`, 1, `metadata.recorded_at is a boolean`, nil},
		{"session array", `"session":{`, `"session":[{`, 0, ``, nil},
		{"newer", `"format_version":"1.0.0"`, `"format_version":"2.0.0"`, 1, `upgrade replayctl`, ErrNewerVersion},
		{"format_version number", `"format_version":"1.0.0"`, `"format_version":1`, 1, `format_version is a number, want a string`, nil},
		{"no session", `"session":`, `"sessio":`, 1, `neither an Agent VCR cassette`, ErrUnknownFormat},
		{"not json", `"latency_ms":1}]}}`, `"latency_ms":1}]}`, 6, `not valid JSON`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(base, tt.old, tt.new, 1)
			if doc == base {
				t.Fatalf("replacement %q not found", tt.old)
			}
			switch tt.name { // keep the document valid JSON
			case "interactions object":
				doc = strings.Replace(doc, `"latency_ms":1}]}}`, `"latency_ms":1}]}}}`, 1)
				tt.line, tt.want = 3, "session.interactions is an object, want an array"
			case "session array":
				doc = strings.Replace(doc, `"latency_ms":1}]}}`, `"latency_ms":1}]}]}`, 1)
				tt.line, tt.want = 2, "session is an array, want an object"
			}
			_, _, err := DecodeVCR("x.vcr", []byte(doc))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			e := asError(t, err)
			if !strings.Contains(e.Error(), tt.want) || !strings.HasPrefix(e.Error(), "tape x.vcr line ") {
				t.Errorf("got %q, want it to contain %q", e.Error(), tt.want)
			}
			if e.Line != tt.line {
				t.Errorf("got line %d, want %d (%v)", e.Line, tt.line, e)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("got %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}
