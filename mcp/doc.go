// Package mcp says what the Model Context Protocol means on the wire, per
// revision, for a replayer that sends recorded messages again: which era
// a message belongs to, which methods open a conversation or come from
// the server, which HTTP headers a request needs, how multi-round-trip
// requests and tasks show in results, and what the error codes mean. It
// is pure: functions over the raw bytes of jsonrpc messages, no I/O.
//
// # Two eras
//
// Session-based revisions (2024-11-05, 2025-03-26, 2025-06-18,
// 2025-11-25) open with a handshake: the client sends initialize (its
// protocolVersion, capabilities and clientInfo), the server answers with
// the version it agrees to and its own capabilities, and the client
// confirms with notifications/initialized. Everything after that belongs
// to the session. Over Streamable HTTP (from 2025-03-26; 2024-11-05 has
// HTTP+SSE) the server may hand out an Mcp-Session-Id, which every later
// request carries, with Mcp-Protocol-Version from 2025-06-18; a GET opens
// a stream for server messages, a DELETE ends the session. The server sends requests of its own
// (sampling/createMessage, roots/list, elicitation/create, ping), which
// the client answers with its own ids.
//
// The stateless revision (2026-07-28) has no handshake and no session.
// Each request stands alone: params._meta carries
// "io.modelcontextprotocol/protocolVersion" and
// "io.modelcontextprotocol/clientCapabilities" (and usually clientInfo);
// server/discover, optional, tells the versions and capabilities of the
// server. initialize, ping, logging/setLevel and resources/(un)subscribe
// are gone (SessionOnly); subscriptions/listen replaces the GET stream.
// Results say what they are in "resultType" (go-sdk leaves it off empty
// acknowledgements). Over HTTP every POST carries
// Mcp-Protocol-Version equal to the _meta version, Mcp-Method, Mcp-Name
// for tools/call, prompts/get and resources/read, and an Mcp-Param-<H>
// header for each tool argument the tool's schema annotates with
// x-mcp-header H; a server rejects a request whose headers are missing
// or differ from the body with HTTP 400 and error -32020. There are no
// server-to-client requests: a server that needs input answers
// tools/call, prompts/get or resources/read with an input_required
// result (inputRequests, maybe a requestState), and the client sends the
// request again, with a new id, inputResponses and that requestState
// (multi-round-trip requests, MRTR).
//
// A tape's era shows in its messages (MessageEra): initialize means
// session-based, a request with a 2026 _meta version means stateless. A
// 2026 client that probed a legacy server with server/discover and fell
// back recorded both; the initialize that follows decides.
//
// # How replayctl replays each
//
// Session-based: the recorded handshake is replayed first, the
// negotiated version and session id are kept for the requests that
// follow, and the server's own requests are answered from the tape.
//
// Stateless: no initialize is invented. Each request goes out with its
// recorded _meta; over HTTP its headers are derived from the message
// itself (StandardHeaders), with the x-mcp-header annotations learned
// from the tools/list results seen on the same connection (ToolHeaders),
// as a client does. An input_required answer is met by the recorded
// retry, into which the live server's requestState goes (SetRequestState):
// the server's state may differ from the recorded one, and the retry must
// echo what the server handed out, the way ids and session ids are
// mapped. A task is judged by its outcome (TaskID, TaskStatus,
// IsTerminal), not by the number of polls it took: the live task id
// replaces the recorded one in tasks/get, tasks/update and tasks/cancel.
//
// # Sources
//
// The rules follow the 2026-07-28 specification and go-sdk v1.8.0; where
// the two differ, the function says so. go-sdk sends and compares
// Mcp-Name raw, where the specification base64-encodes names that are not
// plain ASCII (EncodeHeaderValue). go-sdk has no tasks: those follow the
// 2025-11-25 specification and SEP-2663.
package mcp
