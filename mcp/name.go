package mcp

import (
	"bytes"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// RequestName is what a request of method acts on, as a report breaks
// results down by it: params.name of tools/call and prompts/get (the tool,
// the prompt), params.uri of resources/read (the resource). It is "" for
// other methods, and when params is not an object or the member is not a
// string.
func RequestName(method string, params []byte) string {
	name, _ := decodeString(requestNameRaw(method, params))
	return name
}

// requestNameRaw is the JSON value RequestName decodes, as it is in
// params, or nil.
func requestNameRaw(method string, params []byte) []byte {
	key := ""
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		key = "name"
	case MethodResourcesRead:
		key = "uri"
	default:
		return nil
	}
	if !isObject(params) {
		return nil
	}
	var raw []byte
	_ = jsonscan.Members(params, func(mb jsonscan.Member) bool {
		if !keyIs(mb, key) {
			return true
		}
		raw = params[mb.Start:mb.End:mb.End]
		return false
	})
	return raw
}

// Names is RequestName that makes each name's string once: a name seen
// before is the string made the first time, where RequestName makes one
// per request (a replay of 100,000 tools/call made 100,000 strings of one
// tool's name: most of its allocations). It keeps at most MaxNames names
// of at most MaxNameLen bytes; other names are made each time. The zero
// Names is ready for use; a Names is not safe for concurrent use.
type Names struct{ seen map[string]string }

// MaxNames and MaxNameLen bound what a Names keeps: a tape of ever new
// names (a resources/read of each of a million URIs) holds at most
// MaxNames × MaxNameLen bytes of them.
const (
	MaxNames   = 4096
	MaxNameLen = 256
)

// RequestName is mcp.RequestName, the string of a name seen before the
// one made the first time.
func (n *Names) RequestName(method string, params []byte) string {
	raw := requestNameRaw(method, params)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if len(inner) > MaxNameLen || bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		name, _ := decodeString(raw)
		return name
	}
	if name, ok := n.seen[string(inner)]; ok { // looked up without a string made
		return name
	}
	name := string(inner)
	if len(n.seen) < MaxNames {
		if n.seen == nil {
			n.seen = make(map[string]string)
		}
		n.seen[name] = name
	}
	return name
}
