// Package record makes tapes from live MCP servers.
//
// Script plays a list of client messages to a server, as a simple client
// would (each request waits for its answer), and writes every message seen
// in either direction, with its time and transport metadata, to a tape.
// Tests use it to record the tapes they replay against the same servers.
//
// Tap is where recording proxies write what they see: numbered, timed,
// redacted, one line per message, safe for concurrent connections.
//
// HTTP is the recording reverse proxy for MCP over HTTP (Streamable HTTP of
// every revision, legacy HTTP+SSE), on net/http/httputil.ReverseProxy:
// `replayctl record --listen ADDR --upstream URL`. What it records:
//
//   - A client POST body (a request, a notification, a response to a server
//     request, a batch as it came) is read up to the message limit and
//     recorded (c2s) before it is relayed, with the request's Content-Type,
//     Accept and Mcp-* headers. An initialize without a session id is held
//     until its answer says which session it opens.
//   - Each message of an answer (s2c) — an application/json body, recorded
//     at its last byte, or each event of a text/event-stream, parsed as it
//     passes with transport.SSEReader — with the answer's status, its
//     Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After,
//     WWW-Authenticate and Location headers, and the event's SSE id, event
//     type and retry. A message of a GET stream resumed with Last-Event-ID
//     carries "last_event_id". A JSON-RPC error in a 4xx is a message like
//     any other.
//   - Never: the credential headers (tape.Sensitive: Authorization, Cookie,
//     Set-Cookie, X-Api-Key, …); answers without a JSON-RPC message (202, a
//     plain-text error: logged); the proxy's own 502; a message over the
//     limit (relayed whole, counted in Dropped and logged).
//
// Sessions are named as http_session.go says: per Mcp-Session-Id, per
// legacy SSE stream, and per client (IP address and clientInfo) for
// stateless traffic.
package record
