package report

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/replayctl/replayctl/validator"
)

// MaxValueBytes bounds each value a report keeps: the expected and the
// actual JSON of a difference, an error's message. A longer one is kept
// as an excerpt that says the value's size (see [Excerpt]), so that a
// huge answer costs a report, and the memory of a replay that keeps up to
// [DefaultFailureLimit] failures, no more than a small one.
const MaxValueBytes = 4 << 10

// minExcerpt is the least room an excerpt gets: its marker must fit.
const minExcerpt = 64

// Excerpt returns raw when it is at most limit bytes long. A longer value
// comes back as a JSON string of at most limit bytes, quotes included,
// that ends with "… (N bytes)", N being raw's length: for a string, its
// start, "aaaa… (104857600 bytes)"; for any other value, the start of its
// JSON text, "{\"text\":\"aaaa… (104857611 bytes)". Cuts fall between
// characters. It is valid JSON whatever raw is, and Excerpt of an excerpt
// is the excerpt itself. It reads no more of raw than the excerpt needs.
// A limit under 64 counts as 64.
func Excerpt(raw json.RawMessage, limit int) json.RawMessage {
	limit = max(limit, minExcerpt)
	if len(raw) <= limit {
		return raw
	}
	suffix := "… (" + strconv.Itoa(len(raw)) + " bytes)"
	room := limit - len(suffix) - 2 // the quotes
	out := make([]byte, 1, limit)
	out[0] = '"'
	if text, ok := stringStart(raw, room); ok {
		out = append(out, text...)
		out = append(out, suffix...)
		return append(out, '"')
	}
	var esc [6]byte
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		enc := escapeRune(esc[:0], r, n, raw[i:i+n])
		if len(out)-1+len(enc) > room {
			break
		}
		out = append(out, enc...)
		i += n
	}
	out = append(out, suffix...)
	return append(out, '"')
}

// stringStart is the start of the text of the JSON string raw, escapes
// and all, at most room bytes of it cut between characters; false when
// raw does not start as a well-formed JSON string that long.
func stringStart(raw []byte, room int) ([]byte, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return nil, false
	}
	i := 1
	for i < len(raw) {
		c, n := raw[i], 1
		switch {
		case c == '"' || c < 0x20:
			return nil, false // the string ends (raw is more than one), or bad JSON
		case c == '\\':
			if n = escapeLen(raw[i:]); n == 0 {
				return nil, false
			}
		case c >= utf8.RuneSelf:
			var r rune
			if r, n = utf8.DecodeRune(raw[i:]); r == utf8.RuneError && n == 1 {
				return nil, false
			}
		}
		if i-1+n > room {
			break
		}
		i += n
	}
	return raw[1:i], true
}

// escapeLen is the length of the escape b starts with (\n, \u00e9…), or
// 0 when it is not a whole, valid one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// escapeRune is one character of a JSON string's text, r of n bytes:
// itself, or its escape (invalid UTF-8 becomes U+FFFD).
func escapeRune(b []byte, r rune, n int, src []byte) []byte {
	const hex = "0123456789abcdef"
	switch {
	case r == utf8.RuneError && n == 1:
		return append(b, `\ufffd`...)
	case r == '"' || r == '\\':
		return append(b, '\\', byte(r))
	case r == '\n':
		return append(b, '\\', 'n')
	case r == '\r':
		return append(b, '\\', 'r')
	case r == '\t':
		return append(b, '\\', 't')
	case r < 0x20:
		return append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
	case r == '\u2028' || r == '\u2029':
		return append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
	}
	return append(b, src...)
}

// keptValue is what a report keeps of a value: its excerpt, in memory of
// its own (not a slice of the message it came from, which it would keep
// alive).
func keptValue(raw json.RawMessage) json.RawMessage {
	switch {
	case len(raw) == 0:
		return raw
	case len(raw) <= MaxValueBytes:
		return append(json.RawMessage(nil), raw...)
	}
	return Excerpt(raw, MaxValueBytes)
}

// BoundDifferences returns diffs with each value as a report keeps it: an
// excerpt of at most MaxValueBytes (see [Excerpt]), copied, so that the
// differences keep nothing of the messages they were found in. diffs is
// not changed.
func BoundDifferences(diffs []Difference) []Difference {
	if diffs == nil {
		return nil
	}
	out := make([]Difference, len(diffs))
	for i, d := range diffs {
		d.Expected, d.Actual = keptValue(d.Expected), keptValue(d.Actual)
		out[i] = d
	}
	return out
}

// FromValidator is the validator's differences as a report's (the same
// values: a conversion of each, no copy of their bytes).
func FromValidator(ds []validator.Difference) []Difference {
	if ds == nil {
		return nil
	}
	out := make([]Difference, len(ds))
	for i, d := range ds {
		out[i] = Difference(d)
	}
	return out
}

// keptText is a message as a report keeps it: at most MaxValueBytes of
// it, cut at a character, then "… (N bytes)".
func keptText(s string) string {
	if len(s) <= MaxValueBytes {
		return s
	}
	suffix := "… (" + strconv.Itoa(len(s)) + " bytes)"
	cut := MaxValueBytes - len(suffix)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + suffix
}

// keptTexts is a copy of ss, each as keptText keeps it.
func keptTexts(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = keptText(s)
	}
	return out
}
