package transformer

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// hole is a template filled in per message.
type hole uint8

const (
	noHole hole = iota
	holeUUID
	holeNow
	holeSeq
	holeSession
)

var holeNames = map[string]hole{"uuid": holeUUID, "now": holeNow, "seq": holeSeq, "session": holeSession}

// part is literal bytes, or a hole.
type part struct {
	lit  []byte
	hole hole
}

// tmpl is bytes with holes, compiled once per rule and expanded per
// message. A tmpl without holes expands to its bytes without copying.
type tmpl struct {
	parts []part
	// escape writes a hole's text: JSON string escapes inside JSON
	// values, $ doubled in regexp replacements.
	escape func(dst []byte, s string) []byte
}

// fill is what the holes of one message expand to; uuid and now are taken
// once per message, on first use, so every {{uuid}} in a message is the
// same.
type fill struct {
	seq       int64
	session   string
	newUUID   func() string
	clock     func() time.Time
	uuid, now string
}

func (f *fill) text(h hole) string {
	switch h {
	case holeUUID:
		if f.uuid == "" {
			f.uuid = f.newUUID()
		}
		return f.uuid
	case holeNow:
		if f.now == "" {
			f.now = f.clock().UTC().Format(time.RFC3339)
		}
		return f.now
	case holeSeq:
		return strconv.FormatInt(f.seq, 10)
	default:
		return f.session
	}
}

// expand returns the bytes of t for the message of f.
func (t *tmpl) expand(f *fill) []byte {
	if len(t.parts) == 1 && t.parts[0].hole == noHole {
		return t.parts[0].lit
	}
	var b []byte
	for _, p := range t.parts {
		if p.hole == noHole {
			b = append(b, p.lit...)
		} else {
			b = t.escape(b, f.text(p.hole))
		}
	}
	return b
}

// builder compiles values into a tmpl. It substitutes ${env.NAME} at
// once, keeping each value it takes as a secret, and leaves {{…}} holes.
type builder struct {
	t       tmpl
	env     func(string) (string, bool)
	secrets *[]string
}

func (b *builder) raw(p []byte) {
	if n := len(b.t.parts); n > 0 && b.t.parts[n-1].hole == noHole {
		b.t.parts[n-1].lit = append(b.t.parts[n-1].lit, p...)
		return
	}
	b.t.parts = append(b.t.parts, part{lit: slices.Clone(p)})
}

func (b *builder) hole(h hole) { b.t.parts = append(b.t.parts, part{hole: h}) }

func (b *builder) done() tmpl {
	if len(b.t.parts) == 0 {
		b.t.parts = []part{{lit: []byte{}}}
	}
	return b.t
}

// value writes v, a value decoded from YAML, as JSON; object members in
// name order.
func (b *builder) value(v any) error {
	switch v := v.(type) {
	case string:
		return b.jsonString(v)
	case []any:
		b.raw([]byte{'['})
		for i, e := range v {
			if i > 0 {
				b.raw([]byte{','})
			}
			if err := b.value(e); err != nil {
				return err
			}
		}
		b.raw([]byte{']'})
		return nil
	case map[string]any:
		b.raw([]byte{'{'})
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.raw([]byte{','})
			}
			if err := b.jsonString(k); err != nil {
				return err
			}
			b.raw([]byte{':'})
			if err := b.value(v[k]); err != nil {
				return err
			}
		}
		b.raw([]byte{'}'})
		return nil
	case map[any]any:
		str := make(map[string]any, len(v))
		for k, e := range v {
			str[fmt.Sprint(k)] = e
		}
		return b.value(str)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("the value %v cannot be written as JSON: %v", v, err)
	}
	b.raw(j)
	return nil
}

// jsonString writes s as a JSON string with its holes.
func (b *builder) jsonString(s string) error {
	b.t.escape = jsonEscape
	b.raw([]byte{'"'})
	err := b.text(s, func(lit string) { b.raw(jsonEscape(nil, lit)) }, func(env string) { b.raw(jsonEscape(nil, env)) })
	b.raw([]byte{'"'})
	return err
}

// replacement writes s, a regexp replacement: its own text as written
// ($1 refers to a group), values from the environment and holes taken
// literally ($ doubled).
func (b *builder) replacement(s string) error {
	b.t.escape = dollarEscape
	return b.text(s, func(lit string) { b.raw([]byte(lit)) }, func(env string) { b.raw(dollarEscape(nil, env)) })
}

// text splits s into literal text, ${env.NAME} values and {{…}} holes.
func (b *builder) text(s string, lit, env func(string)) error {
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			return b.envText(s, lit, env)
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return b.envText(s, lit, env)
		}
		name := strings.TrimSpace(s[i+2 : i+j])
		h, known := holeNames[name]
		if !known && identifier.MatchString(name) {
			return fmt.Errorf("unknown template {{%s}}; want {{uuid}}, {{now}}, {{seq}} or {{session}}", name)
		}
		if err := b.envText(s[:i], lit, env); err != nil {
			return err
		}
		if known {
			b.hole(h)
		} else {
			lit(s[i : i+j+2])
		}
		s = s[i+j+2:]
	}
	return nil
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// envText substitutes ${env.NAME} in s.
func (b *builder) envText(s string, lit, env func(string)) error {
	for s != "" {
		i := strings.Index(s, "${env.")
		if i < 0 {
			lit(s)
			return nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return fmt.Errorf("%q is not closed; want ${env.NAME}", s[i:])
		}
		name := s[i+len("${env.") : i+j]
		if !envName.MatchString(name) {
			return fmt.Errorf("${env.%s}: %q is not a variable name", name, name)
		}
		v, ok := b.env(name)
		if !ok {
			return &EnvError{Name: name}
		}
		if v != "" && !slices.Contains(*b.secrets, v) {
			*b.secrets = append(*b.secrets, v)
		}
		if i > 0 {
			lit(s[:i])
		}
		env(v)
		s = s[i+j+1:]
	}
	return nil
}

// EnvError is the error of Compile for a ${env.NAME} that is not set.
type EnvError struct {
	Name string
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("${env.%s} is not set: export it or remove the rule", e.Name)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonEscape appends s as the inside of a JSON string.
func jsonEscape(dst []byte, s string) []byte {
	q := jsonscan.AppendString(nil, s)
	return append(dst, q[1:len(q)-1]...)
}

// dollarEscape appends s with each $ doubled, for a regexp replacement.
func dollarEscape(dst []byte, s string) []byte {
	return append(dst, strings.ReplaceAll(s, "$", "$$")...)
}
