package record

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// pendingRequests are the requests of a stdio client not yet answered,
// for StdioAwaitAnswers: the client's relay adds them, the server's
// takes them off, and allAnswered is closed once the client's input has
// ended and none is left.
type pendingRequests struct {
	mu    sync.Mutex          // guards the fields below
	ids   map[string]struct{} // the ids as sent, without surrounding space
	ended bool                // the client's input ended
	done  chan struct{}       // closed once ended and ids is empty
}

func newPendingRequests() *pendingRequests {
	return &pendingRequests{ids: map[string]struct{}{}, done: make(chan struct{})}
}

// saw takes note of msg, a JSON message relayed in direction dir: a
// request of the client's is pending until the server answers it, or the
// client cancels it (notifications/cancelled, which the server need not
// answer). A server's answer to an id it was never sent changes nothing.
func (p *pendingRequests) saw(dir tape.Dir, msg []byte) {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case dir == tape.C2S && m.Kind == jsonrpc.KindRequest:
		p.ids[string(bytes.TrimSpace(m.ID))] = struct{}{}
	case dir == tape.C2S && m.Kind == jsonrpc.KindNotification && m.Method == "notifications/cancelled":
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params(), &params) == nil {
			delete(p.ids, string(bytes.TrimSpace(params.RequestID)))
		}
	case dir == tape.S2C && jsonrpc.IsResponseKind(m.Kind):
		delete(p.ids, string(bytes.TrimSpace(m.ID)))
	}
	p.settle()
}

// inputEnded says the client's input ended: no request comes any more.
func (p *pendingRequests) inputEnded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	p.settle()
}

// settle closes done once the input ended and every request is answered.
// The caller holds mu.
func (p *pendingRequests) settle() {
	if p.ended && len(p.ids) == 0 {
		select {
		case <-p.done:
		default:
			close(p.done)
		}
	}
}

// allAnswered is closed once the client's input has ended and every
// request it sent is answered or cancelled.
func (p *pendingRequests) allAnswered() <-chan struct{} { return p.done }
