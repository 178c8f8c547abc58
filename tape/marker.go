package tape

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// Redaction markers. A Redactor puts one where a secret was, saying what
// was there, so that a replay can put a value back or accept any value:
//
//	[redacted:env:NAME]   the value of environment variable NAME, inside a
//	                      string (the rest of the string is kept); a replay
//	                      puts the variable's value back when it is set
//	[redacted:key:TYPE]   the whole value of a member whose name matched a
//	                      key glob; TYPE is string, number, object or array;
//	                      the validator accepts any live value of that TYPE
//	[redacted:header]     the value of a credential header (Authorization,
//	                      Cookie, API-key headers, …)
const (
	markerPrefix    = "[redacted:"
	envMarkerPrefix = "[redacted:env:"
	keyMarkerPrefix = "[redacted:key:"
	// HeaderMarker replaces the value of a redacted HTTP header.
	HeaderMarker = "[redacted:header]"
)

// EnvTag is the header tag in which a Redactor lists, comma-separated, the
// environment variables whose values it replaced by markers: what a
// replay looks up to put them back.
const EnvTag = "redacted_env"

// EnvMarker returns the marker that stands for the value of the
// environment variable name.
func EnvMarker(name string) string { return envMarkerPrefix + name + "]" }

// validEnvName reports whether name can be written in a marker: letters,
// digits and '_', not starting with a digit, as shells name variables.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// EnvNames returns the environment variables a Redactor listed in h (its
// EnvTag), in order; nil when there are none.
func EnvNames(h Header) []string {
	list := h.Tags[EnvTag]
	if list == "" {
		return nil
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); validEnvName(n) {
			names = append(names, n)
		}
	}
	return names
}

// HasMarker reports whether the raw JSON doc holds a redaction marker.
func HasMarker(doc []byte) bool { return bytes.Contains(doc, []byte(markerPrefix)) }

// RestoreEnv puts environment values back in the JSON document doc: each
// env marker [redacted:env:NAME] whose NAME is in values is replaced by
// the value, written as JSON string content (escaped). Every other byte
// stays as it is. It returns doc itself when it has no marker to replace,
// and the names of the env markers left because values has no entry for
// them (each once). A marker inside a string that itself holds JSON text
// gets the value escaped once, as for a plain string.
func RestoreEnv(doc []byte, values map[string]string) (out []byte, missing []string) {
	if bytes.Index(doc, []byte(envMarkerPrefix)) < 0 {
		return doc, nil
	}
	done := 0 // doc[:done] is in out
	for i := 0; ; {
		k := bytes.Index(doc[i:], []byte(envMarkerPrefix))
		if k < 0 {
			break
		}
		start := i + k
		nameStart := start + len(envMarkerPrefix)
		end := bytes.IndexByte(doc[nameStart:], ']')
		if end < 0 {
			break
		}
		name := string(doc[nameStart : nameStart+end])
		i = nameStart + end + 1
		if !validEnvName(name) {
			continue
		}
		v, ok := values[name]
		if !ok {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			continue
		}
		q := jsonscan.AppendString(nil, v)
		out = append(append(out, doc[done:start]...), q[1:len(q)-1]...)
		done = i
	}
	if out == nil {
		return doc, missing
	}
	return append(out, doc[done:]...), missing
}

// MatchRedacted says whether the recorded JSON value expected holds a
// redaction marker, and if so whether the live value actual is one it
// stands for: a key marker [redacted:key:TYPE] (or the header marker)
// that is the whole string accepts any value of its TYPE; a string with
// env markers accepts a string that has the rest of its text, each
// marker standing for any text; a string holding JSON text with markers
// in it (redacted inside, see Redactor) accepts a string holding the
// same JSON but where the markers stand. Values are raw JSON; expected without a
// marker gives isMarker false.
func MatchRedacted(expected, actual []byte) (isMarker, match bool) {
	if len(expected) < 2 || expected[0] != '"' || bytes.Index(expected, []byte(markerPrefix)) < 0 {
		return false, false
	}
	e := decodeJSONString(expected)
	if t, ok := strings.CutPrefix(e, keyMarkerPrefix); ok && strings.HasSuffix(t, "]") {
		return true, jsonKind(actual) == strings.TrimSuffix(t, "]")
	}
	if e == HeaderMarker {
		return true, jsonKind(actual) == "string"
	}
	if strings.Contains(e, keyMarkerPrefix) && jsonKind(actual) == "string" {
		if ok, match := matchJSONText(e, decodeJSONString(actual)); ok {
			return true, match
		}
	}
	if !strings.Contains(e, envMarkerPrefix) {
		return false, false
	}
	if jsonKind(actual) != "string" {
		return true, false
	}
	return true, envPatternMatch(e, decodeJSONString(actual))
}

// envPatternMatch matches s against pattern, in which each env marker
// stands for any text (possibly empty) and the rest is literal.
func envPatternMatch(pattern, s string) bool {
	var lits []string
	for {
		k := strings.Index(pattern, envMarkerPrefix)
		if k < 0 {
			break
		}
		end := strings.IndexByte(pattern[k:], ']')
		if end < 0 || !validEnvName(pattern[k+len(envMarkerPrefix):k+end]) {
			return pattern == s // not a marker after all
		}
		lits = append(lits, pattern[:k])
		pattern = pattern[k+end+1:]
	}
	lits = append(lits, pattern)
	// The first literal is a prefix, the last a suffix, the others in
	// order in between (leftmost match is enough for '*'-only patterns).
	if !strings.HasPrefix(s, lits[0]) {
		return false
	}
	s = s[len(lits[0]):]
	last := lits[len(lits)-1]
	for _, l := range lits[1 : len(lits)-1] {
		k := strings.Index(s, l)
		if k < 0 {
			return false
		}
		s = s[k+len(l):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// jsonKind names the type of a raw JSON value as markers write it.
func jsonKind(v []byte) string {
	i := jsonscan.SkipSpace(v, 0)
	if i >= len(v) {
		return ""
	}
	switch c := v[i]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	default:
		return "number"
	}
}

// matchJSONText compares the JSON texts e (recorded, with markers) and a
// (live) as values, each marker standing for what it stands for in
// MatchRedacted. ok is false when e is not JSON text.
func matchJSONText(e, a string) (ok, match bool) {
	var ev, av any
	if !decodeNumbers(e, &ev) {
		return false, false
	}
	if !decodeNumbers(a, &av) {
		return true, false
	}
	return true, matchValue(ev, av)
}

func decodeNumbers(s string, v *any) bool {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if d.Decode(v) != nil {
		return false
	}
	_, err := d.Token()
	return err == io.EOF
}

// matchValue compares decoded JSON values, a string marker in e standing
// for any value of its kind (a key marker) or any text (env markers).
func matchValue(e, a any) bool {
	switch ev := e.(type) {
	case string:
		if t, ok := strings.CutPrefix(ev, keyMarkerPrefix); ok && strings.HasSuffix(t, "]") {
			b, _ := json.Marshal(a)
			return jsonKind(b) == strings.TrimSuffix(t, "]")
		}
		as, ok := a.(string)
		if !ok {
			return false
		}
		if strings.Contains(ev, envMarkerPrefix) {
			return envPatternMatch(ev, as)
		}
		return ev == as
	case map[string]any:
		am, ok := a.(map[string]any)
		if !ok || len(am) != len(ev) {
			return false
		}
		for k, x := range ev {
			y, ok := am[k]
			if !ok || !matchValue(x, y) {
				return false
			}
		}
		return true
	case []any:
		aa, ok := a.([]any)
		if !ok || len(aa) != len(ev) {
			return false
		}
		for i := range ev {
			if !matchValue(ev[i], aa[i]) {
				return false
			}
		}
		return true
	default: // json.Number, bool, nil
		return e == a
	}
}
