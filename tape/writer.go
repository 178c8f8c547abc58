package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// ErrClosed is returned by a Writer's methods after Close.
var ErrClosed = errors.New("tape: writer closed")

// Writer writes a native tape line by line. Every line goes out with one
// Write call on the underlying writer, so a crash leaves whole lines plus at
// most one torn line, which a Reader drops with a warning.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	w       io.Writer
	file    *os.File // set by Create: Close syncs and closes it
	buf     []byte
	n       int64 // messages written
	lastSeq int64
	maxT    int64
	err     error // sticky
}

// Create creates (or truncates) the file at path and writes the header line
// at once. Each Write appends one line with one write system call; Close
// writes the end line, syncs the file to disk and closes it.
func Create(path string, h Header) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create tape %s: %w", path, err)
	}
	w, err := NewWriter(f, h)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("create tape %s: %w", path, err)
	}
	w.file = f
	return w, nil
}

// NewWriter writes the header line to w at once and returns a Writer that
// appends messages to it. The header's Format and Version are set to this
// version's. Close writes the end line; it does not close w.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	tw := &Writer{w: w, lastSeq: -1, buf: make([]byte, 0, 1024)}
	line, err := headerLine(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(line); err != nil {
		return nil, fmt.Errorf("write tape header: %w", err)
	}
	return tw, nil
}

// headerLine encodes the header with "type" first, the known members in
// struct order, then Extra in key order.
func headerLine(h Header) ([]byte, error) {
	h = MaskHeader(h)
	h.Format, h.Version = FormatName, FormatVersion
	known, err := marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode tape header: %w", err)
	}
	b := append([]byte(`{"type":"header",`), known[1:len(known)-1]...)
	b, err = appendExtra(b, h.Extra, headerKeys)
	if err != nil {
		return nil, fmt.Errorf("encode tape header: %w", err)
	}
	return append(b, '}', '\n'), nil
}

var (
	headerKeys  = []string{"type", "format", "version", "created_at", "protocol_version", "transport", "server", "tags"}
	messageKeys = []string{"type", "seq", "t_us", "session", "dir", "msg", "http", "sse"}
)

// Write appends m as one line with one write call. Seq and TUS are written
// as given; seq must increase from message to message. Msg is written byte
// for byte, made compact only if it holds a line break.
func (w *Writer) Write(m Message) error {
	if w.err != nil {
		return w.err
	}
	if m.Seq <= w.lastSeq {
		return fmt.Errorf("write tape message seq %d: seq must increase (the previous was %d)", m.Seq, w.lastSeq)
	}
	b, err := appendMessage(w.buf[:0], m)
	if err != nil {
		return err
	}
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("write tape message seq %d: %w", m.Seq, err)
		return w.err
	}
	w.n++
	w.lastSeq = m.Seq
	w.maxT = max(w.maxT, m.TUS)
	return nil
}

// appendMessage encodes m as a native message line, newline included.
func appendMessage(b []byte, m Message) ([]byte, error) {
	if m.Seq < 0 || m.TUS < 0 {
		return b, fmt.Errorf("write tape message seq %d: seq and t_us must be ≥ 0 (t_us %d)", m.Seq, m.TUS)
	}
	if m.Dir != C2S && m.Dir != S2C {
		return b, fmt.Errorf("write tape message seq %d: dir %q, want %q or %q", m.Seq, m.Dir, C2S, S2C)
	}
	msg := bytes.TrimSpace(m.Msg)
	if len(msg) == 0 || (msg[0] != '{' && msg[0] != '[') || !jsonscan.Valid(msg) {
		return b, fmt.Errorf("write tape message seq %d: msg is not a JSON object or array", m.Seq)
	}
	if bytes.ContainsAny(msg, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, msg); err != nil {
			return b, fmt.Errorf("write tape message seq %d: %w", m.Seq, err)
		}
		msg = c.Bytes()
	}
	b = append(b, `{"type":"message","seq":`...)
	b = strconv.AppendInt(b, m.Seq, 10)
	b = append(b, `,"t_us":`...)
	b = strconv.AppendInt(b, m.TUS, 10)
	if m.Session != "" {
		b = append(b, `,"session":`...)
		b = jsonscan.AppendString(b, m.Session)
	}
	b = append(b, `,"dir":"`...)
	b = append(b, m.Dir...)
	b = append(b, `","msg":`...)
	b = append(b, msg...)
	if m.HTTP != nil {
		v, err := marshal(m.HTTP)
		if err != nil {
			return b, fmt.Errorf("write tape message seq %d: http: %w", m.Seq, err)
		}
		b = append(append(b, `,"http":`...), v...)
	}
	if m.SSE != nil {
		v, err := marshal(m.SSE)
		if err != nil {
			return b, fmt.Errorf("write tape message seq %d: sse: %w", m.Seq, err)
		}
		b = append(append(b, `,"sse":`...), v...)
	}
	b, err := appendExtra(b, m.Extra, messageKeys)
	if err != nil {
		return b, fmt.Errorf("write tape message seq %d: %w", m.Seq, err)
	}
	return append(b, '}', '\n'), nil
}

// appendExtra appends `,"key":value` for each extra member in key order,
// skipping names the format defines.
func appendExtra(b []byte, extra map[string]json.RawMessage, known []string) ([]byte, error) {
	if len(extra) == 0 {
		return b, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if contains(known, k) {
			continue
		}
		v := bytes.TrimSpace(extra[k])
		if len(v) == 0 || !json.Valid(v) {
			return b, fmt.Errorf("extra member %q is not valid JSON", k)
		}
		if bytes.ContainsAny(v, "\r\n") {
			var c bytes.Buffer
			json.Compact(&c, v)
			v = c.Bytes()
		}
		b = append(b, ',')
		b = jsonscan.AppendString(b, k)
		b = append(b, ':')
		b = append(b, v...)
	}
	return b, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// marshal is json.Marshal without HTML escaping and without the newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Close writes the end line. For a Writer made by Create it then syncs the
// file to disk and closes it. Close is idempotent.
func (w *Writer) Close() error {
	if w.err == ErrClosed {
		return nil
	}
	err := w.err
	if err == nil {
		err = w.writeEnd()
	}
	if w.file != nil {
		if err == nil {
			if e := w.file.Sync(); e != nil {
				err = fmt.Errorf("sync tape %s: %w", w.file.Name(), e)
			}
		}
		if e := w.file.Close(); e != nil && err == nil {
			err = fmt.Errorf("close tape %s: %w", w.file.Name(), e)
		}
	}
	w.err = ErrClosed
	return err
}

func (w *Writer) writeEnd() error {
	b := append(w.buf[:0], `{"type":"end","messages":`...)
	b = strconv.AppendInt(b, w.n, 10)
	b = append(b, `,"duration_us":`...)
	b = strconv.AppendInt(b, w.maxT, 10)
	b = append(b, '}', '\n')
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("write tape end line: %w", err)
	}
	return nil
}
