package transport

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// tail keeps the last max bytes written to it, for error messages.
// It is safe for concurrent use: the reader goroutine writes, Err reads.
type tail struct {
	mu      sync.Mutex // guards buf and cut
	max     int
	buf     []byte
	cut     bool // bytes were dropped from the front
	written int64
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.cut = true
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String is the kept text, trimmed, starting at a whole UTF-8 character,
// with "…" in front when earlier bytes were dropped.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if t.cut {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	s := strings.TrimSpace(string(b))
	if t.cut && s != "" {
		s = "…" + s
	}
	return s
}
