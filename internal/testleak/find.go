package testleak

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Depth is how many layers of decoding Find undoes.
const Depth = 3

// Find reports whether secret can be read in out, and how: "html, json
// literal" names the decodings that uncovered it, "" when it is there as
// it is.
func Find(out, secret string) (how string, found bool) {
	if secret == "" {
		return "", false
	}
	return find(out, secret, Depth, "")
}

func find(text, secret string, depth int, how string) (string, bool) {
	if strings.Contains(text, secret) {
		return how, true
	}
	if h, ok := inBase64(text, secret); ok {
		return join(how, h), true
	}
	if depth == 0 {
		return "", false
	}
	layers := []struct {
		name   string
		decode func(string) string
	}{
		{"html", html.UnescapeString},
		{"url", unescapePercent},
		{"backslash", unescapeBackslash},
	}
	for _, l := range layers {
		if d := l.decode(text); d != text {
			if h, ok := find(d, secret, depth-1, join(how, l.name)); ok {
				return h, true
			}
		}
	}
	for _, lit := range literals(text) {
		if h, ok := find(lit, secret, depth-1, join(how, "literal")); ok {
			return h, true
		}
	}
	return "", false
}

func join(how, step string) string {
	if how == "" {
		return step
	}
	return how + ", " + step
}

// literals decodes every quoted string in text that is a JSON or a Go
// string literal.
func literals(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(text) && text[j] != '"' {
			if text[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(text) {
			break
		}
		lit := text[i : j+1]
		var s string
		if json.Unmarshal([]byte(lit), &s) == nil {
			out = append(out, s)
		} else if u, err := strconv.Unquote(lit); err == nil {
			out = append(out, u)
		}
		i = j
	}
	return out
}

// unescapePercent undoes every valid %XX, leaving the rest.
func unescapePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeBackslash undoes every escape strconv.UnquoteChar knows, JSON's
// \/ and its surrogate pairs, wherever they are, leaving the rest.
func unescapeBackslash(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		if i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '"' || s[i+1] == '\'') {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		if r, n, ok := surrogatePair(s[i:]); ok {
			b.WriteRune(r)
			i += n
			continue
		}
		r, multibyte, tail, err := strconv.UnquoteChar(s[i:], 0)
		if err != nil {
			b.WriteByte('\\')
			i++
			continue
		}
		if multibyte {
			b.WriteRune(r)
		} else {
			b.WriteByte(byte(r)) // \xHH, an octal escape: a byte
		}
		i = len(s) - len(tail)
	}
	return b.String()
}

// surrogatePair reads "\uD83D\uDE00" as one character.
func surrogatePair(s string) (rune, int, bool) {
	if len(s) < 12 || s[1] != 'u' || s[6] != '\\' || s[7] != 'u' {
		return 0, 0, false
	}
	hi, err1 := strconv.ParseUint(s[2:6], 16, 16)
	lo, err2 := strconv.ParseUint(s[8:12], 16, 16)
	if err1 != nil || err2 != nil || !utf16.IsSurrogate(rune(hi)) {
		return 0, 0, false
	}
	r := utf16.DecodeRune(rune(hi), rune(lo))
	return r, 12, r != utf8.RuneError
}

// inBase64 decodes every run of base64 characters of 8 or more, at each
// of its four alignments, in both alphabets.
func inBase64(text, secret string) (string, bool) {
	isB64 := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
	}
	for i := 0; i < len(text); {
		if !isB64(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isB64(text[j]) {
			j++
		}
		if run := text[i:j]; len(run) >= 8 {
			for off := range 4 {
				part := run[off:]
				if len(part)%4 == 1 {
					part = part[:len(part)-1]
				}
				for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
					if d, err := enc.DecodeString(part); err == nil && strings.Contains(string(d), secret) {
						return "base64", true
					}
				}
			}
		}
		i = j
	}
	return "", false
}
