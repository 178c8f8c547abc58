package testtape

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OneLineVCR writes an Agent VCR cassette on one line (as Agent VCR
// writes it) of more than size bytes in t's temporary directory: after
// the initialize exchange, tools/call interactions with a 64 KiB answer
// each. It returns the file's path and the number of calls.
func OneLineVCR(t testing.TB, size int) (string, int) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"format_version":"1.0.0","metadata":{"version":"1.0","transport":"stdio"},"session":{`)
	b.WriteString(`"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},`)
	b.WriteString(`"initialize_response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}},`)
	b.WriteString(`"interactions":[`)
	text := strings.Repeat("x", 64<<10)
	n := 0
	for ; b.Len() < size; n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sequence":%d,"direction":"client_to_server","request":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}},"response":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}},"notifications":[]}`, n, n+1, n+1, text)
	}
	b.WriteString("]}}\n")
	path := filepath.Join(t.TempDir(), "big.vcr")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, n
}
