package tape

import (
	"encoding/json"
	"strings"
	"testing"
)

// go test -run '^$' -bench BenchmarkRedact -benchtime 200000x ./tape
//
// The default globs and one --redact-env value, over a message with
// nothing to redact, one with a key and an env value in it, and a 64 KiB
// answer with nothing to redact.
func BenchmarkRedact(b *testing.B) {
	r := mustRedactor(b, testEnv(map[string]string{"GH": testSecret}), RedactEnv("GH"))
	big := `{"jsonrpc":"2.0","id":7,"result":{"content":[` + strings.Repeat(`{"type":"text","text":"line of an answer with nothing secret in it, some \"quotes\" too"},`, 800) + `{"type":"text","text":"end"}]}}`
	cases := []struct {
		name string
		msg  string
		http *HTTPMeta
	}{
		{"clean", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"weather in Paris","limit":10},"_meta":{"progressToken":3}}}`, nil},
		{"secrets", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"weather with ` + testSecret + `","api_key":"k-123456"},"_meta":{"progressToken":3}}}`,
			&HTTPMeta{Headers: map[string][]string{"Authorization": {"Bearer x"}, "Content-Type": {"application/json"}}}},
		{"64KiB-clean", big, nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			msg := json.RawMessage(c.msg) // never written to: Message replaces it
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				m := Message{Msg: msg, HTTP: c.http}
				r.Message(&m)
			}
		})
	}
}

// maskMsg is an MCP answer with nothing to mask: what Mask sees for most
// results.
var maskMsg = []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Echo: message 7"}],"isError":false,"structuredContent":{"progress":1,"total":2}}}`)

// Mask of a message with nothing to mask allocates nothing: it comes
// back as it is.
func TestMaskAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Mask(maskMsg) }); n != 0 {
		t.Errorf("Mask allocates %v times per message with nothing to mask, want 0", n)
	}
}
