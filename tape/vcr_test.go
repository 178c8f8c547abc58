package tape

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// fixtures holds the project's own Agent VCR cassettes, written by hand.
const fixtures = "../testdata/vcr/"

// samplesEnv names the folder of third-party Agent VCR cassettes (the
// calculator-*.vcr of Agent VCR's own examples), which the repository does
// not hold. Tests that read them run only when it is set, e.g.
// REPLAYCTL_VCR_SAMPLES=/path/to/samples/agent-vcr go test ./tape/; a
// clone needs nothing beside it.
const samplesEnv = "REPLAYCTL_VCR_SAMPLES"

// samples is the folder samplesEnv names, with a trailing slash.
var samples = os.Getenv(samplesEnv) + "/"

// needSamples skips t unless samplesEnv names a folder.
func needSamples(t *testing.T) {
	t.Helper()
	if os.Getenv(samplesEnv) == "" {
		t.Skipf("%s is not set: the third-party Agent VCR samples are not part of the repository", samplesEnv)
	}
	if _, err := os.Stat(samples); err != nil {
		t.Fatalf("%s=%s: %v", samplesEnv, os.Getenv(samplesEnv), err)
	}
}

type want struct {
	dir    Dir
	tus    int64
	prefix string // of Msg
}

func TestVCRFixtures(t *testing.T) {
	const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	tests := []struct {
		file     string
		created  string
		protocol string
		version  string // server_info.version
		cmd      []string
		session  string
		tags     map[string]string
		msgs     []want
	}{
		// The client asks for 2025-06-18, the server answers 2025-03-26:
		// the server's version is the one negotiated. One command string
		// and no args: split as a shell would.
		{"abacus-v1.vcr", "2026-03-14T09:05:00Z", "2025-03-26", "1.3.0", []string{"node", "abacus.js"}, "s1",
			map[string]string{"env": "ci", "suite": "golden"}, []want{
				{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}}`},
				{S2C, 0, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26"`},
				{C2S, 0, initialized},
				{C2S, 2_000_000, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
				{S2C, 2_017_250, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"sum","description":"Sum of x and y",`},
				{C2S, 2_075_000, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{"x":2.5,"y":4}}}`},
				{S2C, 2_079_500, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"6.5"}],"isError":false}}`},
				{C2S, 2_160_000, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"product","arguments":{"x":12,"y":-12}}}`},
				{S2C, 2_163_125, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"-144"}],"isError":false}}`},
			}},
		// A newer server: sum changed (an optional argument, an output
		// schema, structured content) and a new tool, power.
		{"abacus-v2.vcr", "2026-03-14T13:40:00Z", "2025-06-18", "2.0.0", []string{"node abacus.js", "--exact", "--log-level=warn"}, "s1",
			map[string]string{"env": "staging", "suite": "upgrade-check"}, []want{
				{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"`},
				{S2C, 0, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}}`},
				{C2S, 0, initialized},
				{C2S, 1_500_000, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
				{S2C, 1_521_750, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"sum","description":"Sum of x and y, optionally rounded","inputSchema":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"},"digits":`},
				{C2S, 1_580_000, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{"x":2.5,"y":4}}}`},
				{S2C, 1_585_250, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"6.5"}],"structuredContent":{"value":6.5},"isError":false}}`},
				{C2S, 1_640_000, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"product","arguments":{"x":12,"y":-12}}}`},
				{S2C, 1_642_875, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"-144"}],"isError":false}}`},
				{C2S, 1_720_000, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"power","arguments":{"base":2,"exponent":10}}}`},
				{S2C, 1_729_500, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"1024"}],"isError":false}}`},
			}},
		// A named session; server notifications come before the request
		// they arrived during, at its time; JSON-RPC errors.
		{"abacus-progress.vcr", "2026-03-15T22:10:00Z", "2025-06-18", "2.1.0-rc.1", []string{"node", "abacus.js", "--exact"}, "nightly-0315",
			map[string]string{"env": "nightly", "suite": "progress-and-errors"}, []want{
				{C2S, 0, `{"jsonrpc":"2.0","id":0,"method":"initialize"`},
				{S2C, 0, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}}`},
				{C2S, 0, initialized},
				{C2S, 400_000, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
				{S2C, 411_000, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"product"`},
				{S2C, 900_000, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"sum-2","progress":2,"total":4}}`},
				{S2C, 900_000, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"sum-2","progress":4,"total":4}}`},
				{S2C, 900_000, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"`},
				{C2S, 900_000, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_sum","arguments":{"values":[1,2,3,4]},"_meta":{"progressToken":"sum-2"}}}`},
				{S2C, 1_150_500, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"10"}],"isError":false}}`},
				{C2S, 1_300_000, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"product","arguments":{"x":"twelve","y":3}}}`},
				{S2C, 1_301_750, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":{"field":"x"`},
				{C2S, 1_350_000, `{"jsonrpc":"2.0","id":4,"method":"resources/list"}`},
				{S2C, 1_350_625, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: resources/list"}}`},
				{C2S, 1_400_000, `{"jsonrpc":"2.0","id":5,"method":"ping"}`},
				{S2C, 1_400_300, `{"jsonrpc":"2.0","id":5,"result":{}}`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := Open(fixtures + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Format() != FormatVCR {
				t.Errorf("Format() = %q, want %q", r.Format(), FormatVCR)
			}
			h := r.Header()
			if h.Format != FormatName || h.Version != 1 || h.CreatedAt != tt.created || h.ProtocolVersion != tt.protocol || h.Transport != "stdio" ||
				h.Server == nil || h.Server.Name != "abacus-server" || h.Server.Version != tt.version || strings.Join(h.Server.Command, "|") != strings.Join(tt.cmd, "|") ||
				!maps.Equal(h.Tags, tt.tags) {
				t.Errorf("header = %+v (server %+v), want created %s protocol %s server abacus-server %s command %q tags %v", h, h.Server, tt.created, tt.protocol, tt.version, tt.cmd, tt.tags)
			}
			msgs := readAll(t, r)
			if len(msgs) != len(tt.msgs) {
				t.Fatalf("got %d messages, want %d", len(msgs), len(tt.msgs))
			}
			for i, w := range tt.msgs {
				m := msgs[i]
				if m.Seq != int64(i) || m.Dir != w.dir || m.TUS != w.tus || m.Session != tt.session || !strings.HasPrefix(string(m.Msg), w.prefix) {
					t.Errorf("message %d: got seq %d %s t=%d session %q %.60s, want %s t=%d %q %s", i, m.Seq, m.Dir, m.TUS, m.Session, m.Msg, w.dir, w.tus, tt.session, w.prefix)
				}
				if m.Line == 0 {
					t.Errorf("message %d: line 0, want the line it starts on", i)
				}
			}
			if e := r.End(); e == nil || e.Messages != int64(len(msgs)) {
				t.Errorf("End() = %+v, want %d messages", e, len(msgs))
			}
			// The restored notifications/initialized points at the
			// initialize response, the line it stands for.
			if msgs[2].Line != msgs[1].Line {
				t.Errorf("restored notifications/initialized: line %d, want the initialize response's %d", msgs[2].Line, msgs[1].Line)
			}
			if tt.file == "abacus-progress.vcr" && msgs[5].Line != 125 {
				t.Errorf("first notification: line %d, want 125", msgs[5].Line)
			}
		})
	}
}

// TestVCRRecorderShape imports a cassette in the shape Agent VCR's own
// recorder writes (not by hand): interactions holding a client's request
// and the server's answer marked "server_to_client", absent fields as null
// ("error": null beside a result, "result": null beside an error, null
// session_id, empty client_info and server_info), microsecond timestamps
// without a zone and unround latencies.
func TestVCRRecorderShape(t *testing.T) {
	r, err := Open(fixtures + "abacus-recorded.vcr")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Header()
	// server_info is {}: the server is only its command; tags is {}.
	if h.CreatedAt != "2026-03-16T07:42:17.998402Z" || h.ProtocolVersion != "2025-03-26" || h.Transport != "stdio" ||
		h.Server == nil || h.Server.Name != "" || h.Server.Version != "" || strings.Join(h.Server.Command, " ") != "uv run abacus-mcp" || len(h.Tags) != 0 {
		t.Errorf("header = %+v (server %+v)", h, h.Server)
	}
	wants := []struct {
		dir    Dir
		tus    int64
		line   int64
		prefix string
	}{
		{C2S, 0, 20, `{"jsonrpc":"2.0","id":0,"method":"initialize"`},
		{S2C, 0, 33, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26"`},
		{C2S, 0, 33, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{C2S, 205_715, 60, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{S2C, 220_519, 66, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"sum"`},
		{C2S, 313_548, 104, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum","arguments":{"x":0.1,"y":0.2}}}`},
		{S2C, 315_968, 116, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"0.30000000000000004"}]`},
		{C2S, 404_331, 137, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum","arguments":{"x":1}}}`},
		{S2C, 405_202, 148, `{"jsonrpc":"2.0","id":3,`},
	}
	msgs := readAll(t, r)
	if len(msgs) != len(wants) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(wants))
	}
	for i, w := range wants {
		m := msgs[i]
		if m.Seq != int64(i) || m.TUS != w.tus || m.Line != w.line || m.Session != "s1" || !strings.HasPrefix(string(m.Msg), w.prefix) {
			t.Errorf("message %d: got seq %d t=%d line %d session %q %.70s, want t=%d line %d session s1 %s", i, m.Seq, m.TUS, m.Line, m.Session, m.Msg, w.tus, w.line, w.prefix)
		}
	}
	// Who sent each message follows from the message, not from the
	// interaction's "direction": requests from the client, answers from
	// the server.
	var wrong []string
	for i, w := range wants {
		if m := msgs[i]; m.Dir != w.dir {
			wrong = append(wrong, fmt.Sprintf("%d is %s, want %s", m.Seq, m.Dir, w.dir))
		}
	}
	if len(wrong) > 0 {
		t.Errorf("who sent what: message %s", strings.Join(wrong, "; "))
	}
	// null stands for absent: no "error": null beside a result, no
	// "result": null beside an error, no "data": null in the error. Every
	// message is JSON-RPC as it would go on the wire.
	for i, m := range msgs {
		if _, err := jsonrpc.Parse(m.Msg); err != nil {
			t.Errorf("message %d is not JSON-RPC: %v\n%s", i, err, m.Msg)
		}
		if strings.Contains(string(m.Msg), "null") {
			t.Errorf("message %d keeps a null: %s", i, m.Msg)
		}
	}
	if got, want := string(msgs[8].Msg), `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: y is required"}}`; got != want {
		t.Errorf("error answer:\ngot  %s\nwant %s", got, want)
	}
}

func TestVCRDropNulls(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{"a":null},"error":null}`, `{"jsonrpc":"2.0","id":1,"result":{"a":null}}`},
		{`{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":-1,"message":"m","data":null}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":{"x":null}},"result":null}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":{"x":null}}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":null}}`, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":null}}`},
		{`{"jsonrpc":"2.0","id":1,"result":null,"error":null}`, `{"jsonrpc":"2.0","id":1,"result":null}`}, // a lone null result is the answer
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`},
		{`{"z":1,"jsonrpc":"2.0","id":1,"error":"odd"}`, `{"z":1,"jsonrpc":"2.0","id":1,"error":"odd"}`},
		{`{}`, `{}`},
	}
	for _, tt := range tests {
		if got := string(dropNulls([]byte(tt.in))); got != tt.want {
			t.Errorf("dropNulls(%s)\ngot  %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestVCRSenders: who sent an interaction's request follows from the
// request; ping from the direction only where the file's directions name
// senders.
func TestVCRSenders(t *testing.T) {
	req := func(id int, method string) vcrMsg {
		return vcrMsg{msg: fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)}
	}
	note := vcrMsg{msg: []byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)}
	tests := []struct {
		name   string
		inters []vcrInteraction
		want   []Dir
	}{
		{"recorder's shape: everything server_to_client", []vcrInteraction{
			{label: S2C, req: req(1, "tools/list")}, {label: S2C, req: req(2, "ping")}, {label: S2C, req: req(3, "sampling/createMessage")},
		}, []Dir{C2S, C2S, S2C}},
		{"by sender: the server's ping", []vcrInteraction{
			{label: C2S, req: req(1, "tools/list")}, {label: S2C, req: req(2, "ping")}, {label: C2S, req: req(3, "ping")}, {label: S2C, req: req(4, "roots/list")},
		}, []Dir{C2S, S2C, C2S, S2C}},
		{"by sender: a server request marked client_to_server", []vcrInteraction{
			{label: C2S, req: req(1, "elicitation/create")}, {label: C2S, req: note},
		}, []Dir{S2C, C2S}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			senders(tt.inters)
			for i, in := range tt.inters {
				if in.dir != tt.want[i] {
					t.Errorf("interaction %d (%s): got %s, want %s", i, in.req.msg, in.dir, tt.want[i])
				}
			}
		})
	}
}

// TestVCRSharedSamples imports the third-party Agent VCR samples, when they
// are named by REPLAYCTL_VCR_SAMPLES.
func TestVCRSharedSamples(t *testing.T) {
	needSamples(t)
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
