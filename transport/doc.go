// Package transport connects replayctl to live MCP targets as a faithful
// MCP client: every Conn sends raw JSON-RPC bytes and delivers the raw
// bytes the target answers, with the transport metadata (HTTP status and
// headers, SSE id, event type and retry) the tape keeps.
//
// Targets:
//   - Stdio: a subprocess per session, newline-delimited JSON on stdin and
//     stdout. Non-JSON stdout lines (banners) are logged, counted and
//     dropped; stderr goes to the logger and its tail into the error when
//     the server dies. Close closes stdin, then
//     sends SIGTERM, then SIGKILL, to the server's process group.
//   - HTTP: Streamable HTTP (MCP 2025-06-18). Each Send is a POST that
//     returns once the answer's headers are in; a goroutine per answer
//     reads its JSON or SSE body onto Incoming. The Mcp-Session-Id of the
//     initialize answer and the negotiated MCP-Protocol-Version are sent
//     on every later request; the standalone GET stream is opened before
//     notifications/initialized is posted, which waits for the server's
//     answer to it (see Send); dropped streams are resumed with
//     Last-Event-ID; Close sends DELETE.
//   - LegacySSE: the 2024-11-05 HTTP+SSE transport (GET stream naming a
//     POST endpoint).
//   - Handler and Pipe: a server in this process, for replays from a Go
//     test. Handler is HTTP's connection whose http.Client calls an
//     http.Handler in memory (a goroutine per request, answers streamed as
//     the handler writes them). Pipe starts a Serve function per session
//     on a pair of OS pipes and speaks to it as Stdio does to a
//     subprocess; a Serve that returns before Close is the connection's
//     failure, as a process exit is.
//
// Redirects (NewClient's policy): a redirect within the target's origin
// (scheme, host, port) is followed; one to another origin fails the
// request with an error wrapping ErrRedirect unless FollowRedirects is
// given, and even then only the protocol's own headers go there
// (ForOtherOrigin), never the user's Header, a cookie or the session id.
// A legacy server's message endpoint on another origin is treated the
// same way. Header values may take ${NAME} from the environment:
// HeaderSecrets lists what they take, for the caller to redact.
//
// SSEReader is the event-stream decoder all HTTP transports share.
//
// LineConn is the listening half of stdio: a server's side of
// newline-delimited JSON-RPC over any reader and writer (the process's
// own stdin and stdout, or pipes), lines read within MaxMessage with
// their raw bytes kept, whole lines written safely from several
// goroutines. `replayctl record` relays a client through one.
//
// Listeners (the server side, server.go's contract: a listener owns the
// wire, a Session of a Sessions owns what is said): ServeStdio serves one
// client over newline-delimited JSON on any pair of streams;
// StreamableHandler serves Streamable HTTP in both eras (session ids, the
// GET stream, resumable event streams, batches; stateless 2026-07-28 with
// one Session per POST and its standard headers checked); LegacyHandler
// serves the 2024-11-05 HTTP+SSE transport; Mux puts the two HTTP
// listeners behind one handler. They bound what a client sends by
// ServerMaxMessage, refuse non-loopback browser origins on a loopback
// listener (AllowOrigins), answer faults with JSON-RPC error bodies, and
// cut the connection when a Session returns ErrHangUp. All of them set
// SessionInfo.Paces: a message sent with a WithPace ctx goes out in
// pieces (a stdio line, a JSON body, an SSE event). SSEWriter writes
// their event streams. `replayctl serve` and replaytest.Server use them.
// ServeUntil serves an HTTP handler on a listener until a context is
// done, then shuts it down in one order (BeforeShutdown hooks, at most
// ShutdownTimeout for the requests in progress), capping its connections
// with a ConnLimiter (LimitConns): serve's listener, record's proxy and
// the CLI's --metrics use it.
//
// Limits: nothing a target sends is read without a bound. A message (a
// stdout line, a JSON body counted after decompression, an SSE event's
// data, each SSE line) may be MaxMessage bytes long, DefaultMaxMessage
// (16 MiB) unless the dialer says otherwise; a longer one is read no
// further than the limit and ends its connection: Incoming closes and
// Err is a *TooLargeError, which matches ErrTarget. Error bodies, the
// start of a stderr line and the tails kept for errors have small fixed
// bounds of their own.
//
// Goroutines: each Conn owns the goroutines that read from its target and
// Close waits for all of them. Incoming is unbuffered: a consumer that
// stops reading stops the reading of the target (backpressure), never
// loses messages.
package transport
