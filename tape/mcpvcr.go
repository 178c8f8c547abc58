package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// mcp-vcr (Python, https://github.com/MCP-VCR/mcp-vcr) writes a
// recording as a YAML transcript: meta {version (1), recorded_at,
// session_id, server_command (a list), protocol_version, client_hint,
// schema_version, …} and messages, each {t (milliseconds since the
// session's start), dir ("c2s" or "s2c"), payload (the JSON-RPC message
// as a YAML mapping)}. One file is one session, over stdio.

// maxYAMLMessage bounds one message written as JSON, its YAML aliases
// expanded (as a native tape's line is bounded, WithMaxLine's default).
const maxYAMLMessage = defaultMaxLine

// mcpVCRMaxVersion is the newest meta.version read.
const mcpVCRMaxVersion = 1

// looksYAML reports whether the first non-blank line of a file that is
// not JSON opens a YAML document that may be an mcp-vcr transcript: a
// "meta:" or "messages:" key, a document marker, a directive or a
// comment.
func looksYAML(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	for _, p := range []string{"meta:", "messages:", "---", "%YAML", "#"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// hasTopKey says whether a line of doc starts with key and a colon, as a
// top-level member of a YAML mapping does.
func hasTopKey(doc []byte, key string) bool {
	for line := range bytes.Lines(doc) {
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok && bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte(":")) {
			return true
		}
	}
	return false
}

// FormatMCPVCR is mcp-vcr's YAML transcript.
const FormatMCPVCR Format = "mcp-vcr"

func init() { Register(mcpvcrImporter{}) }

// mcpvcrImporter imports an mcp-vcr transcript, told by a first line that
// looks like YAML (and is no line of a JSON-RPC log), read whole (a YAML
// document cannot be read in pieces).
type mcpvcrImporter struct{}

func (mcpvcrImporter) Format() Format { return FormatMCPVCR }
func (mcpvcrImporter) Stage() Stage   { return StageLine }

func (mcpvcrImporter) Detect(p *Probe) bool {
	t := bytes.TrimSpace(p.First())
	return t[0] != '{' && !p.binary() && looksYAML(t) && !isLogLine(t)
}

func (mcpvcrImporter) Import(p *Probe) (*Imported, error) {
	doc, err := p.ReadRest("a YAML document")
	if err != nil {
		return nil, err
	}
	h, msgs, warnings, err := decodeMCPVCR(p.Path(), doc, p.lineBase())
	if err != nil {
		return nil, err
	}
	return ImportedMessages(h, msgs, warnings), nil
}

// DecodeMCPVCR imports an mcp-vcr YAML transcript into a synthesized
// header, its messages in the file's order numbered from 0, and warnings
// that say what the file lacks. Each message is its payload written as
// compact JSON, keys in the file's order, from the side dir names, at t
// (times never go back). The session is named by meta.session_id. Bad
// input is an *Error naming the line and the path (messages[3].dir).
func DecodeMCPVCR(path string, doc []byte) (Header, []Message, []string, error) {
	return decodeMCPVCR(path, doc, 0)
}

func decodeMCPVCR(path string, doc []byte, lineBase int64) (Header, []Message, []string, error) {
	errAt := func(n *yaml.Node, format string, args ...any) *Error {
		line := lineBase
		if n != nil {
			line += int64(n.Line)
		}
		return &Error{Path: path, Line: line, Seq: -1, Msg: fmt.Sprintf(format, args...)}
	}
	notTranscript := &Error{Path: path, Line: lineBase + 1, Seq: -1, Err: ErrUnknownFormat,
		Msg: `a YAML document without "meta" and "messages": this is not an mcp-vcr transcript, the only YAML replayctl reads`}
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		if !hasTopKey(doc, "meta") && !hasTopKey(doc, "messages") {
			// Markdown, a shell script: text that only starts like YAML.
			return Header{}, nil, nil, notTranscript
		}
		return Header{}, nil, nil, yamlError(path, lineBase, err)
	}
	top := &root
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	meta, messages := member(top, "meta"), member(top, "messages")
	if top.Kind != yaml.MappingNode || meta == nil || messages == nil {
		return Header{}, nil, nil, notTranscript
	}
	h := peerHeader("mcp-vcr")
	session := "s1"
	if meta.Kind != yaml.MappingNode {
		return Header{}, nil, nil, errAt(meta, "meta is %s, want a mapping: fix the file", yamlKind(meta))
	}
	str := func(n *yaml.Node, p string) (string, error) {
		if n == nil || n.Tag == "!!null" {
			return "", nil
		}
		if n.Kind != yaml.ScalarNode {
			return "", errAt(n, "%s is %s, want a string: fix the file", p, yamlKind(n))
		}
		return n.Value, nil
	}
	if v := member(meta, "version"); v != nil {
		ver, err := strconv.Atoi(v.Value)
		if err != nil || v.Kind != yaml.ScalarNode || ver < 1 {
			return Header{}, nil, nil, errAt(v, "meta.version is %q, want an integer ≥ 1: fix the file", v.Value)
		}
		if ver > mcpVCRMaxVersion {
			e := errAt(v, "mcp-vcr transcript version %d is newer than this replayctl reads (%d): upgrade replayctl", ver, mcpVCRMaxVersion)
			e.Err = ErrNewerVersion
			return Header{}, nil, nil, e
		}
	}
	if at, err := str(member(meta, "recorded_at"), "meta.recorded_at"); err != nil {
		return Header{}, nil, nil, err
	} else if at != "" {
		t, ok := parseISO(at)
		if !ok {
			return Header{}, nil, nil, errAt(member(meta, "recorded_at"), "meta.recorded_at %q is not an ISO 8601 time like 2026-05-18T10:10:00.000Z: fix it", at)
		}
		h.CreatedAt = t.UTC().Format(time.RFC3339Nano)
	}
	if id, err := str(member(meta, "session_id"), "meta.session_id"); err != nil {
		return Header{}, nil, nil, err
	} else if id != "" {
		session = id
	}
	var err error
	if h.ProtocolVersion, err = str(member(meta, "protocol_version"), "meta.protocol_version"); err != nil {
		return Header{}, nil, nil, err
	}
	if hint, err := str(member(meta, "client_hint"), "meta.client_hint"); err != nil {
		return Header{}, nil, nil, err
	} else if hint != "" {
		h.Tags["client_hint"] = hint
	}
	var warnings []string
	if inc := member(meta, "incomplete"); inc != nil && inc.Value == "true" {
		why, _ := str(member(meta, "incomplete_reason"), "meta.incomplete_reason")
		if why == "" {
			why = "no reason given"
		}
		warnings = append(warnings, fmt.Sprintf("tape %s: mcp-vcr marked the transcript incomplete (%s): the session ends where the recording stopped", path, why))
	}
	h.Transport = "stdio"
	if cmd := member(meta, "server_command"); cmd != nil && cmd.Tag != "!!null" {
		var argv []string
		switch cmd.Kind {
		case yaml.SequenceNode:
			for i, a := range cmd.Content {
				s, err := str(a, fmt.Sprintf("meta.server_command[%d]", i))
				if err != nil {
					return Header{}, nil, nil, err
				}
				argv = append(argv, s)
			}
		case yaml.ScalarNode:
			argv = strings.Fields(cmd.Value)
		default:
			return Header{}, nil, nil, errAt(cmd, "meta.server_command is %s, want a list of strings: fix the file", yamlKind(cmd))
		}
		if len(argv) > 0 {
			h.Server = &Server{Command: argv}
		}
	}
	if messages.Tag == "!!null" {
		return h, nil, warnings, nil
	}
	if messages.Kind != yaml.SequenceNode {
		return Header{}, nil, nil, errAt(messages, "messages is %s, want a list: fix the file", yamlKind(messages))
	}
	p := &peerImport{path: path, store: &memStore{}}
	var (
		base    int64
		hasBase bool
	)
	for i, it := range messages.Content {
		at := fmt.Sprintf("messages[%d]", i)
		if it.Kind != yaml.MappingNode {
			return Header{}, nil, nil, errAt(it, "%s is %s, want a mapping with t, dir and payload: fix the file", at, yamlKind(it))
		}
		dirNode := member(it, "dir")
		dir, err := str(dirNode, at+".dir")
		if err != nil {
			return Header{}, nil, nil, err
		}
		var d Dir
		switch dir {
		case "c2s":
			d = C2S
		case "s2c":
			d = S2C
		default:
			return Header{}, nil, nil, errAt(orNode(dirNode, it), `%s.dir is %q, want "c2s" or "s2c": fix the file`, at, dir)
		}
		pl := member(it, "payload")
		if pl == nil || pl.Tag == "!!null" {
			return Header{}, nil, nil, errAt(it, "%s has no payload: each message needs its JSON-RPC message; fix or remove it", at)
		}
		if pl.Kind != yaml.MappingNode {
			return Header{}, nil, nil, errAt(pl, "%s.payload is %s, want a mapping (the JSON-RPC message): fix the file", at, yamlKind(pl))
		}
		msg, err := yamlJSON(nil, pl, at+".payload", errAt)
		if err != nil {
			return Header{}, nil, nil, err
		}
		tus := int64(-1) // no t: the time of the message before
		if t := member(it, "t"); t != nil && t.Tag != "!!null" {
			ms, err := strconv.ParseFloat(t.Value, 64)
			if t.Kind != yaml.ScalarNode || err != nil || ms < 0 || ms > 1e12 || math.IsNaN(ms) {
				return Header{}, nil, nil, errAt(t, "%s.t is %q, want milliseconds since the session's start (a number ≥ 0): fix the file", at, t.Value)
			}
			tus = int64(math.Round(ms * 1000))
			if !hasBase {
				base, hasBase = tus, true
			}
			tus -= base
		} else {
			p.note("the message has no t: it is placed at the time of the one before it", i)
		}
		if err := p.add(Message{Dir: d, Msg: msg, Line: lineBase + int64(pl.Line)}, tus); err != nil {
			return Header{}, nil, nil, err
		}
	}
	im := p.imported(session)
	msgs, err := im.messages()
	if err != nil {
		return Header{}, nil, nil, err
	}
	return h, msgs, append(warnings, p.warnings("messages")...), nil
}

// member returns the value of key in a YAML mapping, or nil.
func member(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func orNode(a, b *yaml.Node) *yaml.Node {
	if a != nil {
		return a
	}
	return b
}

// yamlKind names a node's kind for an error.
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}

// yamlJSON appends the JSON text of a YAML node to b: mappings as
// objects with their keys in order, sequences as arrays, scalars by
// their resolved tag (!!str a string, !!int and !!float a number,
// !!bool, !!null). What JSON cannot hold (.inf, .nan, a key that is not
// a scalar) is an error naming the path.
func yamlJSON(b []byte, n *yaml.Node, p string, errAt func(*yaml.Node, string, ...any) *Error) ([]byte, error) {
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errAt(n, "%s is an alias to nothing: fix the file", p)
		}
		if len(b) > maxYAMLMessage { // aliases of aliases grow exponentially
			return nil, errAt(n, "%s: the message is larger than %d MiB once its aliases are expanded: fix the file", p, maxYAMLMessage>>20)
		}
		return yamlJSON(b, n.Alias, p, errAt)
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, errAt(k, "%s has a key that is %s, want a string: fix the file", p, yamlKind(k))
			}
			if i > 0 {
				b = append(b, ',')
			}
			kb, _ := json.Marshal(k.Value) // a string always marshals
			b = append(b, kb...)
			b = append(b, ':')
			var err error
			if b, err = yamlJSON(b, n.Content[i+1], p+"."+k.Value, errAt); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = yamlJSON(b, c, fmt.Sprintf("%s[%d]", p, i), errAt); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return append(b, "null"...), nil
		case "!!bool":
			var v bool
			if err := n.Decode(&v); err != nil {
				return nil, errAt(n, "%s is %q, not a boolean YAML reads: fix the file", p, n.Value)
			}
			return strconv.AppendBool(b, v), nil
		case "!!int":
			if jsonNumber.MatchString(n.Value) {
				return append(b, n.Value...), nil // as written: 1, -3, 12345678901234567890
			}
			var v int64 // 0x1F, 0o17, 1_000
			if err := n.Decode(&v); err != nil {
				return nil, errAt(n, "%s is %q, an integer JSON cannot hold: fix the file", p, n.Value)
			}
			return strconv.AppendInt(b, v, 10), nil
		case "!!float":
			if jsonNumber.MatchString(n.Value) {
				return append(b, n.Value...), nil // as written: 0.25, 1e-3
			}
			var v float64
			if err := n.Decode(&v); err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, errAt(n, "%s is %q, a number JSON cannot hold: fix the file", p, n.Value)
			}
			return strconv.AppendFloat(b, v, 'g', -1, 64), nil
		}
		sb, _ := json.Marshal(n.Value) // !!str, !!timestamp, !!binary and others: the text as written
		return append(b, sb...), nil
	}
	return nil, errAt(n, "%s is not a YAML value replayctl can read: fix the file", p)
}

// jsonNumber is a number written as JSON writes it.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// yamlLine finds the line in a yaml error ("yaml: line 5: …").
var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): `)

// yamlError is a YAML syntax error as an *Error naming its line.
func yamlError(path string, lineBase int64, err error) *Error {
	msg := err.Error()
	e := &Error{Path: path, Seq: -1}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		e.Line = lineBase + n
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	e.Msg = fmt.Sprintf("not valid YAML (%s): fix the file or record it again", msg)
	return e
}
