package mcp

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/jsonrpc"
)

// HeaderError is a request whose HTTP headers do not agree with its body
// (2026-07-28). A server answers it with HTTP 400 and a JSON-RPC error of
// code CodeHeaderMismatch carrying Error() as its message.
type HeaderError struct {
	Header string // the header at fault, e.g. "Mcp-Param-Region"
	Reason string // what is wrong with it
}

func (e *HeaderError) Error() string {
	return "header mismatch: " + e.Header + ": " + e.Reason
}

// CheckStandardHeaders checks the headers h of a POSTed message the way a
// 2026-07-28 server does, and returns nil or a *HeaderError. It is the
// other side of StandardHeaders, for the mock serving a stateless tape:
//
//   - a request whose _meta carries a version needs Mcp-Protocol-Version
//     with the same value;
//   - from 2026-07-28 on (by that header), Mcp-Method must be there and be
//     the method; Mcp-Name must be there for tools/call, prompts/get and
//     resources/read, and equal the body's value after base64 decoding
//     (for tasks/* it is checked when present); for a tools/call of a tool
//     in tools, each annotated argument present and not null needs its
//     Mcp-Param header with the same value (integers compared as numbers,
//     so 42.0 equals 42), and an absent or null one must have none.
//
// Headers the server does not know are ignored, as are messages that are
// not requests or notifications. Like go-sdk, it accepts an Mcp-Name sent
// raw (not base64-encoded) when it equals the body's value.
func CheckStandardHeaders(h http.Header, m jsonrpc.Message, tools *ToolHeaders) error {
	if m.Kind != jsonrpc.KindRequest && m.Kind != jsonrpc.KindNotification {
		return nil
	}
	params := m.Params()
	version := h.Get(HeaderProtocolVersion)
	if mv := MetaVersion(params); mv != "" {
		if version == "" {
			return &HeaderError{HeaderProtocolVersion, fmt.Sprintf("missing; required for a request carrying _meta %q", MetaProtocolVersion)}
		}
		if version != mv {
			return &HeaderError{HeaderProtocolVersion, fmt.Sprintf("%q does not match _meta %q %q", version, MetaProtocolVersion, mv)}
		}
	}
	if EraOf(version) != EraStateless {
		return nil
	}
	switch got := h.Get(HeaderMethod); {
	case got == "":
		return &HeaderError{HeaderMethod, "missing"}
	case got != m.Method:
		return &HeaderError{HeaderMethod, fmt.Sprintf("%q does not match the body's method %q", got, m.Method)}
	}
	key := nameMember(m.Method)
	if key == "" {
		return nil
	}
	body, _ := decodeString(member(params, key))
	switch got := h.Get(HeaderName); {
	case got == "":
		if !strings.HasPrefix(m.Method, "tasks/") {
			return &HeaderError{HeaderName, fmt.Sprintf("missing; required for %s", m.Method)}
		}
	default:
		decoded, ok := DecodeHeaderValue(got)
		if !ok {
			return &HeaderError{HeaderName, "holds invalid base64"}
		}
		if decoded != body && got != body {
			return &HeaderError{HeaderName, fmt.Sprintf("%q does not match the body's params.%s %q", got, key, body)}
		}
	}
	if m.Method != MethodToolsCall {
		return nil
	}
	tool := tools.lookup(member(params, "name"))
	if tool == nil {
		return nil
	}
	args := member(params, "arguments")
	for _, p := range tool.params {
		arg := path(args, p.Path...)
		got := h.Get(p.Header)
		dotted := strings.Join(p.Path, ".")
		if len(arg) == 0 || string(arg) == "null" {
			if got != "" {
				return &HeaderError{p.Header, fmt.Sprintf("sent for argument %q, which is absent or null", dotted)}
			}
			continue
		}
		if got == "" {
			return &HeaderError{p.Header, fmt.Sprintf("missing for argument %q", dotted)}
		}
		decoded, ok := DecodeHeaderValue(got)
		if !ok {
			return &HeaderError{p.Header, "holds invalid base64"}
		}
		if !sameValue(decoded, arg) {
			return &HeaderError{p.Header, fmt.Sprintf("%q does not match argument %q", got, dotted)}
		}
	}
	return nil
}

// sameValue reports whether the decoded header value s stands for the
// argument arg: the same string, the same boolean, or the same integer
// (compared as numbers: "42.0" stands for 42).
func sameValue(s string, arg []byte) bool {
	want, ok := paramValue(arg)
	if !ok {
		return false // not a value a header can carry
	}
	switch arg[0] {
	case '"':
		body, _ := decodeString(arg)
		return s == body
	case 't', 'f':
		return s == want
	}
	n, err := strconv.ParseFloat(s, 64)
	w, _ := strconv.ParseFloat(want, 64)
	return err == nil && n == w
}
