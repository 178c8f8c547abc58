package tape

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// checkSpan reads back the line LineSpan gives for m and decodes it.
func checkSpan(t *testing.T, r *Reader, f *os.File, m Message) {
	t.Helper()
	off, n, ok := r.LineSpan()
	if !ok {
		t.Fatalf("seq %d: LineSpan not ok", m.Seq)
	}
	line := make([]byte, n)
	if _, err := f.ReadAt(line, off); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeLine(line)
	if err != nil {
		t.Fatalf("seq %d: DecodeLine(%q): %v", m.Seq, line, err)
	}
	if got.Seq != m.Seq || got.TUS != m.TUS || got.Session != m.Session || got.Dir != m.Dir || !bytes.Equal(got.Msg, m.Msg) {
		t.Fatalf("seq %d: line at %d+%d decodes to %+v, want %+v", m.Seq, off, n, got, m)
	}
}

func TestLineSpanReadsBackEachMessage(t *testing.T) {
	// A byte order mark, CRLF line ends, a blank line: offsets must hold.
	content := "\xef\xbb\xbf" + strings.ReplaceAll(tapeOf(2, 1, false), "\n", "\r\n") + "\n" + tapeOf(3000, 1, true)[len(hdr):]
	// tapeOf's second part restarts at seq 0: renumber it past the first.
	lines := strings.SplitAfter(content, "\n")
	var b strings.Builder
	seq := 0
	for _, l := range lines {
		if strings.Contains(l, `"type":"message"`) {
			i := strings.Index(l, `"seq":`) + len(`"seq":`)
			j := i + strings.IndexByte(l[i:], ',')
			l = l[:i] + strconv.Itoa(seq) + l[j:]
			seq++
		}
		b.WriteString(l)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, ok := r.LineSpan(); ok {
		t.Fatal("LineSpan ok before the first message")
	}
	var msgs []Message
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		checkSpan(t, r, f, m)
		msgs = append(msgs, m)
	}
	if len(msgs) != 3002 {
		t.Fatalf("read %d messages, want 3002", len(msgs))
	}
	// After a seek, back and forth, the span follows the pending message.
	for _, seq := range []int64{2500, 1, 2999, 0} {
		if err := r.SeekSeq(seq); err != nil {
			t.Fatal(err)
		}
		if err := r.SeekSeq(1 << 40); err == nil { // fails, leaves the pending message
			t.Fatal("seek past the end succeeded")
		}
		m, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		checkSpan(t, r, f, m)
		m, err = r.Next()
		if err != nil {
			t.Fatal(err)
		}
		checkSpan(t, r, f, m)
	}
}

func TestLineSpanImportedTape(t *testing.T) {
	r, err := Open(filepath.Join("testdata", "compact.vcr"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.LineSpan(); ok {
		t.Fatal("LineSpan ok on an imported tape")
	}
}

func TestDecodeLineRefusesOtherLines(t *testing.T) {
	for _, line := range []string{
		hdr,
		`{"type":"end","messages":0,"duration_us":0}`,
		`{"type":"message","seq":1}`,
		`{"type":"message",`,
		`[]`,
	} {
		if _, err := DecodeLine([]byte(strings.TrimSpace(line))); err == nil {
			t.Errorf("DecodeLine(%s): no error", line)
		}
	}
	m, err := DecodeLine([]byte(strings.TrimSpace(msgLine(7, 70, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`))))
	if err != nil || m.Seq != 7 || m.TUS != 70 || m.Dir != S2C || m.Session != "s1" || string(m.Msg) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("DecodeLine: %+v, %v", m, err)
	}
}
