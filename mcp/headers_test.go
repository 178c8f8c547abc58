package mcp

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestEncodeHeaderValue(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Zürich", "=?base64?WsO8cmljaA==?="}, // captured (§1.4, E3)
		// The specification's table (streamable-http, Value Encoding).
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		// Edges.
		{"", ""},
		{"a b", "a b"},
		{"\tlead", "=?base64?CWxlYWQ=?="},
		{"trail\t", "=?base64?dHJhaWwJ?="},
		{"trail ", "=?base64?dHJhaWwg?="},
		{"del\x7f", "=?base64?ZGVsfw==?="},
		{"~!#$%&'*+-.^_`|", "~!#$%&'*+-.^_`|"},
		{"=?base64?", "=?base64?"},                     // prefix alone: not the pattern
		{"=?base64??=", "=?base64?PT9iYXNlNjQ/Pz0=?="}, // the shortest pattern
		{"x=?base64?y?=", "x=?base64?y?="},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := EncodeHeaderValue(tt.in)
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			back, ok := DecodeHeaderValue(got)
			if !ok || back != tt.in {
				t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q, true", got, back, ok, tt.in)
			}
		})
	}
}

func TestDecodeHeaderValue(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"plain", "plain", true},
		{"=?base64?WsO8cmljaA==?=", "Zürich", true},
		{"=?base64?not base64!?=", "", false},
		{"=?base64?WsO8cmljaA?=", "", false},                         // padding required
		{"=?BASE64?WsO8cmljaA==?=", "=?BASE64?WsO8cmljaA==?=", true}, // markers are case-sensitive
		{"", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := DecodeHeaderValue(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// learned returns ToolHeaders that learned the captured tools/list (E2)
// and a tool with nested and typed annotations.
func learned(t testing.TB) *ToolHeaders {
	t.Helper()
	var th ToolHeaders
	if err := th.Learn([]byte(capToolsListRes)); err != nil {
		t.Fatalf("Learn E2: %v", err)
	}
	if err := th.Learn([]byte(nestedTools)); err != nil {
		t.Fatalf("Learn nested: %v", err)
	}
	return &th
}

const nestedTools = `{"tools":[{"name":"deploy","inputSchema":{"type":"object","properties":{
	"target":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"zone":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Zone-Id"}}}}},
	"dryRun":{"type":"boolean","x-mcp-header":"Dry-Run"},
	"tenant":{"type":"string","x-mcp-header":"x_tenant"},
	"count":{"type":"integer","x-mcp-header":"Count"},
	"note":{"type":"string"}}}},
	{"name":"Zürich-tool","inputSchema":{"type":"object"}}]}`

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func call(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":` + name + `,"arguments":` + args + `}}`
}

func TestStandardHeaders(t *testing.T) {
	tools := learned(t)
	const taskID = "786512e2-9e0d-44bd-8f29-789f320fe840"
	tests := []struct {
		name    string
		version string
		msg     string
		tools   *ToolHeaders
		want    http.Header // nil: no headers
	}{
		{"E3 captured", V20260728, capCallRegion, tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_x_mcp_header", "Mcp-Param-Region", "=?base64?WsO8cmljaA==?=")},
		{"E3 version from _meta", "", capCallRegion, tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_x_mcp_header", "Mcp-Param-Region", "=?base64?WsO8cmljaA==?=")},
		{"E3 tools not listed", V20260728, capCallRegion, nil,
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_x_mcp_header")},
		{"E3 empty tools", V20260728, capCallRegion, &ToolHeaders{},
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_x_mcp_header")},
		{"future version", "2027-01-01", capCallProgress, nil,
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_tool_with_progress")},
		{"E1 discover", V20260728, capDiscover, nil, header("Mcp-Method", "server/discover")},
		{"E2 tools/list", "", capToolsList, nil, header("Mcp-Method", "tools/list")},
		{"notification", V20260728, capProgress, nil, header("Mcp-Method", "notifications/progress")},
		{"notification without _meta, version unknown", "", capProgress, nil, nil},
		{"MRTR retry", "", capRound2, tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_input_required_result_multi_round")},
		{"prompts/get", V20260728, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_simple_prompt"}}`, nil,
			header("Mcp-Method", "prompts/get", "Mcp-Name", "test_simple_prompt")},
		{"resources/read", V20260728, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://static-text"}}`, nil,
			header("Mcp-Method", "resources/read", "Mcp-Name", "test://static-text")},
		// Mcp-Name goes raw, as go-sdk sends and checks it (NameHeaderValue).
		{"resources/read non-ASCII uri", V20260728, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///home/josé"}}`, nil,
			header("Mcp-Method", "resources/read", "Mcp-Name", "file:///home/josé")},
		{"resources/read uri with a newline", V20260728, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a\nb"}}`, nil,
			header("Mcp-Method", "resources/read", "Mcp-Name", "=?base64?YQpi?=")},
		{"tasks/get", "", task26Get, nil, header("Mcp-Method", "tasks/get", "Mcp-Name", taskID)},
		{"tasks/update", "", task26Update, nil, header("Mcp-Method", "tasks/update", "Mcp-Name", taskID)},
		{"tasks/cancel", V20260728, `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"t1"}}`, nil,
			header("Mcp-Method", "tasks/cancel", "Mcp-Name", "t1")},
		{"name not a string", V20260728, call(`7`, `{}`), tools, header("Mcp-Method", "tools/call")},
		{"name absent", V20260728, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, tools, header("Mcp-Method", "tools/call")},
		{"no params", V20260728, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil, header("Mcp-Method", "tools/list")},
		{"non-ASCII tool name", V20260728, call(`"Zürich-tool"`, `{}`), tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "Zürich-tool")},
		{"escaped tool name still found", V20260728, call(`"test_x\u005fmcp_header"`, `{"region":"eu"}`), tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "test_x_mcp_header", "Mcp-Param-Region", "eu")},
		{"nested, bool, integer", V20260728, call(`"deploy"`, `{"target":{"region":"us-west1","zone":{"id":3.0}},"dryRun":true,"tenant":"acme","count":-7,"note":"n"}`), tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Region", "us-west1", "Mcp-Param-Zone-Id", "3",
				"Mcp-Param-Dry-Run", "true", "Mcp-Param-X_tenant", "acme", "Mcp-Param-Count", "-7")},
		{"skipped values", V20260728, call(`"deploy"`, `{"target":{"region":null,"zone":{"id":1.5}},"dryRun":"yes","count":9007199254740992}`), tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Dry-Run", "yes")},
		{"wrong shapes", V20260728, call(`"deploy"`, `{"target":"us","dryRun":false,"count":9007199254740991,"tenant":{"a":1}}`), tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Dry-Run", "false", "Mcp-Param-Count", "9007199254740991")},
		{"integer forms", V20260728, call(`"deploy"`, `{"count":1e3,"target":{"zone":{"id":-0}}}`), tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Count", "1000", "Mcp-Param-Zone-Id", "0")},
		{"arguments absent", V20260728, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}`, tools,
			header("Mcp-Method", "tools/call", "Mcp-Name", "deploy")},
		{"session era", V20251125, capCallRegion, tools, nil},
		{"legacy call, no version", "", capLegacyCall, tools, nil},
		{"initialize", "", capInitialize, nil, nil},
		{"response", V20260728, capElicitAns, nil, nil},
		{"error", V20260728, `{"jsonrpc":"2.0","id":1,"error":` + capNoMethodHdr + `}`, nil, nil},
		{"batch", V20260728, `[` + capCallRegion + `]`, tools, nil},
		{"garbage version", "soon", capCallRegion, tools, nil},
	}
	// A server refuses these whatever their headers: a body the headers
	// cannot mirror, or a header version other than the _meta one.
	rejected := map[string]bool{"future version": true, "name not a string": true, "name absent": true, "skipped values": true, "wrong shapes": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parse(t, tt.msg)
			got := StandardHeaders(tt.version, m, tt.tools)
			if !headersEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range got {
				if k != http.CanonicalHeaderKey(k) || len(v) != 1 {
					t.Errorf("header %q = %q: want a canonical key with one value", k, v)
				}
			}
			if got == nil {
				return
			}
			// What StandardHeaders sends, a server accepts.
			h := got.Clone()
			h.Set(HeaderProtocolVersion, tt.version)
			if tt.version == "" {
				h.Set(HeaderProtocolVersion, MetaVersion(m.Params()))
			}
			if err := CheckStandardHeaders(h, m, tt.tools); (err != nil) != rejected[tt.name] {
				t.Errorf("CheckStandardHeaders: got %v, want rejected %v", err, rejected[tt.name])
			}
		})
	}
}

func headersEqual(a, b http.Header) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return maps.EqualFunc(a, b, slices.Equal)
}

func TestStandardHeadersKeepsTheMessage(t *testing.T) {
	raw := []byte(capCallRegion)
	before := string(raw)
	_ = StandardHeaders("", parse(t, string(raw)), learned(t))
	if string(raw) != before {
		t.Fatal("StandardHeaders changed the message")
	}
}

func TestCheckStandardHeaders(t *testing.T) {
	tools := learned(t)
	good := func() http.Header {
		return header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "test_x_mcp_header", "Mcp-Param-Region", "=?base64?WsO8cmljaA==?=")
	}
	with := func(k, v string) http.Header {
		h := good()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	deploy := func(args string) string { return call(`"deploy"`, args) }
	tests := []struct {
		name   string
		h      http.Header
		msg    string
		header string // the header at fault; "" for none
		reason string // part of the reason
	}{
		{"captured E3", good(), capCallRegion, "", ""},
		{"raw name accepted", with("Mcp-Name", "test_x_mcp_header"), capCallRegion, "", ""},
		{"no version", with("Mcp-Protocol-Version", ""), capCallRegion, HeaderProtocolVersion, "missing"},
		{"version 2025, meta 2026", with("Mcp-Protocol-Version", "2025-11-25"), capCallRegion, HeaderProtocolVersion, "does not match"},
		{"no method", with("Mcp-Method", ""), capCallRegion, HeaderMethod, "missing"},
		{"other method", with("Mcp-Method", "tools/list"), capCallRegion, HeaderMethod, "does not match"},
		{"no name", with("Mcp-Name", ""), capCallRegion, HeaderName, "missing"},
		{"other name", with("Mcp-Name", "other"), capCallRegion, HeaderName, "does not match"},
		{"bad base64 name", with("Mcp-Name", "=?base64?!!?="), capCallRegion, HeaderName, "base64"},
		{"no param", with("Mcp-Param-Region", ""), capCallRegion, "Mcp-Param-Region", "missing"},
		{"raw param", with("Mcp-Param-Region", "Zürich"), capCallRegion, "", ""},
		{"other param", with("Mcp-Param-Region", "Bern"), capCallRegion, "Mcp-Param-Region", "does not match"},
		{"bad base64 param", with("Mcp-Param-Region", "=?base64?%%?="), capCallRegion, "Mcp-Param-Region", "base64"},
		{"param for an absent argument", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Count", "1"), deploy(`{}`), "Mcp-Param-Count", "absent or null"},
		{"param for a null argument", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Count", "1"), deploy(`{"count":null}`), "Mcp-Param-Count", "absent or null"},
		{"integer compared as a number", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Count", "42.0"), deploy(`{"count":42}`), "", ""},
		{"integer differs", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Count", "41"), deploy(`{"count":42}`), "Mcp-Param-Count", "does not match"},
		{"boolean", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Dry-Run", "TRUE"), deploy(`{"dryRun":true}`), "Mcp-Param-Dry-Run", "does not match"},
		{"not a header value", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "deploy", "Mcp-Param-Count", "1.5"), deploy(`{"count":1.5}`), "Mcp-Param-Count", "does not match"},
		{"unknown tool: params not checked", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "nope"), call(`"nope"`, `{"region":"x"}`), "", ""},
		{"unknown Mcp-Param ignored", with("Mcp-Param-Extra", "x"), capCallRegion, "", ""},
		{"legacy: nothing checked", header("Mcp-Protocol-Version", "2025-11-25"), capLegacyCall, "", ""},
		{"legacy without version", http.Header{}, capLegacyCall, "", ""},
		{"tasks/get without Mcp-Name", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tasks/get"), task26Get, "", ""},
		{"tasks/get other Mcp-Name", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tasks/get", "Mcp-Name", "t2"), task26Get, HeaderName, "does not match"},
		{"name not a string, empty encoded Mcp-Name", header("Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "=?base64??="), call(`7`, `{}`), "", ""},
		{"response", http.Header{}, capElicitAns, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckStandardHeaders(tt.h, parse(t, tt.msg), tools)
			if tt.header == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var he *HeaderError
			if !errors.As(err, &he) {
				t.Fatalf("got %v, want a *HeaderError for %s", err, tt.header)
			}
			if he.Header != tt.header || !strings.Contains(he.Reason, tt.reason) {
				t.Errorf("got %s: %q, want %s: …%s…", he.Header, he.Reason, tt.header, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), "header mismatch: ") {
				t.Errorf("Error() = %q, want it to start with \"header mismatch: \"", err)
			}
		})
	}
}
