package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/transport"
)

// Verdict says how serve handled a client's message (Exchange).
type Verdict string

// The verdicts of an Exchange.
const (
	// Served: the request was answered from the tape (or, for a request
	// the tape lacks that every server answers, such as ping, as a server
	// of the tape's revision would).
	Served Verdict = "served"
	// Missed: the tape had no answer; the client got the mock.CodeMiss
	// error (in mode New: the upstream could not be reached either).
	Missed Verdict = "miss"
	// Forwarded: mode New sent the request to the upstream, and its
	// answer to the client.
	Forwarded Verdict = "forwarded"
	// Taken: a notification of the client, or its answer to a request of
	// the server; nothing is sent back.
	Taken Verdict = "taken"
	// Failed: the handling ended with an error before an answer went out:
	// the client went away, chaos hung up on it, the answer could not be
	// written. Detail says which.
	Failed Verdict = "error"
)

// Exchange is one message of a client and what serve answered, as an
// OnExchange hook is told once the answer is sent.
type Exchange struct {
	// Session is the listener's name of the client session
	// (transport.SessionInfo.ID): "stdio", an Mcp-Session-Id, or one per
	// stateless request.
	Session string
	// Seq counts the session's messages from 1, in the order they came.
	Seq int64
	// Kind is the client's message: request, notification, response or
	// error; Method a request's or notification's; Name what a request
	// acts on (mcp.RequestName: a tool, a prompt, a resource).
	Kind, Method, Name string
	Verdict            Verdict
	// Detail says why there was no answer from the tape (a miss's error
	// message) or why the handling failed.
	Detail string
	// Start is when the message came, End when its answer was sent (or
	// the handling ended).
	Start, End time.Time
	// Request is the client's message, Answer the last message sent for
	// it (nil: none). Both are valid during the hook only: copy what is
	// kept.
	Request, Answer []byte
	// Notes counts the messages sent for it before the answer
	// (notifications, requests to the client).
	Notes int
}

// tap is the Sessions of a Server with OnExchange or OnSessionEnded
// hooks: it hands each message to the tape's sessions and tells the
// hooks what came of it.
type tap struct {
	inner   transport.Sessions
	onX     []func(Exchange)
	onEnded []func(string, time.Time)
}

func (t *tap) Open(ctx context.Context, info transport.SessionInfo) (transport.Session, error) {
	s, err := t.inner.Open(ctx, info)
	if err != nil {
		return nil, err
	}
	return &tapSession{Session: s, t: t, id: info.ID}, nil
}

// tapSession is one client session of a tap.
type tapSession struct {
	transport.Session
	t   *tap
	id  string
	seq atomic.Int64
}

// forwardedKey is the context key of the flag a forwarding MissHandler
// sets (marked).
type forwardedKey struct{}

func (ts *tapSession) Handle(ctx context.Context, msg []byte, send transport.Send) error {
	x := Exchange{Session: ts.id, Seq: ts.seq.Add(1), Start: time.Now(), Request: msg, Verdict: Taken}
	m, perr := jsonrpc.Parse(msg)
	if perr == nil {
		x.Kind, x.Method = m.Kind.String(), m.Method
		if m.Kind == jsonrpc.KindRequest {
			x.Name = mcp.RequestName(m.Method, m.Params())
			x.Verdict = Served
		}
	}
	var fwd atomic.Bool
	ctx = context.WithValue(ctx, forwardedKey{}, &fwd)
	var mu sync.Mutex // guards answer and sent: a send may come from another goroutine
	var answer []byte
	sent := 0
	err := ts.Session.Handle(ctx, msg, func(ctx context.Context, out []byte) error {
		mu.Lock()
		sent++
		answer = append(answer[:0], out...)
		mu.Unlock()
		return send(ctx, out)
	})
	x.End = time.Now()
	mu.Lock()
	defer mu.Unlock()
	if sent > 0 {
		x.Answer, x.Notes = answer, sent-1
	}
	switch {
	case err != nil:
		x.Verdict, x.Detail = Failed, err.Error()
	case fwd.Load():
		x.Verdict = Forwarded
	case x.Verdict == Served && sent > 0:
		if reason, ok := missOf(answer); ok {
			x.Verdict, x.Detail = Missed, reason
		}
	}
	for _, f := range ts.t.onX {
		f(x)
	}
	return err
}

func (ts *tapSession) Close() error {
	err := ts.Session.Close()
	now := time.Now()
	for _, f := range ts.t.onEnded {
		f(ts.id, now)
	}
	return err
}

// missOf reports whether answer is the mock.CodeMiss error, and its
// message.
func missOf(answer []byte) (string, bool) {
	if !bytes.Contains(answer, []byte(`"error"`)) {
		return "", false
	}
	var e struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(answer, &e) != nil || e.Error == nil || e.Error.Code != mock.CodeMiss {
		return "", false
	}
	return e.Error.Message, true
}

// marked is a MissHandler that marks, on the Exchange being handled, the
// requests it answered (Forwarded).
type marked struct{ mock.MissHandler }

func (h marked) Miss(ctx context.Context, live *mock.Live, req []byte, send transport.Send) error {
	err := h.MissHandler.Miss(ctx, live, req, send)
	if f, ok := ctx.Value(forwardedKey{}).(*atomic.Bool); ok && err == nil {
		f.Store(true)
	}
	return err
}
