// Package slowmcp is the protocol side of the slow test server
// (../slow): a tiny, deterministic MCP server whose tools/call answers can
// be delayed, whose arrivals can be logged with their times, and which can
// be told to hang in the ways real servers do, or to send more than a
// client should read (an answer without end, a gzip bomb, an SSE line
// without end, an answer of any size). It is for timing, load, hang and
// memory tests of a replayer.
//
// It speaks JSON-RPC 2.0 in two framings: [Handler] is a stateless
// Streamable HTTP endpoint (POST a message, get one application/json
// answer; no session id, no SSE) and [Serve] reads newline-delimited
// messages from a reader and writes answers to a writer (stdio).
//
// What the server answers is a pure function of the message ([Parse],
// [Answer]): initialize echoes a known protocol version, tools/list offers
// one tool "echo", tools/call of any tool answers arguments.text (or "ok")
// as text content, ping answers {}, anything else is -32601. So an answer
// recorded from it matches the live one.
package slowmcp
