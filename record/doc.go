// Package record makes tapes from live MCP traffic.
//
// Stdio is the stdio recording proxy behind `replayctl record -o TAPE --
// SERVER_COMMAND`: a real client starts it as its server; it starts the
// real server, relays every line both ways byte for byte (nothing
// re-encoded, nothing reordered) and records every JSON message with its
// time and direction. A line is recorded before it is forwarded, so an
// answer never precedes its request on the tape. Lines that are not JSON
// are relayed but not recorded (logged and counted). The server's stderr
// passes through. The client closing its input, the server exiting, a
// cancelled context and a line over the size limit each end it cleanly:
// see Stdio for the contract.
//
// Tap is where every proxy writes: it numbers, times and redacts messages
// (WithRedactor) and appends each as one line of a tape, so a killed
// proxy leaves every whole line. NewLazyTap creates the tape only once
// the protocol version of the session is known (the answer to initialize,
// or the _meta of a 2026-07-28 request), holding the few messages of the
// handshake until then, so that the header can say it.
//
// Dialer records the other way round: it wraps the transport.Dialer of a
// replay, so that every message the replayer sends and every message the
// target answers goes into a Tap as it passes (replay.Rerecord, `replayctl
// run --rerecord OUT`: a tape refreshed from a live server).
//
// Script plays a list of client messages to a server, as a simple client
// would (each request waits for its answer), and writes every message seen
// in either direction to a tape; tests use it to record the tapes they
// replay against the same servers.
//
// HTTP is the recording reverse proxy for MCP over HTTP (Streamable HTTP of
// every revision, legacy HTTP+SSE), on net/http/httputil.ReverseProxy:
// `replayctl record --listen ADDR --upstream URL`. It records through one
// lazy Tap for all its clients: the tape file is created once the
// protocol version is learned from an exchange the server accepted (the
// result answering initialize, or a result answering a 2026-07-28 request
// with its _meta version; a refused request, such as a server/discover
// probe answered 400, teaches nothing), so that the header says it. What
// it records:
//
//   - A client POST body (a request, a notification, a response to a server
//     request, a batch as it came) is read up to the message limit before
//     it is relayed, and recorded (c2s) when the upstream's answer starts:
//     with the request's Content-Type, Accept and Mcp-* headers, the
//     answer's status, and its Retry-After, WWW-Authenticate and Location
//     headers — so a 202, or a 401, 403, 404 or 429 without a JSON-RPC
//     body, is kept on the message it answered. It is on the tape before
//     any message of its answer; its t_us is when the request came in.
//     A request that fails without an answer (the upstream cut or
//     unreachable, the client gone, Stop) is recorded then, without a
//     status. So a request whose answer has not started is not on the
//     tape yet: a kill -9 then loses it. An initialize without a session
//     id waits for the first message of its answer, which says which
//     session it opens. A legacy HTTP+SSE POST is recorded as it comes,
//     without a status: its answer comes on the session's GET stream,
//     maybe before the POST's 202.
//   - Each message of an answer (s2c) — an application/json body, recorded
//     at its last byte, or each event of a text/event-stream, parsed as it
//     passes with transport.SSEReader — with the answer's status, its
//     Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After,
//     WWW-Authenticate and Location headers, and the event's SSE id, event
//     type and retry, before the client gets its bytes. A message of a GET
//     stream resumed with Last-Event-ID carries "last_event_id". A JSON-RPC
//     error in a 4xx is a message like any other (one with a null id too:
//     a replay pairs it with the request its POST carried).
//   - Never: the credential headers (tape.Sensitive: Authorization, Cookie,
//     Set-Cookie, X-Api-Key, …); the body of an answer without a JSON-RPC
//     message (a plain-text error: logged; its status is on the client's
//     message); the proxy's own 502; a message over the limit (relayed
//     whole, counted in Dropped and logged).
//
// Before relaying, the proxy judges each request as the server behind it
// would (transport.Guard, DNS rebinding protection: a Host that is not
// one of the proxy's names, a browser Origin not allowed, is answered 403;
// WithAllowHosts, WithAllowOrigins) and relays only the MCP endpoint (the
// upstream URL's path, a legacy message endpoint a stream announced; 404
// for any other path). Neither reaches the upstream or the tape. What is
// relayed names the upstream by its own Host (see HTTP.rewrite).
//
// Sessions are named as http_session.go says: per Mcp-Session-Id, per
// legacy SSE stream, and per client for traffic without a session id
// (told apart by IP address and clientInfo, then by JSON-RPC ids and
// connections: see lanes).
package record
