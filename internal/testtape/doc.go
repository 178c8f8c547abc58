// Package testtape records tapes from live servers for tests.
//
// Record plays a fixed list of client messages (a Conversation) to a
// target through replayctl's own transports. RecordClient instead drives a
// real client, the Go SDK's (github.com/modelcontextprotocol/go-sdk,
// pinned in go.mod), through a recording wrapper of its transport: the
// tape holds what that client and the server said to each other, in the
// protocol revision they agreed on (2026-07-28 by default, with
// server/discover and multi-round-trip tool calls; or 2025-11-25, with
// initialize and server-to-client requests). ScriptAll is the session
// recorded for issue 12: tools, resources, prompts, elicitation, sampling
// and a multi-round call.
//
// Helpers fail the test on any error. Every exchange is bounded by a
// timeout; nothing here waits without one.
package testtape
