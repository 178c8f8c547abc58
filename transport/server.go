package transport

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ErrHangUp, returned by Session.Handle, asks the listener to drop the
// client's connection abruptly, as a crashing server would (serve's
// chaos): over HTTP the response stream is cut without a final chunk,
// over stdio the listener closes its output and stops.
var ErrHangUp = errors.New("transport: hang up on the client")

// This file is the contract between the listening half of the transports
// (a stdio server, the Streamable HTTP handler, legacy HTTP+SSE) and what
// answers the clients they accept (replayctl serve's tape, a recording
// pass-through). The listener owns the wire: framing, HTTP status, session
// ids, SSE streams. The Session owns the conversation: what is said back.

// Send writes one JSON-RPC message to the client, on the stream that
// belongs to the message being handled (a POST's response stream over
// HTTP, stdout over stdio). It returns when the message is handed to the
// wire, or with an error when the client is gone or ctx is done. The
// listener may reuse msg's memory only after Send returns.
type Send func(ctx context.Context, msg []byte) error

// Session is one live client session, as a listener sees it. A listener
// calls Handle once per message the client sends, possibly from several
// goroutines at once (HTTP: one per POST; a client's answer to a server
// request arrives while the request that asked it is still being
// handled), and Close once, when the client is gone or the listener stops.
type Session interface {
	// Handle takes one message from the client. For a request it sends,
	// through send and in order, what the server says while answering it
	// (notifications, requests to the client) and the answer last, and
	// returns when the answer is sent. For a notification or a response
	// it sends nothing, or may send what a server would, and returns at
	// once. It returns early with ctx's error when ctx is done (the
	// client went away), or with ErrHangUp to have the connection
	// dropped; an error returned for any other reason is logged by the
	// listener and ends that message's stream.
	Handle(ctx context.Context, msg []byte, send Send) error
	// SetUnsolicited gives the session where to send what belongs to no
	// request (a server notification or request between calls); the
	// listener calls it before the first Handle. Over HTTP it is the GET stream,
	// over stdio stdout. It may be nil if the listener has no such
	// stream; then the session keeps such messages or drops them.
	SetUnsolicited(send Send)
	// Close ends the session. It is called once; Handle is not called
	// after it.
	Close() error
}

// SessionInfo is what a listener knows of a new client session.
type SessionInfo struct {
	// ID is the session id the listener gave the client (Mcp-Session-Id
	// over Streamable HTTP in a session-based revision), or a name it
	// made up ("stdio", or one per stateless client).
	ID string
	// ProtocolVersion is the revision the client asked for, when the
	// listener could tell (initialize's params, or the
	// Mcp-Protocol-Version header); "" otherwise.
	ProtocolVersion string
	// Stateless says the client speaks a stateless revision (2026-07-28):
	// no handshake, no session id; each request stands alone.
	Stateless bool
	// Header holds the HTTP request headers that opened the session
	// (nil over stdio). Credential headers are in it: do not log it.
	Header http.Header
	// Paces says that the listener's Send honours WithPace: it writes a
	// message so marked in pieces. A session of a listener that does
	// not falls back to something else (serve's slow chaos: the whole
	// message after the time the pieces would have taken).
	Paces bool
}

// paceKey is the context key of WithPace.
type paceKey struct{}

type pace struct {
	chunk int
	pause time.Duration
}

// WithPace returns a ctx that asks a listener's Send to write the
// message chunk bytes at a time, pausing for pause after each piece but
// the last, as a slow server would (serve's slow chaos): over stdio the
// line is written in pieces, each flushed, the newline with the last;
// over HTTP the bytes of the response body or SSE event are flushed
// piece by piece. Only a listener that sets SessionInfo.Paces does it;
// others ignore it. The pauses honour ctx. chunk < 1 is taken as 1.
func WithPace(ctx context.Context, chunk int, pause time.Duration) context.Context {
	return context.WithValue(ctx, paceKey{}, pace{max(chunk, 1), pause})
}

// PaceOf returns the pace WithPace put into ctx; ok is false when there
// is none (write the message whole).
func PaceOf(ctx context.Context) (chunk int, pause time.Duration, ok bool) {
	p, ok := ctx.Value(paceKey{}).(pace)
	return p.chunk, p.pause, ok
}

// Sessions makes a Session for each client a listener accepts. Open is
// called from the listener's goroutines, concurrently; it returns an
// error when the session cannot be served (the listener answers it with a
// JSON-RPC error, or an HTTP 503 before a session exists).
type Sessions interface {
	Open(ctx context.Context, info SessionInfo) (Session, error)
}
