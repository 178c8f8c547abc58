package tape

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"strings"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// Sessions, protocol versions and bodies of HAR entries.

// harSessions names the sessions of a HAR's exchanges.
type harSessions struct {
	byID  map[string]string // Mcp-Session-Id → name
	byURL map[string]string // endpoint → name of its current session without id
	n     int
}

func (s *harSessions) fresh() string {
	s.n++
	return fmt.Sprintf("s%d", s.n)
}

// of names the session of one exchange; found are its messages.
func (s *harSessions) of(e *harEntry, found []Message) string {
	id := header(e.Request.Headers, mcp.HeaderSessionID)
	if id == "" {
		id = header(e.Response.Headers, mcp.HeaderSessionID)
	}
	if id != "" {
		if name, ok := s.byID[id]; ok {
			return name
		}
		name := s.fresh()
		s.byID[id] = name
		return name
	}
	init := false
	for _, m := range found {
		if m.Dir == C2S && requestMethod(m.Msg) == mcp.MethodInitialize {
			init = true
		}
	}
	name, ok := s.byURL[e.Request.URL]
	if !ok || init {
		name = s.fresh()
		s.byURL[e.Request.URL] = name
	}
	return name
}

// messageVersion is the protocol version a message or its headers name:
// initialize's, a 2026 _meta version, or Mcp-Protocol-Version.
func messageVersion(msg []byte, h []harNV) string {
	var s string
	for _, path := range [][]string{{"params", "protocolVersion"}, {"result", "protocolVersion"}, {"params", "_meta", mcp.MetaProtocolVersion}} {
		if v := pick(msg, path...); v != nil && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return header(h, mcp.HeaderProtocolVersion)
}

// mediaTypeOf is a Content-Type or mimeType without parameters, lower case.
func mediaTypeOf(v string) string {
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.SplitN(v, ";", 2)[0]))
	}
	return mt
}

// body returns the bytes of a HAR text, decoding base64.
func harBody(text, encoding string) ([]byte, error) {
	if !strings.EqualFold(encoding, "base64") {
		return []byte(text), nil
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(text, "="))
	}
	return b, err
}

// rpcBody returns a body as a JSON-RPC message (object or batch),
// compact when it spanned lines, or nil when it is not one.
func rpcBody(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') || !json.Valid(b) {
		return nil
	}
	m, err := jsonrpc.Parse(b)
	if err != nil || m.Kind == jsonrpc.KindInvalid {
		return nil
	}
	if m.Kind == jsonrpc.KindBatch {
		parts, err := m.Batch()
		if err != nil || len(parts) == 0 {
			return nil
		}
		for _, p := range parts {
			if p.Kind == jsonrpc.KindInvalid || p.Kind == jsonrpc.KindBatch {
				return nil
			}
		}
	}
	if bytes.ContainsAny(b, "\r\n") {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			return c.Bytes()
		}
	}
	return bytes.Clone(b)
}
