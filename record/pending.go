package record

import (
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
	mu sync.Mutex // guards the fields below
	// ids counts the requests pending per id (jsonrpc.IDKey): a file may
	// reuse an id before its first request is answered, and each request
	// waits for an answer of its own.
	ids   map[string]int
	ended bool          // the client's input ended
	done  chan struct{} // closed once ended and ids is empty
}

func newPendingRequests() *pendingRequests {
	return &pendingRequests{ids: map[string]int{}, done: make(chan struct{})}
}

// saw takes note of msg, a JSON message relayed in direction dir: a
// request of the client's is pending until the server answers it, or the
// client cancels it (notifications/cancelled, which the server need not
// answer). A server's answer to an id it was never sent changes nothing;
// an id sent twice before its answer needs two answers (or cancels).
func (p *pendingRequests) saw(dir tape.Dir, msg []byte) {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case dir == tape.C2S && m.Kind == jsonrpc.KindRequest:
		p.ids[jsonrpc.IDKey(m.ID)]++
	case dir == tape.C2S && m.Kind == jsonrpc.KindNotification && m.Method == "notifications/cancelled":
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params(), &params) == nil {
			p.answered(params.RequestID)
		}
	case dir == tape.S2C && jsonrpc.IsResponseKind(m.Kind):
		p.answered(m.ID)
	}
	p.settle()
}

// answered takes one request of id off, if one is pending. The caller
// holds mu.
func (p *pendingRequests) answered(id json.RawMessage) {
	key := jsonrpc.IDKey(id)
	switch n := p.ids[key]; {
	case n > 1:
		p.ids[key] = n - 1
	case n == 1:
		delete(p.ids, key)
	}
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
