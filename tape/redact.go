package tape

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// MinSecretLen is the shortest environment value a Redactor accepts: a
// shorter one would be found all over a tape.
const MinSecretLen = 4

// Redactor takes secrets out of what replayctl records and writes: the
// one redactor, by the one policy (policy.go). Built with NewRedactor it
// takes them out of recorded messages, editing their bytes in place (see
// Message), and keeps counts of what it replaced, so it must not be used
// by two goroutines at once (record.Tap calls it under its lock). Built
// with RedactorOf it hides secret values from any output text (Bytes,
// String, Writer), safe for concurrent use.
//
// What it replaces:
//   - the value of a member, at any depth, whose name is secret by the
//     redaction policy (policy.go) or matches a key glob given: names
//     compare case-insensitively with '-' and '_' ignored, '*' matching
//     any run of characters ("*token*" matches access_token, X-Auth-Token
//     and tokenValue; the defaults leave out DefaultKeyExceptions).
//     Strings, numbers, objects and arrays become the marker
//     [redacted:key:TYPE]; true, false, null, "" and a value already
//     redacted are kept. Also inside a string whose text is itself a
//     JSON object or array (a tool argument or result holding JSON): its
//     secret members are replaced the same way and the string is written
//     again, escaped minimally, the rest of its text as it was.
//   - every occurrence of the value of a --redact-env variable inside any
//     string, also when escaped in the JSON (\u0041, \/) or escaped once
//     more inside a string that holds JSON text; it becomes
//     [redacted:env:NAME] and the rest of the string stays.
//   - the value of every HTTP header named in the header list or matching
//     the key globs (by default: Authorization, Proxy-Authorization,
//     Cookie, Set-Cookie, X-Api-Key, Api-Key, X-Auth-Token), which becomes
//     [redacted:header]; env values in other headers become env markers.
//
// Not found: a secret encoded otherwise (base64 outside a redacted
// header, URL-escaped, split across messages).
type Redactor struct {
	envs     []envSecret // longest value first
	globs    globSet     // the user's
	defaults bool        // the policy's names (policy.go) are secret too
	display  bool        // mask as Mask does, counting nothing
	headers  map[string]bool
	missing  []string
	counts   Counts
	scratch  []byte // decoded strings, reused (hence one goroutine)

	// Of RedactorOf: read-only, so that Bytes, String and Writer are
	// safe for concurrent use.
	forms    [][]byte // every secret and its lossy and base64 forms, deduplicated
	whole    [][]byte // short secrets (ShortSecret): found only as a whole quoted string
	families []*family
}

type envSecret struct {
	name, value string
	escaped     string // value as JSON string content, when it differs
	marker      string
}

// Counts is how many values a Redactor replaced, by kind and name: never
// the values themselves.
type Counts struct {
	Env     map[string]int // by variable name
	Keys    map[string]int // by member name
	Headers map[string]int // by header name, as recorded
}

// Total is the number of values replaced.
func (c Counts) Total() int {
	n := 0
	for _, m := range []map[string]int{c.Env, c.Keys, c.Headers} {
		for _, v := range m {
			n += v
		}
	}
	return n
}

// RedactOption configures NewRedactor.
type RedactOption func(*redactConfig)

type redactConfig struct {
	env      []string
	lookup   func(string) (string, bool)
	keys     []string
	headers  []string
	defaults bool
}

// RedactEnv names environment variables whose values are secrets.
func RedactEnv(names ...string) RedactOption {
	return func(c *redactConfig) { c.env = append(c.env, names...) }
}

// RedactKeys adds member-name globs.
func RedactKeys(globs ...string) RedactOption {
	return func(c *redactConfig) { c.keys = append(c.keys, globs...) }
}

// RedactHeaders adds header names whose values are redacted.
func RedactHeaders(names ...string) RedactOption {
	return func(c *redactConfig) { c.headers = append(c.headers, names...) }
}

// KeepDefaults keeps (true, the default) or drops the default key globs
// and headers: without them only the globs and headers given are used.
func KeepDefaults(keep bool) RedactOption { return func(c *redactConfig) { c.defaults = keep } }

// WithLookupEnv sets where RedactEnv values come from; os.LookupEnv by
// default.
func WithLookupEnv(lookup func(string) (string, bool)) RedactOption {
	return func(c *redactConfig) { c.lookup = lookup }
}

// ErrRedactConfig is wrapped by NewRedactor's errors.
var ErrRedactConfig = errors.New("redact")

// NewRedactor checks its options and reads the environment values now.
// An unset or empty variable is not an error (there is nothing of it to
// find): Missing lists it. A bad name or glob, or a value shorter than
// MinSecretLen, is an error wrapping ErrRedactConfig.
func NewRedactor(opts ...RedactOption) (*Redactor, error) {
	c := redactConfig{lookup: os.LookupEnv, defaults: true}
	for _, o := range opts {
		o(&c)
	}
	r := &Redactor{headers: map[string]bool{}}
	seen := map[string]bool{}
	for _, name := range c.env {
		if !validEnvName(name) {
			return nil, fmt.Errorf("%w: --redact-env %q: want a variable name (letters, digits, _)", ErrRedactConfig, name)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		v, ok := c.lookup(name)
		if !ok || v == "" {
			r.missing = append(r.missing, name)
			continue
		}
		if len(v) < MinSecretLen {
			return nil, fmt.Errorf("%w: --redact-env %s: its value is shorter than %d bytes and would be found all over the tape; redact it by key instead", ErrRedactConfig, name, MinSecretLen)
		}
		e := envSecret{name: name, value: v, marker: EnvMarker(name)}
		if q := jsonQuote(v); q[1:len(q)-1] != v {
			e.escaped = q[1 : len(q)-1]
		}
		r.envs = append(r.envs, e)
	}
	slices.SortStableFunc(r.envs, func(a, b envSecret) int { return len(b.value) - len(a.value) })
	for _, g := range c.keys {
		n := normalizeName(g)
		if strings.Trim(n, "*") == "" {
			return nil, fmt.Errorf("%w: --redact-key %q: a glob that matches every name would redact whole messages; name a part of the key", ErrRedactConfig, g)
		}
		r.globs.add(n)
	}
	for _, h := range c.headers {
		r.headers[normalizeName(h)] = true
	}
	r.defaults = c.defaults
	r.counts = Counts{Env: map[string]int{}, Keys: map[string]int{}, Headers: map[string]int{}}
	return r, nil
}

// Missing lists the RedactEnv variables that are unset or empty.
func (r *Redactor) Missing() []string { return slices.Clone(r.missing) }

// EnvNames lists the RedactEnv variables whose values are redacted.
func (r *Redactor) EnvNames() []string {
	names := make([]string, len(r.envs))
	for i, e := range r.envs {
		names[i] = e.name
	}
	slices.Sort(names)
	return names
}

// Counts returns how many values were replaced so far.
func (r *Redactor) Counts() Counts {
	return Counts{Env: maps.Clone(r.counts.Env), Keys: maps.Clone(r.counts.Keys), Headers: maps.Clone(r.counts.Headers)}
}

// Header takes env values out of a tape's header (the server's command
// line and URL, the tags) and lists the redacted variables in its EnvTag,
// so that a replay knows what to put back. Call it before the header is
// written.
func (r *Redactor) Header(h *Header) {
	if h.Server != nil {
		s := *h.Server
		s.Command = slices.Clone(s.Command)
		for i := range s.Command {
			s.Command[i] = r.envText(s.Command[i])
		}
		s.URL = r.envText(s.URL)
		h.Server = &s
	}
	tags := make(map[string]string, len(h.Tags)+1)
	for k, v := range h.Tags {
		tags[k] = r.envText(v)
	}
	names := EnvNames(*h)
	for _, n := range r.EnvNames() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		tags[EnvTag] = strings.Join(names, ",")
	}
	if len(tags) > 0 {
		h.Tags = tags
	}
}

// envText replaces env values in plain text.
func (r *Redactor) envText(s string) string {
	for _, e := range r.envs {
		if n := strings.Count(s, e.value); n > 0 {
			s = strings.ReplaceAll(s, e.value, e.marker)
			r.counts.Env[e.name] += n
		}
	}
	return s
}

// Message takes the secrets out of m: its JSON (m.Msg, edited at the
// byte level: only the replaced values change), its HTTP headers and its
// unknown members. m.Msg and m.HTTP are replaced, not written to, when
// something changes, so a caller's buffers are never modified. A message
// that is not JSON past some point is redacted up to that point.
func (r *Redactor) Message(m *Message) {
	if out, changed := r.redactJSON(m.Msg); changed {
		m.Msg = out
	}
	if m.HTTP != nil && len(m.HTTP.Headers) > 0 {
		if h := r.headersOf(m.HTTP.Headers); h != nil {
			m.HTTP = &HTTPMeta{Status: m.HTTP.Status, Headers: h}
		}
	}
	cloned := false
	for k, v := range m.Extra {
		if out, changed := r.redactJSON(v); changed {
			if !cloned {
				m.Extra, cloned = maps.Clone(m.Extra), true
			}
			m.Extra[k] = out
		}
	}
}

// headersOf returns h with its secrets replaced, or nil when it has none.
func (r *Redactor) headersOf(h map[string][]string) map[string][]string {
	var out map[string][]string
	for k, vs := range h {
		whole := r.secretHeader(k)
		var nv []string
		for i, v := range vs {
			w := v
			if whole {
				if v != HeaderMarker && v != "" {
					w = HeaderMarker
					r.counts.Headers[k]++
				}
			} else {
				w = r.envText(v)
			}
			if w != v && nv == nil {
				nv = slices.Clone(vs)
			}
			if nv != nil {
				nv[i] = w
			}
		}
		if nv == nil {
			continue
		}
		if out == nil {
			out = maps.Clone(h)
		}
		out[k] = nv
	}
	return out
}

func (r *Redactor) secretHeader(name string) bool {
	if r.headers[normalizeName(name)] {
		return true
	}
	return r.secretKey([]byte(name))
}
