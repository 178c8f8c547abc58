package tape

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// JSON returns doc with its secrets replaced (see Redactor): doc itself
// when there are none, else a new slice in which only the replaced values
// differ.
func (r *Redactor) JSON(doc []byte) []byte {
	out, _ := r.redactJSON(doc)
	return out
}

// redactJSON walks doc once, string by string (a '"' outside a string
// starts one; strings are skipped whole), so that keys at any depth and
// every string value are seen without decoding the document.
func (r *Redactor) redactJSON(doc []byte) ([]byte, bool) {
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
			if marker, ok := keyMarker(doc[vs:ve]); ok {
				out = append(append(out, doc[done:vs]...), marker...)
				done = ve
				r.counts.Keys[decodeJSONString(doc[i:end])]++
			}
			i = ve - 1
			continue
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

// keyMarker is what replaces the value v of a secret member, and whether
// it is replaced at all (true, false, null, "" and markers are kept).
func keyMarker(v []byte) (string, bool) {
	kind := jsonKind(v)
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
	s := decodeJSONString(q)
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
	for _, g := range r.globs {
		if globMatch(g, n) {
			return true
		}
	}
	if len(r.defGlobs) == 0 {
		return false
	}
	for _, g := range r.except {
		if globMatch(g, n) {
			return false
		}
	}
	for _, g := range r.defGlobs {
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
