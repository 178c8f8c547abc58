package tape_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// writeOneLineCassette writes an Agent VCR cassette on one line whose
// interactions' answers add up to more than size bytes.
func writeOneLineCassette(t *testing.T, size int) (string, int) {
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

// A one-line cassette longer than the default line limit (8 MiB) is read
// with the default options: a cassette is bounded by the document limit
// (64 MiB by default), not the line limit of a JSONL tape.
func TestOneLineCassetteOverLineLimit(t *testing.T) {
	path, n := writeOneLineCassette(t, 9<<20)
	r, err := tape.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	calls := 0
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if bytes.Contains(m.Msg, []byte(`"method":"tools/call"`)) {
			calls++
		}
	}
	if calls != n {
		t.Fatalf("read %d tools/call requests, want %d", calls, n)
	}
}

// A one-line cassette longer than the document limit is refused with an
// error that names the limit and how to raise it.
func TestOneLineCassetteOverDocumentLimit(t *testing.T) {
	path, _ := writeOneLineCassette(t, 3<<20)
	_, err := tape.Open(path, tape.WithMaxLine(1<<20), tape.WithMaxDocument(2<<20))
	if err == nil || !errors.Is(err, tape.ErrLineTooLong) || !strings.Contains(err.Error(), "--max-document") {
		t.Fatalf("Open: %v, want the document limit's error", err)
	}
	if _, err := tape.Open(path, tape.WithMaxLine(1<<20), tape.WithMaxDocument(4<<20)); err != nil {
		t.Fatalf("Open with the document limit raised: %v", err)
	}
}

// TestOneLineCassetteUnderLineLimit: a command without --max-document
// (serve, debug, shrink) reads a one-line cassette longer than the
// document limit when its line limit is raised, as it did before the
// document limit existed.
func TestOneLineCassetteUnderLineLimit(t *testing.T) {
	path, _ := writeOneLineCassette(t, 3<<20)
	if _, err := tape.Open(path, tape.WithMaxLine(4<<20), tape.WithMaxDocument(2<<20)); err != nil {
		t.Fatalf("Open with the line limit above the cassette: %v", err)
	}
	_, err := tape.Open(path, tape.WithMaxLine(1<<20), tape.WithMaxDocument(2<<20))
	if err == nil || !strings.Contains(err.Error(), "--max-line") || !strings.Contains(err.Error(), "--max-document") {
		t.Fatalf("Open: %v, want the limit's error naming both flags", err)
	}
}
