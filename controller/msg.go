package controller

import (
	"context"

	"github.com/replayctl/replayctl/scheduler"
)

// Msg is what the gate and breakpoints see of a message about to be sent.
type Msg struct {
	Seq     int64
	Session string
	Dir     string // "c2s" or "s2c"
	Kind    string // request, notification, response, error
	Method  string
	ID      string // the raw JSON id, or ""
	Raw     []byte // the bytes to send
	// Epoch is the engine's epoch of the message: each Replay.Seek gives
	// the messages loaded after it a higher epoch than any before it. Gate
	// answers ErrStale for a message older than the last Seek.
	Epoch uint64
}

// Replay is what the controller needs from the engine. The engine
// implements it; tests use a fake.
type Replay interface {
	// Seek repositions the loader at seq and bumps the epoch, so that
	// nothing stale is sent after it returns. It is called from the
	// goroutine of Controller.Seek, never from the controller's own.
	Seek(ctx context.Context, seq int64) error
	// SetSpeed changes the pacing. It must not block: it is called from
	// the controller's goroutine.
	SetSpeed(s scheduler.Speed)
	// Inject sends a message that is not on the tape, on the session's
	// connection. Called from the goroutine of Controller.Inject.
	Inject(ctx context.Context, session string, msg []byte) error
	// Lookup returns the tape's message with that seq, for SeekMatch (and
	// for a front end's list and print). Called from the goroutine of the
	// command, never from the controller's own.
	Lookup(seq int64) (Msg, bool)
}
