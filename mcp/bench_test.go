package mcp

import (
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// A tools/call as a go-sdk 2026 client sends it, for a tool with two
// x-mcp-header arguments.
const (
	benchTools = `{"tools":[{"name":"get_weather","inputSchema":{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},"days":{"type":"integer","x-mcp-header":"Days"},"city":{"type":"string"}}}}]}`
	benchCall = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"_meta":` + meta +
		`,"name":"get_weather","arguments":{"city":"Paris","region":"eu-west1","days":3}}}`
)

func BenchmarkStandardHeaders(b *testing.B) {
	var tools ToolHeaders
	if err := tools.Learn([]byte(benchTools)); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name    string
		version string // "": from _meta
		msg     string
		want    int // headers
	}{
		{"params=2", "", benchCall, 4},
		{"params=2,version=given", V20260728, benchCall, 4},
		{"params=0", "", capToolsList, 1},
		{"session-era", "", capLegacyCall, 0},
	}
	for _, c := range cases {
		m, err := jsonrpc.Parse([]byte(c.msg))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.msg)))
			for b.Loop() {
				if h := StandardHeaders(c.version, m, &tools); len(h) != c.want {
					b.Fatalf("%d headers, want %d: %v", len(h), c.want, h)
				}
			}
		})
	}
}

func BenchmarkMetaVersion(b *testing.B) {
	params := jsonrpcParams(b, benchCall)
	b.ReportAllocs()
	for b.Loop() {
		if MetaVersion(params) != V20260728 {
			b.Fatal("no version")
		}
	}
}

func BenchmarkSetRequestState(b *testing.B) {
	params := jsonrpcParams(b, capRound2)
	b.ReportAllocs()
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		if _, err := SetRequestState(params, "round=2;name=Ada"); err != nil {
			b.Fatal(err)
		}
	}
}

func jsonrpcParams(b *testing.B, msg string) []byte {
	m, err := jsonrpc.Parse([]byte(msg))
	if err != nil {
		b.Fatal(err)
	}
	return m.Params()
}

// StandardHeaders runs per request: the header map, its values and the
// one string argument it cannot take from the learned tools.
func TestStandardHeadersAllocs(t *testing.T) {
	var tools ToolHeaders
	if err := tools.Learn([]byte(benchTools)); err != nil {
		t.Fatal(err)
	}
	m := parse(t, benchCall)
	if n := testing.AllocsPerRun(100, func() { _ = StandardHeaders("", m, &tools) }); n > 4 {
		t.Errorf("StandardHeaders allocates %v times, want at most 4", n)
	}
	legacy := parse(t, capLegacyCall)
	if n := testing.AllocsPerRun(100, func() { _ = StandardHeaders("", legacy, &tools) }); n != 0 {
		t.Errorf("StandardHeaders of a session-era message allocates %v times, want 0", n)
	}
}
