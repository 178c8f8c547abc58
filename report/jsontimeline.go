package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// timelineNull is the timeline's line in a report encoded without one: a
// key of the top-level object is the only line indented by exactly two
// spaces that starts with a quote (strings in the JSON have no raw
// newlines), and the report has one "timeline".
const timelineNull = "\n  \"timeline\": null,\n"

// writeJSONSpliced writes r as WriteJSON's encoder does, but its timeline
// by hand: the rest of the report is encoded by encoding/json with an
// empty timeline, and the entries (one per replayed message, up to
// 10,000) are appended into one buffer in the same bytes encoding/json
// would give them, without reflection or the indenter's second pass over
// them, and written to w in pieces as they are made. It returns false,
// having written nothing, when the timeline holds what it leaves to
// encoding/json ([byHand]). Only w's errors can stop it midway (w then
// holds part of the report).
func (r Report) writeJSONSpliced(w io.Writer) (bool, error) {
	if len(r.Timeline) == 0 {
		return false, nil // [] or null: encoding/json's
	}
	for i := range r.Timeline {
		if !byHand(&r.Timeline[i]) {
			return false, nil
		}
	}
	entries := r.Timeline
	r.Timeline = nil
	var rest bytes.Buffer
	enc := json.NewEncoder(&rest)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return true, err
	}
	head, tail, ok := bytes.Cut(rest.Bytes(), []byte(timelineNull))
	if !ok {
		return false, nil
	}
	if _, err := w.Write(head); err != nil {
		return true, err
	}
	b := make([]byte, 0, timelineChunk+1024)
	b = append(b, "\n  \"timeline\": ["...)
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTimelineEntry(b, &entries[i])
		if len(b) >= timelineChunk {
			if _, err := w.Write(b); err != nil {
				return true, err
			}
			b = b[:0]
		}
	}
	b = append(b, "\n  ],\n"...)
	b = append(b, tail...)
	_, err := w.Write(b)
	return true, err
}

// timelineChunk is how many bytes of timeline writeJSONSpliced gathers
// before it writes them: the timeline streams to the writer in pieces of
// about this size through one buffer.
const timelineChunk = 32 << 10

// byHand reports whether writeJSONSpliced writes e itself: its times can
// be written as JSON numbers, and it has no differences (which the
// report's timeline leaves out; a report built otherwise is left to
// encoding/json, their MarshalJSON and its errors).
func byHand(e *TimelineEntry) bool {
	if len(e.Differences) > 0 {
		return false
	}
	for _, p := range [...]*float64{e.DueMS, e.SentMS, e.AnsweredMS, e.LatencyMS} {
		if p != nil && (math.IsInf(*p, 0) || math.IsNaN(*p)) {
			return false
		}
	}
	return true
}

// appendTimelineEntry appends e, which has no differences, as an element
// of the report's timeline array, indented as WriteJSON indents it (the
// element at four spaces, its fields at six).
func appendTimelineEntry(b []byte, e *TimelineEntry) []byte {
	b = append(b, "\n    {\n      \"seq\": "...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, ",\n      \"session\": "...)
	b = appendJSONString(b, e.Session)
	b = append(b, ",\n      \"method\": "...)
	b = appendJSONString(b, e.Method)
	b = append(b, ",\n      \"dir\": "...)
	b = appendJSONString(b, e.Dir)
	if e.Kind != "" {
		b = append(b, ",\n      \"kind\": "...)
		b = appendJSONString(b, e.Kind)
	}
	b = append(b, ",\n      \"due_ms\": "...)
	b = appendJSONTime(b, e.DueMS)
	b = append(b, ",\n      \"sent_ms\": "...)
	b = appendJSONTime(b, e.SentMS)
	b = append(b, ",\n      \"answered_ms\": "...)
	b = appendJSONTime(b, e.AnsweredMS)
	b = append(b, ",\n      \"latency_ms\": "...)
	b = appendJSONTime(b, e.LatencyMS)
	b = append(b, ",\n      \"verdict\": "...)
	b = appendJSONString(b, string(e.Verdict))
	if e.Error != "" {
		b = append(b, ",\n      \"error\": "...)
		b = appendJSONString(b, e.Error)
	}
	return append(b, "\n    }"...)
}

// appendJSONTime appends a time in ms as encoding/json writes a *float64:
// null, or the shortest decimal ('e' form below 1e-6 and from 1e21, its
// exponent unpadded). The caller has checked that it is finite.
func appendJSONTime(b []byte, p *float64) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	f := *p
	if us := math.Round(f * 1000); f != 0 && math.Abs(us) < 1e15 && us/1000 == f {
		return appendMicros(b, int64(us))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendMicros appends us/1000 in decimal, its fraction's trailing zeros
// dropped: the report's times are whole microseconds (durToMS), and for a
// float64 equal to us/1000 with |us| < 1e15 that decimal is the shortest
// that reads back as it (at most 15 significant digits, so no other
// decimal as short is the same float64), which is what strconv writes.
func appendMicros(b []byte, us int64) []byte {
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	b = append(b, '.', byte('0'+frac/100))
	if frac%100 != 0 {
		b = append(b, byte('0'+frac/10%10))
		if frac%10 != 0 {
			b = append(b, byte('0'+frac%10))
		}
	}
	return b
}

// appendJSONString appends s quoted as encoding/json quotes it with HTML
// escaping off: printable ASCII other than the quote and the backslash is
// copied; anything else (control characters, invalid UTF-8, U+2028 and
// U+2029) is left to encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var q bytes.Buffer
			enc := json.NewEncoder(&q)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
