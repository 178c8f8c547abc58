package main

import (
	"fmt"
	"strings"
)

// warmPrefix begins the id of every warm-up call, a JSON string: in the
// slow server's arrival log its third field is "warm-K", quotes and all.
const warmPrefix = `"warm-`

// warmID is the JSON id of the k-th warm-up call.
func warmID(k int) string { return fmt.Sprintf(`%s%d"`, warmPrefix, k) }

// isWarm reports whether the id field of an arrival line is a warm-up
// call's.
func isWarm(id string) bool { return strings.HasPrefix(id, warmPrefix) }

// warmCall is the body of the k-th warm-up call: call's, with a warm id.
func warmCall(k int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"text":"w%d"}}}`, warmID(k), k)
}
