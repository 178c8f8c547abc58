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
// Script plays a list of client messages to a server, as a simple client
// would (each request waits for its answer), and writes every message seen
// in either direction to a tape; tests use it to record the tapes they
// replay against the same servers.
package record
