package record

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// pendingRequests are the requests of a stdio client not yet answered,
// for StdioAwaitAnswers: the client's relay adds them, the server's
// takes them off, and allAnswered is closed once the client's input has
// ended and none is left. It also keeps the server's own requests the
// client has not answered, to say why a request may never be answered
// (a file cannot answer the server).
type pendingRequests struct {
	mu sync.Mutex // guards the fields below
	// ids holds the requests pending per id (jsonrpc.IDKey), oldest
	// first: a file may reuse an id before its first request is
	// answered, and each request waits for an answer of its own.
	ids map[string][]Unanswered
	// asked holds the server's requests the client has not answered, by
	// id, in the same way.
	asked map[string][]Unanswered
	n     int           // the requests in ids
	ended bool          // the client's input ended
	done  chan struct{} // closed once ended and n is 0
	// heard is when the server last wrote a message, answered closed
	// once it first answered a request of the client's: the drain
	// counts from the server's silence, and not before it is up.
	heard    time.Time
	answered chan struct{}
	// stopping: record is stopping the server (its stdin closed). A
	// server that then cancels its own questions (notifications/cancelled:
	// its input is gone) has not had them settled: the input never
	// answered them, and they stay in asked.
	stopping bool
}

// stop says that record is stopping the server (see stopping).
func (p *pendingRequests) stop() {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
}

func newPendingRequests() *pendingRequests {
	return &pendingRequests{ids: map[string][]Unanswered{}, asked: map[string][]Unanswered{}, done: make(chan struct{}), answered: make(chan struct{})}
}

// saw takes note of msg, a JSON message relayed in direction dir, read
// at line of its sender's input (from 1) and recorded as seq: a request
// of the client's is pending until the server answers it, or the client
// cancels it (notifications/cancelled, which the server need not
// answer). A server's answer to an id it was never sent changes nothing;
// an id sent twice before its answer needs two answers (or cancels), and
// an answer is taken for the oldest request of its id.
func (p *pendingRequests) saw(dir tape.Dir, msg []byte, line int, seq int64) {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if dir == tape.S2C {
		p.heard = time.Now()
	}
	switch {
	case m.Kind == jsonrpc.KindRequest && dir == tape.C2S:
		key := jsonrpc.IDKey(m.ID)
		p.ids[key] = append(p.ids[key], Unanswered{Method: m.Method, ID: clone(m.ID), Line: line, Seq: seq})
		p.n++
	case m.Kind == jsonrpc.KindRequest: // the server's
		key := jsonrpc.IDKey(m.ID)
		p.asked[key] = append(p.asked[key], Unanswered{Method: m.Method, ID: clone(m.ID), Seq: seq})
	case dir == tape.C2S && m.Kind == jsonrpc.KindNotification && m.Method == "notifications/cancelled":
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params(), &params) == nil && take(p.ids, params.RequestID) {
			p.n--
		}
	case dir == tape.S2C && m.Kind == jsonrpc.KindNotification && m.Method == "notifications/cancelled":
		// The server gave up a request of its own: nobody owes it an answer.
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if !p.stopping && json.Unmarshal(m.Params(), &params) == nil {
			take(p.asked, params.RequestID)
		}
	case dir == tape.S2C && jsonrpc.IsResponseKind(m.Kind):
		if take(p.ids, m.ID) {
			p.n--
			select {
			case <-p.answered:
			default:
				close(p.answered)
			}
		}
	case jsonrpc.IsResponseKind(m.Kind): // the client answered the server
		take(p.asked, m.ID)
	}
	p.settle()
}

// take takes the oldest request of id off reqs, if one is there, and
// reports whether one was.
func take(reqs map[string][]Unanswered, id json.RawMessage) bool {
	key := jsonrpc.IDKey(id)
	switch q := reqs[key]; len(q) {
	case 0:
		return false
	case 1:
		delete(reqs, key)
	default:
		reqs[key] = q[1:]
	}
	return true
}

// clone copies an id out of the line it was read in.
func clone(id json.RawMessage) json.RawMessage { return append(json.RawMessage(nil), id...) }

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
	if p.ended && p.n == 0 {
		select {
		case <-p.done:
		default:
			close(p.done)
		}
	}
}

// firstAnswer is closed once the server has answered a request of the
// client's (for MCP, initialize): a server still starting (npx or uvx
// with a cold cache, docker run pulling its image) has not.
func (p *pendingRequests) firstAnswer() <-chan struct{} { return p.answered }

// lastHeard is when the server last wrote a message (zero: never).
func (p *pendingRequests) lastHeard() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.heard
}

// inputHasEnded reports whether the client's input ended.
func (p *pendingRequests) inputHasEnded() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

// allAnswered is closed once the client's input has ended and every
// request it sent is answered or cancelled.
func (p *pendingRequests) allAnswered() <-chan struct{} { return p.done }

// left returns the client's requests still unanswered and the server's
// requests the client has not answered, each in the order they were
// recorded (by seq).
func (p *pendingRequests) left() (requests, asked []Unanswered) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bySeq(p.ids), bySeq(p.asked)
}

// bySeq flattens reqs in the order of their seqs.
func bySeq(reqs map[string][]Unanswered) []Unanswered {
	var all []Unanswered
	for _, q := range reqs {
		all = append(all, q...)
	}
	slices.SortFunc(all, func(a, b Unanswered) int { return cmp.Compare(a.Seq, b.Seq) })
	return all
}
