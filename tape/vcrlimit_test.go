package tape_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/tape"
)

// A one-line cassette longer than the default line limit (8 MiB) is read
// with the default options: a cassette is bounded by the document limit
// (64 MiB by default), not the line limit of a JSONL tape.
func TestOneLineCassetteOverLineLimit(t *testing.T) {
	path, n := testtape.OneLineVCR(t, 9<<20)
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
	path, _ := testtape.OneLineVCR(t, 3<<20)
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
	path, _ := testtape.OneLineVCR(t, 3<<20)
	if _, err := tape.Open(path, tape.WithMaxLine(4<<20), tape.WithMaxDocument(2<<20)); err != nil {
		t.Fatalf("Open with the line limit above the cassette: %v", err)
	}
	_, err := tape.Open(path, tape.WithMaxLine(1<<20), tape.WithMaxDocument(2<<20))
	if err == nil || !strings.Contains(err.Error(), "--max-line") || !strings.Contains(err.Error(), "--max-document") {
		t.Fatalf("Open: %v, want the limit's error naming both flags", err)
	}
}
