package mcp

import (
	"slices"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

func parse(t testing.TB, s string) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.ParseStrict([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return m
}

func TestRevisions(t *testing.T) {
	got := Revisions()
	want := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !slices.IsSorted(got) || got[len(got)-1] != Latest {
		t.Errorf("got %v: want sorted and ending with Latest %s", got, Latest)
	}
	got[0] = "changed"
	if Revisions()[0] != V20241105 {
		t.Error("Revisions shares its slice with callers")
	}
}

func TestEraOf(t *testing.T) {
	tests := []struct {
		version string
		want    Era
	}{
		{V20241105, EraSession},
		{V20250326, EraSession},
		{V20250618, EraSession},
		{V20251125, EraSession},
		{V20260728, EraStateless},
		{"2027-01-01", EraStateless},
		{"2026-07-27", EraSession},
		{"2024-01-01", EraSession},
		{"", EraUnknown},
		{"latest", EraUnknown},
		{"2026-7-28", EraUnknown},
		{"2026-13-01", EraUnknown},
		{"2026-07-00", EraUnknown},
		{"2026/07/28", EraUnknown},
		{"20260728xx", EraUnknown},
		{" 2026-07-28", EraUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			if got := EraOf(tt.version); got != tt.want {
				t.Errorf("EraOf(%q) = %s, want %s", tt.version, got, tt.want)
			}
		})
	}
}

func TestEraString(t *testing.T) {
	for era, want := range map[Era]string{EraUnknown: "unknown", EraSession: "session-based", EraStateless: "stateless", Era(9): "unknown"} {
		if got := era.String(); got != want {
			t.Errorf("Era(%d).String() = %q, want %q", int(era), got, want)
		}
	}
}

func TestMetaVersion(t *testing.T) {
	tests := []struct {
		name   string
		params string
		want   string
	}{
		{"captured discover", `{"_meta":` + meta + `}`, V20260728},
		{"with other members", `{"name":"x","_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"arguments":{}}`, V20251125},
		{"future", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-03-01"}}`, "2027-03-01"},
		{"escaped key", `{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}`, V20260728},
		{"escaped value", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28"}}`, V20260728},
		{"spaces", ` { "_meta" : { "io.modelcontextprotocol/protocolVersion" : "2026-07-28" } } `, V20260728},
		{"no _meta", `{"name":"x"}`, ""},
		{"no key", `{"_meta":{"progressToken":"p"}}`, ""},
		{"key at top level", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, ""},
		{"not a string", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`, ""},
		{"_meta not an object", `{"_meta":"2026-07-28"}`, ""},
		{"array params", `[1,2]`, ""},
		{"nil", ``, ""},
		{"session-era protocolVersion", `{"protocolVersion":"2025-11-25","capabilities":{}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MetaVersion([]byte(tt.params)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMetaVersionDoesNotAllocate(t *testing.T) {
	params := []byte(`{"_meta":` + meta + `,"name":"x"}`)
	if n := testing.AllocsPerRun(100, func() { _ = MetaVersion(params) }); n != 0 {
		t.Errorf("MetaVersion allocates %v times, want 0", n)
	}
}

func TestMessageEra(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want Era
	}{
		{"E1 discover", capDiscover, EraStateless},
		{"E1 discover result", capDiscoverRes, EraUnknown},
		{"E2 tools/list", capToolsList, EraStateless},
		{"E3 tools/call", capCallRegion, EraStateless},
		{"E3 progress call", capCallProgress, EraStateless},
		{"E3 progress notification", capProgress, EraUnknown},
		{"MRTR retry", capRound2, EraStateless},
		{"tasks/get", task26Get, EraStateless},
		{"ping with 2026 meta", capPing2026, EraStateless},
		{"initialize", capInitialize, EraSession},
		{"initialize asking for 2026", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28"}}`, EraSession},
		{"initialized", capInitialized, EraSession},
		{"legacy tools/call", capLegacyCall, EraUnknown},
		{"legacy elicitation", capElicitation, EraUnknown},
		{"legacy answer", capElicitAns, EraUnknown},
		{"request with a 2025 _meta version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, EraUnknown},
		{"notification with 2026 meta", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":` + meta + `,"requestId":1}}`, EraUnknown},
		{"batch", `[` + capDiscover + `]`, EraUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MessageEra(parse(t, tt.msg)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestInitializeVersion(t *testing.T) {
	tests := []struct {
		name, b, want string
	}{
		{"request params", string(parse(t, capInitialize).Params()), V20251125},
		{"result", `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`, V20250618},
		{"asks for 2026", `{"protocolVersion":"2026-07-28"}`, V20260728},
		{"unknown kept", `{"protocolVersion":"2024-10-07"}`, "2024-10-07"},
		{"none", `{"capabilities":{}}`, ""},
		{"not a string", `{"protocolVersion":1}`, ""},
		{"nil", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InitializeVersion([]byte(tt.b)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
