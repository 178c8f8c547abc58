package session

// Parses handed on: a request and its answer are parsed once, when the
// tape is read, not again on their way through the actor.

import (
	"context"

	"github.com/replayctl/replayctl/jsonrpc"
)

// parsedSender is a connection that takes a message with its parse (the
// built-in mock's), and so does not parse it again.
type parsedSender interface {
	// SendParsed is Send of req.Raw; req is what jsonrpc.Parse(req.Raw)
	// gives.
	SendParsed(ctx context.Context, req jsonrpc.Message) error
}

// sendFirst is the first attempt to send msg, the message of it, on v:
// to its parsedSender with its parse when msg is the recorded message
// with only another id (the fresh id transform gave it, or none), which
// the recorded message's parse (it.RPC) gives without parsing msg; else
// as it is.
func sendFirst(ctx context.Context, v via, msg []byte, it *Item) error {
	if v.parsed != nil {
		if req, ok := it.RPC.Rebase(msg); ok {
			return v.parsed.SendParsed(ctx, req)
		}
	}
	return v.conn.Send(ctx, msg)
}

// parseLive is the parse of a live message from the target: when it is
// the recorded answer of the oldest request in flight with only its id
// changed (a target that answers as recorded, the built-in mock), that
// answer's parse gives it without parsing msg (jsonrpc.Message.Rebase),
// and as is that request; else msg is parsed, and as is nil.
func (r *receiver) parseLive(msg []byte) (m jsonrpc.Message, as *pend, err error) {
	if p := r.x.rq.oldest(); p != nil && p.expected != nil {
		if m, ok := p.expected.RPC.Rebase(msg); ok {
			return m, p, nil
		}
	}
	m, err = jsonrpc.Parse(msg)
	return m, nil, err
}

// sameBytes reports whether a and b are the same bytes in memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// oldest is the request sent first of those not answered yet, nil if
// there is none; deadlines are in send order, so it is the first in fifo
// not answered (the few answered before it are passed over).
func (r *requests) oldest() *pend {
	for i := r.head; i < len(r.fifo) && i < r.head+4; i++ {
		if p := r.fifo[i]; !p.answered() {
			return p
		}
	}
	return nil
}
