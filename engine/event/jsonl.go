package event

import (
	"encoding/json"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends e as one line of JSON, without the newline. Durations
// are whole microseconds: held_us (sent; judged when HasHeld), lag_us
// (judged, when HasLag) and latency_us (judged, when HasLatency).
func (e Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendString(b, string(e.Type))
	b = append(b, `,"t_us":`...)
	b = strconv.AppendInt(b, e.TUS, 10)
	b = appendField(b, "session", e.Session)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = appendField(b, "method", e.Method)
	b = appendField(b, "kind", e.Kind)
	b = appendField(b, "dir", e.Dir)
	b = appendField(b, "reason", e.Reason)
	b = appendField(b, "detail", e.Detail)
	if e.Attempt != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(e.Attempt), 10)
	}
	b = appendField(b, "verdict", e.Verdict)
	if e.Type == Sent || e.HasHeld {
		b = appendMicros(b, "held_us", e.Held)
	}
	if e.HasLag {
		b = appendMicros(b, "lag_us", e.Lag)
	}
	if e.HasLatency {
		b = appendMicros(b, "latency_us", e.Latency)
	}
	if len(e.Differences) > 0 {
		b = append(b, `,"differences":[`...)
		for i, d := range e.Differences {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendString(b, d.Path)
			b = appendRaw(b, "expected", d.Expected)
			b = appendRaw(b, "actual", d.Actual)
			b = appendField(b, "kind", string(d.Kind))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// MarshalJSON is AppendJSON.
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// UnmarshalJSON reads an event written by MarshalJSON.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event // without the methods
	var w struct {
		plain
		HeldUS    *int64 `json:"held_us"`
		LagUS     *int64 `json:"lag_us"`
		LatencyUS *int64 `json:"latency_us"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Event(w.plain)
	if w.HeldUS != nil {
		e.Held, e.HasHeld = time.Duration(*w.HeldUS)*time.Microsecond, e.Type != Sent
	}
	if w.LagUS != nil {
		e.Lag, e.HasLag = time.Duration(*w.LagUS)*time.Microsecond, true
	}
	if w.LatencyUS != nil {
		e.Latency, e.HasLatency = time.Duration(*w.LatencyUS)*time.Microsecond, true
	}
	return nil
}

// JSONLines returns a Handle that writes each batch of events to w as JSON
// Lines, in one Write per batch: a reader of the file sees whole lines
// (on an append-only file, each batch lands after the last).
func JSONLines(w io.Writer) func([]Event) error {
	var buf []byte
	return func(batch []Event) error {
		buf = buf[:0]
		for i := range batch {
			buf = batch[i].AppendJSON(buf)
			buf = append(buf, '\n')
		}
		_, err := w.Write(buf)
		return err
	}
}

func appendField(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendMicros(b []byte, name string, d time.Duration) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, micros(d), 10)
}

// appendRaw appends a JSON value; bytes that are not JSON go as a string.
func appendRaw(b []byte, name string, v json.RawMessage) []byte {
	if len(v) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	if !json.Valid(v) {
		return appendString(b, string(v))
	}
	return append(b, v...)
}

// appendString appends s as a JSON string: as it is when it is plain
// printable ASCII (names, methods, verdicts), else by encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
