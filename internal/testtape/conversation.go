package testtape

import (
	"fmt"
	"strings"
)

// Conversation is what a client says in a session of n tools/call
// requests: initialize, notifications/initialized, then the calls of tool
// with ids 1…n. args is the arguments object; a %d in it is replaced by
// the call's number, so that the calls differ.
func Conversation(tool, args string, n int) [][]byte {
	msgs := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replayctl-test","version":"0"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
	}
	for i := 1; i <= n; i++ {
		a := args
		if strings.Contains(a, "%d") {
			a = fmt.Sprintf(args, i)
		}
		msgs = append(msgs, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i, tool, a))
	}
	return msgs
}
