package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneLineVCR writes an Agent VCR cassette on one line of more than size
// bytes: tools/call interactions with a 64 KiB answer each.
func oneLineVCR(t *testing.T, size int) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"format_version":"1.0.0","metadata":{"version":"1.0","transport":"stdio"},"session":{`)
	b.WriteString(`"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},`)
	b.WriteString(`"initialize_response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}},`)
	b.WriteString(`"interactions":[`)
	text := strings.Repeat("x", 64<<10)
	for n := 0; b.Len() < size; n++ {
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
	return path
}

// A one-line cassette over 8 MiB is read by inspect and convert with the
// default limits; --max-line takes units as the other size flags do; a
// cassette over --max-document is refused, exit 2, naming the flag.
func TestOneLineCassetteLimits(t *testing.T) {
	vcr := oneLineVCR(t, 9<<20)
	if res := replayctl(t, "inspect", vcr); res.code != 0 || !strings.Contains(res.stdout, "tools/call") {
		t.Errorf("inspect: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	out := filepath.Join(t.TempDir(), "big.jsonl")
	if res := replayctl(t, "convert", vcr, out, "--max-line", "64MiB"); res.code != 0 {
		t.Errorf("convert --max-line 64MiB: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := replayctl(t, "inspect", "--max-document", "4MiB", vcr)
	if res.code != 2 || !strings.Contains(res.stderr, "--max-document") {
		t.Errorf("inspect --max-document 4MiB: exit %d, want 2 and an error naming --max-document\n%s", res.code, res.stderr)
	}
	// diff and redact read it by the default and take the flag too.
	if res := replayctl(t, "diff", vcr, vcr); res.code != 0 {
		t.Errorf("diff: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, args := range [][]string{
		{"diff", "--max-document", "4MiB", vcr, vcr},
		{"redact", "--max-document", "4MiB", vcr, filepath.Join(t.TempDir(), "r.jsonl")},
	} {
		if res := replayctl(t, args...); res.code != 2 || !strings.Contains(res.stderr, "longer than") || !strings.Contains(res.stderr, "--max-document") {
			t.Errorf("%s: exit %d, want 2 and the limit's error naming --max-document\n%s", strings.Join(args[:3], " "), res.code, res.stderr)
		}
	}
}
