package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// span is a value's place in a line; a present value is never empty.
type span struct{ start, end int }

func (s span) ok() bool              { return s.end > s.start }
func (s span) of(line []byte) []byte { return line[s.start:s.end] }

// envelope is the result of one scan over a line's top-level members. It is
// reused from line to line so that the common path does not allocate.
type envelope struct {
	typ, seq, tus, session, dir, msg, http, sse span
	extra                                       []extraMember
	// rpc is the last "msg" object as the scan parsed it (ParseStrictAt),
	// at rpcAt in the line; rpcErr is what is wrong with it as JSON-RPC
	// (nil: rpc is valid). decodeMessage uses it when env.msg starts at
	// rpcAt (0: none parsed), and parses msg itself otherwise.
	rpc    jsonrpc.Message
	rpcErr error
	rpcAt  int
}

// extraMember is a member the envelope does not know.
type extraMember struct {
	key string
	val span
}

// scanEnvelope finds the members of a native line. It returns an error
// wrapping jsonscan.ErrSyntax when the line is not a JSON object.
func scanEnvelope(line []byte, env *envelope) error {
	extra := env.extra[:0]
	*env = envelope{}
	var keyErr error
	// The message is checked and parsed as the scan passes it, where it
	// was skipped, then checked, then parsed.
	parseMsg := func(key []byte, start int) (int, bool) {
		if string(key) != "msg" || start >= len(line) || line[start] != '{' {
			return 0, false
		}
		rpc, end, err := jsonrpc.ParseStrictAt(line, start)
		if end < 0 { // not valid JSON: skipped, and decodeMessage says so
			return 0, false
		}
		env.rpc, env.rpcErr, env.rpcAt = rpc, err, start
		return end, true
	}
	err := jsonscan.MembersSkip(line, parseMsg, func(m jsonscan.Member) bool {
		key, ok := memberName(m)
		if !ok {
			keyErr = fmt.Errorf("%w: bad member name", jsonscan.ErrSyntax)
			return false
		}
		extra = env.add(key, span{m.Start, m.End}, extra)
		return true
	})
	env.extra = extra
	if err == nil {
		err = keyErr
	}
	return err
}

// add keeps the member named key, at v, in env: one of the envelope's
// own, or else one of extra, which it returns.
func (env *envelope) add(key []byte, v span, extra []extraMember) []extraMember {
	switch string(key) {
	case "type":
		env.typ = v
	case "seq":
		env.seq = v
	case "t_us":
		env.tus = v
	case "session":
		env.session = v
	case "dir":
		env.dir = v
	case "msg":
		env.msg = v
	case "http":
		env.http = v
	case "sse":
		env.sse = v
	default:
		extra = append(extra, extraMember{string(key), v})
	}
	return extra
}

// memberName is m's name with its escapes decoded; ok is false for a
// name that does not decode.
func memberName(m jsonscan.Member) (name []byte, ok bool) {
	if !m.KeyEscaped {
		return m.Key, true
	}
	k, ok := unescapeKey(m.Key)
	return []byte(k), ok
}

// unescapeKey decodes a member name that holds backslash escapes.
func unescapeKey(raw []byte) (string, bool) {
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	var k string
	return k, json.Unmarshal(q, &k) == nil
}

// lineType returns the value of "type", or "" when it is absent or not a
// plain string.
func lineType(line []byte, env *envelope) string {
	if !env.typ.ok() {
		return ""
	}
	v := env.typ.of(line)
	switch {
	case bytes.Equal(v, []byte(`"message"`)):
		return "message"
	case bytes.Equal(v, []byte(`"header"`)):
		return "header"
	case bytes.Equal(v, []byte(`"end"`)):
		return "end"
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "?" + kindOf(v)
	}
	return s
}

// decodeMessage fills m from a scanned message line. Msg and Extra are copied
// out of line. session is the previous message's session, reused when the
// bytes are the same so that the common case does not allocate.
func decodeMessage(line []byte, env *envelope, m *Message, session string, slab *slab) *Error {
	*m = Message{Seq: -1}
	if !env.seq.ok() {
		return lineErr(-1, missing("seq"))
	}
	seq, problem := parseCount(env.seq.of(line))
	if problem != "" {
		return lineErr(-1, wrongField("seq", problem, "an integer ≥ 0"))
	}
	m.Seq = seq
	if !env.tus.ok() {
		return lineErr(seq, missing("t_us"))
	}
	if m.TUS, problem = parseCount(env.tus.of(line)); problem != "" {
		return lineErr(seq, wrongField("t_us", problem, "an integer ≥ 0"))
	}
	if !env.dir.ok() {
		return lineErr(seq, missing("dir"))
	}
	switch d := env.dir.of(line); {
	case bytes.Equal(d, []byte(`"c2s"`)):
		m.Dir = C2S
	case bytes.Equal(d, []byte(`"s2c"`)):
		m.Dir = S2C
	default:
		return lineErr(seq, fmt.Sprintf(`field "dir" is %s, want "c2s" or "s2c": fix or remove the line`, shortValue(d)))
	}
	if env.session.ok() {
		v := env.session.of(line)
		s, err := decodeString(v, session)
		if err != "" {
			return lineErr(seq, wrongField("session", err, "a string"))
		}
		m.Session = s
	}
	if !env.msg.ok() {
		return lineErr(seq, missing("msg"))
	}
	raw := env.msg.of(line)
	if raw[0] != '{' && raw[0] != '[' {
		return lineErr(seq, wrongField("msg", "is "+kindOf(raw), "a JSON-RPC message (an object) or a batch (an array)"))
	}
	// The scan checked the JSON and found the JSON-RPC members (or, for
	// a batch, one pass does it now); the view travels with the message
	// (Message.RPC), so that its users do not parse it again.
	m.Msg = slab.clone(raw)
	rpc, err := env.rpc, env.rpcErr
	if env.rpcAt == 0 || env.rpcAt != env.msg.start {
		if rpc, err = jsonrpc.ParseStrict(m.Msg); err != nil && !jsonscan.Valid(raw) {
			return lineErr(seq, `field "msg" is not valid JSON: fix or remove the line`)
		}
	}
	if err == nil {
		rpc.Raw = m.Msg // the same bytes, copied
		m.rpc = jsonrpc.Keep(rpc)
	}
	if env.http.ok() && env.http.of(line)[0] != 'n' {
		v := env.http.of(line)
		m.HTTP = new(HTTPMeta)
		if err := decodeObject(v, m.HTTP); err != "" {
			return lineErr(seq, wrongField("http", err, `an object like {"status":200,"headers":{"Name":["value"]}}`))
		}
	}
	if env.sse.ok() && env.sse.of(line)[0] != 'n' {
		v := env.sse.of(line)
		m.SSE = new(SSEMeta)
		if err := decodeObject(v, m.SSE); err != "" {
			return lineErr(seq, wrongField("sse", err, `an object like {"id":"e1","event":"message","retry":1000}`))
		}
	}
	for _, x := range env.extra {
		if x.key == "type" {
			continue
		}
		v := x.val.of(line)
		if !json.Valid(v) {
			return lineErr(seq, fmt.Sprintf("field %q is not valid JSON: fix or remove the line", x.key))
		}
		if m.Extra == nil {
			m.Extra = make(map[string]json.RawMessage, len(env.extra))
		}
		m.Extra[x.key] = bytes.Clone(v)
	}
	return nil
}

// decodeHeader decodes a header line, keeping members it does not know in
// Extra. It refuses a format that is not ours and a newer version.
func decodeHeader(line []byte) (Header, *Error) {
	var h Header
	var hasFormat, hasVersion bool
	var bad *Error
	err := jsonscan.Members(line, func(m jsonscan.Member) bool {
		v := line[m.Start:m.End]
		key := string(m.Key)
		if m.KeyEscaped {
			var ok bool
			if key, ok = unescapeKey(m.Key); !ok {
				bad = lineErr(-1, "a header member name is not valid JSON: fix the header line")
				return false
			}
		}
		if v[0] == 'n' && key != "type" { // null: as if absent
			return true
		}
		var target any
		want := "a string"
		switch key {
		case "type":
			return true
		case "format":
			hasFormat, target = true, &h.Format
		case "version":
			hasVersion = true
			n, problem := parseCount(v)
			if problem != "" {
				bad = lineErr(-1, wrongHeader("version", problem, "an integer"))
				return false
			}
			h.Version = int(min(n, 1<<31))
			return true
		case "created_at":
			target = &h.CreatedAt
		case "protocol_version":
			target = &h.ProtocolVersion
		case "transport":
			target = &h.Transport
		case "server":
			target, want = &h.Server, `an object like {"command":["node","server.js"]}`
		case "tags":
			target, want = &h.Tags, "an object of strings"
		default:
			if !json.Valid(v) {
				bad = lineErr(-1, fmt.Sprintf("header field %q is not valid JSON: fix the header line", key))
				return false
			}
			if h.Extra == nil {
				h.Extra = make(map[string]json.RawMessage)
			}
			h.Extra[key] = bytes.Clone(v)
			return true
		}
		if err := json.Unmarshal(v, target); err != nil {
			bad = lineErr(-1, wrongHeader(key, "is "+kindOf(v), want))
			return false
		}
		return true
	})
	if bad != nil {
		return h, bad
	}
	if err != nil {
		return h, lineErr(-1, "the header line is not valid JSON: fix it or record the tape again")
	}
	if !hasFormat || h.Format != FormatName {
		e := lineErr(-1, fmt.Sprintf(`header "format" is %q, want %q: this is not a replayctl tape`, h.Format, FormatName))
		e.Err = ErrUnknownFormat
		return h, e
	}
	if !hasVersion || h.Version < 1 {
		return h, lineErr(-1, fmt.Sprintf(`header has no valid "version" (want %d): fix the header line`, FormatVersion))
	}
	if h.Version > FormatVersion {
		e := lineErr(-1, fmt.Sprintf("the tape's format version %d is newer than this replayctl reads (%d): upgrade replayctl", h.Version, FormatVersion))
		e.Err = ErrNewerVersion
		return h, e
	}
	return h, nil
}

// decodeEnd decodes an end line; members it does not know are ignored.
func decodeEnd(line []byte) (End, *Error) {
	var e End
	var bad *Error
	err := jsonscan.Members(line, func(m jsonscan.Member) bool {
		v := line[m.Start:m.End]
		var dst *int64
		switch string(m.Key) {
		case "messages":
			dst = &e.Messages
		case "duration_us":
			dst = &e.DurationUS
		default:
			return true
		}
		n, problem := parseCount(v)
		if problem != "" {
			bad = lineErr(-1, fmt.Sprintf("end field %q %s, want an integer ≥ 0: fix or remove the end line", m.Key, problem))
			return false
		}
		*dst = n
		return true
	})
	if bad != nil {
		return e, bad
	}
	if err != nil {
		return e, lineErr(-1, "the end line is not valid JSON: fix or remove it")
	}
	return e, nil
}

// parseCount parses a non-negative JSON integer. It returns what is wrong
// with v, or "".
func parseCount(v []byte) (int64, string) {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, "is " + kindOf(v)
	}
	if v[0] == '-' {
		return 0, "is negative"
	}
	if len(v) > 1 && v[0] == '0' {
		if v[1] == '.' || v[1] == 'e' || v[1] == 'E' {
			return 0, "is not a whole number"
		}
		return 0, "is not a valid JSON number"
	}
	var n int64
	for i, c := range v {
		if c < '0' || c > '9' {
			if (c == '.' || c == 'e' || c == 'E') && json.Valid(v) {
				return 0, "is not a whole number"
			}
			return 0, "is not a valid JSON number"
		}
		if i >= 18 {
			return 0, "is too large"
		}
		n = n*10 + int64(c-'0')
	}
	return n, ""
}

// decodeString decodes a JSON string value, returning prev without
// allocating when the content is the same.
func decodeString(v []byte, prev string) (string, string) {
	if v[0] != '"' {
		return "", "is " + kindOf(v)
	}
	body := v[1 : len(v)-1]
	plain := true
	for _, c := range body {
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		if string(body) == prev {
			return prev, ""
		}
		return string(body), ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", "is not a valid JSON string"
	}
	return s, ""
}

// decodeObject decodes a small nested object with encoding/json.
func decodeObject(v []byte, dst any) string {
	if v[0] != '{' {
		return "is " + kindOf(v)
	}
	if err := json.Unmarshal(v, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Sprintf("member %q is a %s", te.Field, te.Value)
		}
		return "is not valid JSON"
	}
	return ""
}

func missing(field string) string {
	return fmt.Sprintf("message line has no %q: add it or remove the line", field)
}

func wrongField(field, problem, want string) string {
	return fmt.Sprintf("field %q %s, want %s: fix or remove the line", field, problem, want)
}

func wrongHeader(field, problem, want string) string {
	return fmt.Sprintf("header field %q %s, want %s: fix the header line", field, problem, want)
}

// shortValue quotes at most 40 bytes of a value for an error message.
func shortValue(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}
