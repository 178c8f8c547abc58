// Package termsafe makes text from outside (a method name from a client
// or a tape, a session name, an error a server sent) safe to print on a
// terminal: the characters a terminal acts on are written as escapes, so
// that a method holding ESC ]0;…BEL ESC [2J shows as \x1b]0;…\x07\x1b[2J
// instead of retitling the window and clearing the screen. Every line
// replayctl prints for people (serve's log lines and summary, inspect,
// diff, run's text report) passes such values through String.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// String returns s with every C0 control character (tab and newline
// included: a value is printed on one line), DEL and byte that is not
// UTF-8 written as \xNN, and every C1 control character and Unicode
// bidirectional override as \uNNNN. s itself when it has none.
func String(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !unsafe(r, n):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError || r < 0x80:
			c := s[i]
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		}
		i += n
	}
	return b.String()
}

// unsafe reports whether the rune r, n bytes long in its text, is one a
// terminal may act on.
func unsafe(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1: // not UTF-8: a lone 0x9b is CSI to some terminals
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidirectional overrides and isolates
		return true
	}
	return false
}
