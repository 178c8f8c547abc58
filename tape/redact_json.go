package tape

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// JSON returns doc with its secrets replaced (see Redactor): doc itself
// when there are none, else a new slice in which only the replaced values
// differ.
func (r *Redactor) JSON(doc []byte) []byte {
	out, _ := r.redactJSON(doc)
	return out
}

// maxJSONInString is how deep JSON text inside strings is looked into:
// a string holding JSON text whose strings hold JSON text, and so on.
const maxJSONInString = 4

// redactJSON walks doc once, string by string (a '"' outside a string
// starts one; strings are skipped whole), so that keys at any depth and
// every string value are seen without decoding the document.
func (r *Redactor) redactJSON(doc []byte) ([]byte, bool) { return r.redactDepth(doc, 0) }

func (r *Redactor) redactDepth(doc []byte, depth int) ([]byte, bool) {
	var out []byte // nil until something is replaced
	done := 0      // doc[:done] is in out
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end, err := jsonscan.SkipValue(doc, i)
		if err != nil {
			break
		}
		j := jsonscan.SkipSpace(doc, end)
		if j < len(doc) && doc[j] == ':' && r.secretKey(doc[i+1:end-1]) {
			vs := jsonscan.SkipSpace(doc, j+1)
			ve, err := jsonscan.SkipValue(doc, vs)
			if err != nil {
				break
			}
			if marker, ok := r.keyMarker(doc[vs:ve]); ok {
				out = append(append(out, doc[done:vs]...), marker...)
				done = ve
				if r.counts.Keys != nil {
					r.counts.Keys[decodeJSONString(doc[i:end])]++
				}
			}
			i = ve - 1
			continue
		}
		if depth < maxJSONInString && !(j < len(doc) && doc[j] == ':') {
			if s, ok := r.jsonInString(doc[i:end], depth); ok {
				out = append(append(out, doc[done:i]...), s...)
				done, i = end, end-1
				continue
			}
		}
		if len(r.envs) > 0 {
			if s, ok := r.envString(doc[i:end]); ok {
				out = append(append(out, doc[done:i]...), s...)
				done = end
			}
		}
		i = end - 1
	}
	if out == nil {
		return doc, false
	}
	return append(out, doc[done:]...), true
}

// jsonInString returns the JSON string q redacted, when its text is a
// JSON object or array with something to redact: the text redacted as a
// document, quoted again (jsonscan.AppendString escapes only what JSON
// must).
func (r *Redactor) jsonInString(q []byte, depth int) ([]byte, bool) {
	body := q[1 : len(q)-1]
	k := 0 // past the leading white space, raw or escaped
	for k < len(body) {
		if body[k] == ' ' {
			k++
		} else if k+1 < len(body) && body[k] == '\\' && (body[k+1] == 'n' || body[k+1] == 'r' || body[k+1] == 't') {
			k += 2
		} else {
			break
		}
	}
	if k == len(body) || (body[k] != '{' && body[k] != '[') {
		return nil, false
	}
	text, ok := unquoteInto(nil, body)
	if !ok || !json.Valid(text) {
		return nil, false
	}
	inner, changed := r.redactDepth(text, depth+1)
	if !changed {
		return nil, false
	}
	return jsonscan.AppendString(nil, string(inner)), true
}

// keyMarker is what replaces the value v of a secret member, and whether
// it is replaced at all. Recording keeps true, false, null, "" and
// markers, and writes [redacted:key:TYPE]; display (Mask) replaces all
// but null by Masked.
func (r *Redactor) keyMarker(v []byte) (string, bool) {
	kind := jsonKind(v)
	if r.display {
		return `"` + Masked + `"`, kind != "null" && kind != ""
	}
	switch kind {
	case "boolean", "null", "":
		return "", false
	case "string":
		if len(v) == 2 || bytes.HasPrefix(v, []byte(`"`+markerPrefix)) {
			return "", false
		}
	}
	return `"` + keyMarkerPrefix + kind + `]"`, true
}

// envString returns the JSON string q with every env value replaced by
// its marker, and whether there was one. A string without escapes is
// searched as it is; one with escapes is decoded, searched (also for the
// values escaped once more: JSON text inside the string) and written
// again.
func (r *Redactor) envString(q []byte) ([]byte, bool) {
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		var out []byte
		for _, e := range r.envs {
			src := body
			if out != nil {
				src = out[1 : len(out)-1]
			}
			if n := bytes.Count(src, []byte(e.value)); n > 0 {
				rep := bytes.ReplaceAll(src, []byte(e.value), []byte(e.marker))
				out = append(append([]byte{'"'}, rep...), '"')
				r.counts.Env[e.name] += n
			}
		}
		return out, out != nil
	}
	// Most strings with escapes hold no secret: decode into the scratch
	// buffer and look before allocating anything.
	var ok bool
	if r.scratch, ok = unquoteInto(r.scratch[:0], body); !ok {
		return nil, false
	}
	found := false
	for _, e := range r.envs {
		if bytes.Contains(r.scratch, []byte(e.value)) || (e.escaped != "" && bytes.Contains(r.scratch, []byte(e.escaped))) {
			found = true
			break
		}
	}
	if !found {
		return nil, false
	}
	s := string(r.scratch)
	changed := false
	for _, e := range r.envs {
		for _, form := range []string{e.value, e.escaped} {
			if form == "" {
				continue
			}
			if n := strings.Count(s, form); n > 0 {
				s = strings.ReplaceAll(s, form, e.marker)
				r.counts.Env[e.name] += n
				changed = true
			}
		}
	}
	if !changed {
		return nil, false
	}
	return jsonscan.AppendString(nil, s), true
}

// unquoteInto appends the decoded body of a JSON string (without its
// quotes) to dst; false if an escape is malformed.
func unquoteInto(dst, body []byte) ([]byte, bool) {
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c >= utf8.RuneSelf { // invalid UTF-8 decodes to U+FFFD, as encoding/json has it
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, body[i:i+n]...)
			}
			i += n - 1
			continue
		}
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i+1 >= len(body) {
			return dst, false
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			dst = append(dst, body[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok {
				return dst, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(body, i+3); ok && i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	return dst, true
}

// hex4 decodes the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, ok := jsonscan.Hex(b[i : i+4])
	return rune(v), ok
}

// secretKey reports whether the raw bytes of a member name (escapes not
// decoded) match the Redactor's key globs.
func (r *Redactor) secretKey(raw []byte) bool {
	if len(raw) > 64 {
		return false
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		raw = []byte(decodeJSONString(append(append([]byte{'"'}, raw...), '"')))
		if len(raw) > 64 {
			return false
		}
	}
	var buf [64]byte
	n := normalizeInto(buf[:0], raw)
	if r.globs.match(n) {
		return true
	}
	return r.defaults && !plainNames[string(n)] && names.secret(n)
}

// globSet is a set of normalised globs, sorted by shape so that a name
// is matched without backtracking in the common cases: exact names in a
// map, "*x*", "*x" and "x*" with one search each.
type globSet struct {
	exact                    map[string]bool
	contains, suffix, prefix [][]byte
	other                    []string
}

func (s *globSet) add(g string) {
	inner := strings.Trim(g, "*")
	switch {
	case !strings.Contains(g, "*"):
		if s.exact == nil {
			s.exact = map[string]bool{}
		}
		s.exact[g] = true
	case strings.Contains(inner, "*"):
		s.other = append(s.other, g)
	case g == "*"+inner+"*":
		s.contains = append(s.contains, []byte(inner))
	case g == "*"+inner:
		s.suffix = append(s.suffix, []byte(inner))
	case g == inner+"*":
		s.prefix = append(s.prefix, []byte(inner))
	default:
		s.other = append(s.other, g)
	}
}

func (s *globSet) empty() bool {
	return len(s.exact)+len(s.contains)+len(s.suffix)+len(s.prefix)+len(s.other) == 0
}

func (s *globSet) match(n []byte) bool {
	if s.exact[string(n)] {
		return true
	}
	for _, c := range s.contains {
		if bytes.Contains(n, c) {
			return true
		}
	}
	for _, c := range s.suffix {
		if bytes.HasSuffix(n, c) {
			return true
		}
	}
	for _, c := range s.prefix {
		if bytes.HasPrefix(n, c) {
			return true
		}
	}
	for _, g := range s.other {
		if globMatch(g, n) {
			return true
		}
	}
	return false
}

// normalizeName is a name as globs compare it: lower case, without '-'
// and '_'.
func normalizeName(s string) string { return string(normalizeInto(nil, []byte(s))) }

func normalizeInto(dst, name []byte) []byte {
	for _, c := range name {
		switch {
		case c == '-' || c == '_':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// globMatch matches name against glob, in which '*' matches any run of
// bytes and every other byte itself.
func globMatch(glob string, name []byte) bool {
	// The classic two-pointer match with backtracking to the last star.
	g, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case g < len(glob) && glob[g] == '*':
			star, mark = g, n
			g++
		case g < len(glob) && glob[g] == name[n]:
			g++
			n++
		case star >= 0:
			g, mark = star+1, mark+1
			n = mark
		default:
			return false
		}
	}
	for g < len(glob) && glob[g] == '*' {
		g++
	}
	return g == len(glob)
}

// decodeJSONString decodes a JSON string (with its quotes); a string
// that does not decode is returned as its raw body.
func decodeJSONString(q []byte) string {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1])
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		if len(q) >= 2 {
			return string(q[1 : len(q)-1])
		}
		return string(q)
	}
	return s
}

// jsonQuote is s as a JSON string, with its quotes.
func jsonQuote(s string) string { return string(jsonscan.AppendString(nil, s)) }
