package controller

import (
	"context"

	"github.com/replayctl/replayctl/internal/match"
	"github.com/replayctl/replayctl/scheduler"
)

// Msg is what the gate and breakpoints see of a message about to be sent
// (Raw: the bytes to send): the message of the condition language, which
// breakpoints share with transformation rules. Its epoch is not part of
// it: Admit takes it beside the message.
type Msg = match.Msg

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
