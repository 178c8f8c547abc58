// Package match is the small condition language shared by debug
// breakpoints (controller), transformation rules (transformer, the
// "when:" key) and validation scopes: does this message match?
//
// Parse reads a spec. A bare integer is a seq ("12"); a word that looks
// like a method is a method ("ping", "tools/call"); anything else is an
// expression of github.com/expr-lang/expr that must give a bool, over the
// message:
//
//	seq      int     the message's position in the tape
//	session  string  the recorded session
//	dir      string  "c2s" or "s2c"
//	kind     string  "request", "notification", "response" or "error"
//	method   string  the method, "" for an answer
//	id       any     the JSON-RPC id, decoded (a number or a string), or nil
//	params   any     the decoded params (maps, lists, strings, float64, bool), or nil
//	result   any     the decoded result, or nil
//	error    any     the decoded error object, or nil
//
// for example
//
//	method == "tools/call" && params.arguments.message == "m7"
//	params.name in ["echo", "add"] && seq > 10
//	error.code == -32601
//
// A missing member anywhere in a path is nil, never an error
// (params.arguments.message on a message without params). A condition that
// fails at run time (an index out of range, a string plus a number) does
// not match and returns the error. Parse errors wrap ErrBadCondition and
// name the spec and, for an expression, the column.
//
// A Condition is immutable and safe for concurrent use. Checking several
// conditions against one message, use an Env so the message is decoded
// once: seq and method conditions never decode it at all.
//
// The package is internal: its Msg is the one message type of conditions,
// which the public packages name as their own (controller.Msg and
// controller.Condition, transformer.Msg).
package match
