package session

// Server notifications compared with the recorded ones
// (ValidateNotifications).

import (
	"context"
	"fmt"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// liveNote is a notification the live server sent.
type liveNote struct {
	method string
	inc    *transport.Incoming
	used   bool
}

// compareNotes pairs the session's recorded server notifications with the
// live ones, by method in order, for validate to compare; a recorded one
// that never came and a live one that was not recorded are reported too.
func (r *requests) compareNotes(ctx context.Context, ss *session) error {
	x := r.x
	for _, rec := range ss.recNotes {
		o := &Outcome{Epoch: rec.Epoch, Req: rec, Expected: rec, Note: true}
		for i := range ss.liveNotes {
			if l := &ss.liveNotes[i]; !l.used && l.method == rec.RPC.Method {
				l.used, o.Actual = true, l.inc
				break
			}
		}
		if o.Actual == nil {
			o.Err = fmt.Errorf("the recorded notification %s never came", rec.RPC.Method)
		}
		if err := x.emit(ctx, o); err != nil {
			return err
		}
	}
	for _, l := range ss.liveNotes {
		if !l.used {
			it := &Item{Rec: tape.Message{Seq: -1, Session: ss.name, Dir: tape.S2C, Msg: l.inc.Msg}}
			it.RPC, _ = jsonrpc.Parse(l.inc.Msg)
			if err := x.emit(ctx, &Outcome{Req: it, Actual: l.inc, Note: true, Err: fmt.Errorf("notification %s was not recorded", l.method)}); err != nil {
				return err
			}
		}
	}
	ss.recNotes, ss.liveNotes = nil, nil
	return nil
}
