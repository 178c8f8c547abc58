package record

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrNoAnswer is returned by Script when a request got no answer in time.
var ErrNoAnswer = errors.New("record: no answer")

// Script sends msgs to conn in order and records the conversation into w
// as session. A request waits for its answer (up to timeout) before the
// next message; server notifications and requests that arrive meanwhile
// are recorded where they arrived. Server requests are not answered.
// Script returns when the last answer is recorded, or on the first error.
func Script(ctx context.Context, conn transport.Conn, session string, msgs [][]byte, w *tape.Writer, timeout time.Duration, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rec := recorder{w: w, session: session, start: time.Now()}
	for i, msg := range msgs {
		if i > 0 && o.pause > 0 {
			select { // as a client thinking between two messages
			case <-time.After(o.pause):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		req, err := jsonrpc.ParseStrict(msg)
		if err != nil {
			return fmt.Errorf("record: script message %d: %w", i, err)
		}
		if err := conn.Send(ctx, msg); err != nil {
			return fmt.Errorf("record: send script message %d: %w", i, err)
		}
		if err := rec.write(time.Now(), tape.C2S, msg, nil, nil); err != nil {
			return err
		}
		if req.Kind != jsonrpc.KindRequest {
			continue
		}
		if err := rec.awaitAnswer(ctx, conn, req.ID, timeout); err != nil {
			return fmt.Errorf("record: script message %d (%s): %w", i, req.Method, err)
		}
	}
	return nil
}

// Option configures Script.
type Option func(*options)

type options struct{ pause time.Duration }

// WithPause waits d between two client messages, so that the tape has a
// client's pace rather than a machine's.
func WithPause(d time.Duration) Option { return func(o *options) { o.pause = d } }

type recorder struct {
	w       *tape.Writer
	session string
	start   time.Time
	seq     int64
	lastUS  int64
}

func (r *recorder) write(at time.Time, dir tape.Dir, msg []byte, h *tape.HTTPMeta, sse *tape.SSEMeta) error {
	us := max(at.Sub(r.start).Microseconds(), r.lastUS) // keep t_us monotonic
	m := tape.Message{Seq: r.seq, TUS: us, Session: r.session, Dir: dir, Msg: msg, HTTP: h, SSE: sse}
	if err := r.w.Write(m); err != nil {
		return fmt.Errorf("record: write seq %d: %w", r.seq, err)
	}
	r.seq++
	r.lastUS = us
	return nil
}

// awaitAnswer records what the server sends until the answer to id.
func (r *recorder) awaitAnswer(ctx context.Context, conn transport.Conn, id []byte, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	key := jsonrpc.IDKey(id)
	for {
		select {
		case in, ok := <-conn.Incoming():
			if !ok {
				if err := conn.Err(); err != nil {
					return err
				}
				return fmt.Errorf("%w: the connection closed", ErrNoAnswer)
			}
			if err := r.write(in.At, tape.S2C, in.Msg, in.HTTP, in.SSE); err != nil {
				return err
			}
			m, err := jsonrpc.Parse(in.Msg)
			if err == nil && jsonrpc.IsResponseKind(m.Kind) && jsonrpc.IDKey(m.ID) == key {
				return nil
			}
		case <-t.C:
			return fmt.Errorf("%w within %s", ErrNoAnswer, timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
