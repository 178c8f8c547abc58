package mcp

import "github.com/replayctl/replayctl/internal/jsonscan"

// RequestName is what a request of method acts on, as a report breaks
// results down by it: params.name of tools/call and prompts/get (the tool,
// the prompt), params.uri of resources/read (the resource). It is "" for
// other methods, and when params is not an object or the member is not a
// string.
func RequestName(method string, params []byte) string {
	key := ""
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		key = "name"
	case MethodResourcesRead:
		key = "uri"
	default:
		return ""
	}
	if !isObject(params) {
		return ""
	}
	var name string
	_ = jsonscan.Members(params, func(mb jsonscan.Member) bool {
		if !keyIs(mb, key) {
			return true
		}
		name, _ = decodeString(params[mb.Start:mb.End:mb.End])
		return false
	})
	return name
}
