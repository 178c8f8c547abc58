package mcp

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// HTTP headers of the Streamable HTTP transport. Every key is in
// canonical form, so it can index an http.Header directly.
const (
	// HeaderProtocolVersion goes on every request from 2025-06-18 on; in
	// 2026 it must equal the request's _meta version. The transport sets it.
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	// HeaderSessionID is the session-based era's session; never in 2026.
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderLastEventID resumes an SSE stream (session-based era); the
	// specification writes it Last-Event-ID.
	HeaderLastEventID = "Last-Event-Id"
	// HeaderMethod (2026) mirrors the method of every request and notification.
	HeaderMethod = "Mcp-Method"
	// HeaderName (2026) mirrors params.name, params.uri or params.taskId.
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix (2026) starts the headers that mirror tool
	// arguments annotated with x-mcp-header.
	HeaderParamPrefix = "Mcp-Param-"
)

// The sentinel around a base64-encoded header value.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// StandardHeaders returns the headers a message must carry over
// Streamable HTTP besides Mcp-Protocol-Version (which the transport sets),
// or nil when it needs none. version is the value that header will carry;
// "" means the message's own MetaVersion (a notification has none: pass
// the connection's version for it). Only stateless revisions
// (2026-07-28 on) have standard headers, and only requests and
// notifications carry them (a batch carries none):
//
//   - Mcp-Method: the method, always;
//   - Mcp-Name: params.name of tools/call and prompts/get, params.uri of
//     resources/read, params.taskId of tasks/get, tasks/update and
//     tasks/cancel (the tasks extension) — left out when the member is
//     not a string;
//   - Mcp-Param-<H>: for tools/call, one per argument the tool's schema
//     annotates with x-mcp-header H, as learned by tools (nil: none);
//     absent and null arguments, and values other than strings, booleans
//     and integers within ±(2⁵³−1), get no header.
//
// Values are encoded with EncodeHeaderValue. Keys are canonical, each
// with one value. StandardHeaders runs once per request: it reads only
// the members it needs and allocates the header, its values and the
// strings it cannot take from the learned tools.
func StandardHeaders(version string, m jsonrpc.Message, tools *ToolHeaders) http.Header {
	if m.Kind != jsonrpc.KindRequest && m.Kind != jsonrpc.KindNotification {
		return nil
	}
	if version != "" && EraOf(version) != EraStateless {
		return nil
	}
	// One pass over params for the members needed: _meta holds the
	// version, which may be large, and is skipped only once.
	params := m.Params()
	nameKey := nameMember(m.Method)
	var meta, name, args []byte
	if isObject(params) {
		_ = jsonscan.Members(params, func(mb jsonscan.Member) bool {
			v := params[mb.Start:mb.End:mb.End]
			switch {
			case meta == nil && keyIs(mb, "_meta"):
				meta = v
			case name == nil && nameKey != "" && keyIs(mb, nameKey):
				name = v
			case args == nil && m.Method == MethodToolsCall && keyIs(mb, "arguments"):
				args = v
			}
			return true
		})
	}
	if version == "" && EraOf(metaVersion(meta)) != EraStateless {
		return nil
	}

	type field struct{ key, value string }
	var buf [6]field
	fields := append(buf[:0], field{HeaderMethod, m.Method})
	var tool *toolEntry
	if len(name) >= 2 && name[0] == '"' {
		if m.Method == MethodToolsCall {
			tool = tools.lookup(name)
		}
		if tool != nil {
			fields = append(fields, field{HeaderName, tool.nameHeader})
		} else if s, ok := decodeString(name); ok {
			fields = append(fields, field{HeaderName, NameHeaderValue(s)})
		}
	}
	if tool != nil {
		for i := range tool.params {
			p := &tool.params[i]
			if v, ok := paramValue(path(args, p.Path...)); ok {
				fields = append(fields, field{p.Header, v})
			}
		}
	}

	h := make(http.Header, len(fields))
	values := make([]string, len(fields))
	for i, f := range fields {
		values[i] = f.value
		h[f.key] = values[i : i+1 : i+1]
	}
	return h
}

// nameMember returns the params member Mcp-Name mirrors for method, or "".
func nameMember(method string) string {
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		return "name"
	case MethodResourcesRead:
		return "uri"
	case MethodTasksGet, MethodTasksUpdate, MethodTasksCancel:
		return "taskId"
	}
	return ""
}

// Integers beyond ±(2⁵³−1) are not carried in headers (JavaScript's safe
// integers: the range every JSON reader keeps exactly).
const maxSafeInteger = 1<<53 - 1

// paramValue encodes the argument value v for an Mcp-Param header: a
// string with EncodeHeaderValue, a boolean as true or false, an integer
// (a number with no fraction, 3.0 included, within the safe range) in
// decimal. Anything else, absence and null included, has no header.
func paramValue(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	switch c := v[0]; {
	case c == '"':
		if s, ok := decodeString(v); ok {
			return EncodeHeaderValue(s), true
		}
	case string(v) == "true":
		return "true", true
	case string(v) == "false":
		return "false", true
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f > maxSafeInteger || f < -maxSafeInteger || f != float64(int64(f)) {
			return "", false
		}
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// NameHeaderValue returns s as an Mcp-Name value the way go-sdk v1.8.0
// sends it and checks it: as it is, so that a replay is accepted by the
// servers that exist. The 2026-07-28 text asks for the base64 form of a
// name or URI that is not plain ASCII, which go-sdk refuses (HTTP 400,
// -32020): replayctl follows the implementation, and uses the base64 form
// only for what cannot go in a header at all (control characters, a
// leading or trailing space or tab).
func NameHeaderValue(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return EncodeHeaderValue(s)
		}
	}
	if s != "" && (s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		return EncodeHeaderValue(s)
	}
	return s
}

// EncodeHeaderValue returns s as an Mcp-Param value (and the spec's form of
// an Mcp-Name): s itself
// when it is safe in a header, else "=?base64?" + base64 (standard, padded)
// of its bytes + "?=". s needs the base64 form when it has a byte outside
// printable ASCII (0x20-0x7E: non-ASCII text, control characters), a
// leading or trailing space or tab, or already looks like the encoded form.
// This is the 2026-07-28 rule, as go-sdk v1.8.0 applies it to Mcp-Param
// (for Mcp-Name see NameHeaderValue).
func EncodeHeaderValue(s string) string {
	if !needsBase64(s) {
		return s
	}
	b := make([]byte, 0, len(base64Prefix)+base64.StdEncoding.EncodedLen(len(s))+len(base64Suffix))
	b = append(b, base64Prefix...)
	b = base64.StdEncoding.AppendEncode(b, []byte(s))
	return string(append(b, base64Suffix...))
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if first, last := s[0], s[len(s)-1]; first == ' ' || first == '\t' || last == ' ' || last == '\t' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return true
		}
	}
	return looksEncoded(s)
}

func looksEncoded(s string) bool {
	return len(s) >= len(base64Prefix)+len(base64Suffix) &&
		strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix)
}

// DecodeHeaderValue undoes EncodeHeaderValue: a value in the base64 form
// is decoded, any other value is returned as it is. ok is false when the
// base64 form holds bad base64.
func DecodeHeaderValue(v string) (s string, ok bool) {
	if !looksEncoded(v) {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
	if err != nil {
		return "", false
	}
	return string(b), true
}
