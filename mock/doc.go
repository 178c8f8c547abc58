// Package mock serves a tape as an MCP server: each request is answered
// with the answer recorded for the same method and params, in recorded
// order, its id rewritten to the caller's. A recorded request whose params
// a redaction left a marker in ([redacted:…], see tape.Redactor) matches
// any params of its method: its recorded value is gone.
//
// It has two faces. Mock is the built-in target of `replayctl run` (a
// transport.Dialer answering the replay's own recorded requests). Server
// answers live clients for `replayctl serve` and replaytest.Server: it
// implements transport.Sessions, and the listeners of package transport
// (stdio, Streamable HTTP, legacy HTTP+SSE) hand each client's messages
// to the Session it opens.
//
// Both read the tape once into an index of each recorded session's
// requests paired with their answers; every connection, and every virtual
// copy of a session, answers from that one index with only a cursor of
// its own. Its memory grows with the tape's requests, not with the number
// of sessions: a request costs about 32 bytes (its method, a hash of its
// params; a Server's index adds where the request is and when it was
// recorded); the answers and server notifications of a large native tape
// are read back from the file when asked for, those of a small or
// imported tape are kept in memory.
//
// # Server: matching
//
// A live request is answered only by a recorded request of the same
// method; the Strategy says what else must agree: exact (the params as
// JSON, every field), method_and_params (the default: the params as JSON
// with the volatile fields left out), method, subset (the recorded params
// contain the live ones) or sequential (the next recorded request, whose
// method must be the live one's). Volatile fields (DefaultVolatile:
// _meta's progressToken, client info and capabilities, W3C trace context;
// initialize's clientInfo and capabilities) change from run to run
// without changing the answer; WithVolatile adds paths, per method or for
// all. Identical repeated calls get their recorded answers in recorded
// order; past the recorded count they miss, or with WithRepeat start
// over. A ping the tape does not have is answered {}; the client's
// notifications are taken silently.
//
// # Server: sessions
//
// A session-based client (initialize, ≤ 2025-11-25) is bound, by its
// first request, to a recorded session whose first request matches it
// (or else one holding a matching request), in turn over those that do,
// so that concurrent clients spread over the recorded sessions alike —
// those whose first request has the very params, volatile members
// included (initialize's clientInfo), first, so that recorded clients
// told apart only by their names each get their own recording; it
// keeps a cursor of its own, so a one-session tape serves any number of
// clients at once, each as the recorded one. Stateless traffic
// (2026-07-28, SessionInfo.Stateless) may come as one Session per HTTP
// request: its state is in the Server, one cursor per recorded session
// shared by all stateless clients under a lock; a request takes the first
// matching recorded request not answered yet, and once all are answered
// they are answered again in recorded order. A multi-round-trip request
// needs nothing special: the recorded input_required answer hands the
// client the recorded requestState, the retry carries it back, and
// matching finds the recorded retry.
//
// # Server: around the answer
//
// What the server recorded between a request and its answer is sent
// first, in order, on the request's stream: notifications (progress ones
// with the live request's progressToken) and the server's own requests
// (sampling, elicitation, roots), each with a fresh id unique in the
// Server; the session waits for the client's answer, which arrives in a
// concurrent Handle, for WithAskTimeout at most (then it records a Miss
// and goes on). The answer goes last with the live id. Timing: at once,
// or with WithLatency each message as long after the live request as it
// was recorded after the recorded one (× a factor). Every wait honours
// ctx and the session's Close.
//
// # Server: misses
//
// A request the tape cannot answer gets a JSON-RPC error with code
// CodeMiss (-32090) whose message says why (no such method on the tape,
// no request like it left, sequential's next request is another, all
// answered already) and names the closest recorded request (same method,
// fewest differences) with the paths and values that differ; its data is
// the Miss, secrets masked (tape.Mask, tape.Sensitive). Server.Misses
// keeps every one, for serve to list when it stops.
//
// Before that, a session-based client's request that its recorded session
// cannot answer (none like it left) is looked for in that session's kin:
// the other recorded sessions holding a request like the client's first,
// each with a cursor of the live session's own (not for sequential). This
// is how the sessions serve --mode new adds (a client's handshake and the
// requests the tape missed) answer a later client along with the session
// it is bound to.
//
// WithMissHandler hands misses to a MissHandler instead (serve --mode
// new's forward.Forwarder: the real server answers), with what it needs
// of the live session (Live: the client's handshake; its notifications,
// its answers to the handler's requests, its end). A miss the handler
// cannot answer is a Miss as above, its reason saying why.
//
// # Server: chaos toward the client
//
// WithChaos(NewChaos(seed, faults, targets...)) spoils answers: delay,
// slow (written in pieces when the listener can: transport.WithPace),
// missing, error, malformed, out-of-order and hang-up
// (transport.ErrHangUp); see ChaosKind. Each serve fault is decided as
// one of package chaos's kinds (its carrier), so chaos.Plan.Decide's pure
// hash of (seed, session, seq) decides: the session is the live session's
// copy name ("s1#2": the second live client bound to s1; for stateless
// traffic the round), never a listener's random session id nor the time
// of arrival, so the same client script gets the same faults from the
// same seed. Server.Injected lists them.
package mock
