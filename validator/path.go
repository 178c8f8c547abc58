package validator

import (
	"strconv"
	"unicode/utf8"
)

// seg is one step of a path: a member name or an array index.
type seg struct {
	key     string
	index   int
	isIndex bool
}

// renderPath writes a path in the syntax of the package documentation.
func renderPath(path []seg) string {
	if len(path) == 0 {
		return "$"
	}
	b := make([]byte, 0, 16*len(path))
	for i, s := range path {
		switch {
		case s.isIndex:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		case isPlainKey(s.key):
			if i > 0 {
				b = append(b, '.')
			}
			b = append(b, s.key...)
		default:
			b = append(b, '[')
			b = appendQuoted(b, s.key)
			b = append(b, ']')
		}
	}
	return string(b)
}

// isPlainKey reports whether a member name can be written bare in a path.
func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// appendQuoted appends s as a JSON string, escaping only what JSON
// requires ('"', '\\', control characters); invalid UTF-8 becomes U+FFFD,
// as when encoding/json decodes it.
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		case r == utf8.RuneError && size == 1:
			b = append(b, "\uFFFD"...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
