package tape

import (
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// logKey is what deciding a line's direction needs of it.
type logKey struct {
	kind   jsonrpc.Kind
	method string
	id     string // jsonrpc.IDKey of its id
	mark   string
}

func keyOf(l logLine) logKey {
	return logKey{kind: l.rpc.Kind, method: l.rpc.Method, id: jsonrpc.IDKey(l.rpc.ID), mark: l.mark}
}

// logDirs infers who sent each line of a JSON-RPC log (see DecodeLog),
// given the lines in order, twice: the first time (learning) from the
// messages that decide it, which also teach what the log's relative marks
// ("send", "-->") mean; after decide, again from the first line, with
// what all of them taught. It keeps the requests not yet answered, by id,
// and counts; not the lines.
type logDirs struct {
	// votes[mark][dir]: how often a mark went with a decided direction.
	votes map[string]map[Dir]int
	// pending requests by sender and id, to send responses the other way
	pending  map[Dir]map[string]int
	i        int
	learning bool
}

func newLogDirs() *logDirs {
	return &logDirs{votes: map[string]map[Dir]int{"a": {}, "b": {}}, pending: map[Dir]map[string]int{C2S: {}, S2C: {}}, learning: true}
}

// decide ends learning.
func (ld *logDirs) decide() {
	ld.learning = false
	ld.restart()
}

// restart goes back to the first line.
func (ld *logDirs) restart() {
	clear(ld.pending[C2S])
	clear(ld.pending[S2C])
	ld.i = 0
}

func (ld *logDirs) markDir(mark string) (Dir, bool) {
	switch mark {
	case string(C2S), string(S2C):
		return Dir(mark), true
	case "a", "b":
		v := ld.votes[mark]
		switch {
		case v[C2S] > v[S2C]:
			return C2S, true
		case v[S2C] > v[C2S]:
			return S2C, true
		}
	}
	return "", false
}

// next returns the direction of the next line.
func (ld *logDirs) next(l logKey) Dir {
	i := ld.i
	ld.i++
	d, ok := logDecide(l, ld.pending)
	if ld.learning && ok && (l.mark == "a" || l.mark == "b") {
		ld.votes[l.mark][d]++
	}
	if !ok {
		if md, known := ld.markDir(l.mark); known {
			d = md
		}
	}
	if l.kind == jsonrpc.KindRequest {
		ld.pending[d][l.id] = i
	}
	if jsonrpc.IsResponseKind(l.kind) {
		delete(ld.pending[opposite(d)], l.id)
	}
	return d
}

// logDecide returns a message's direction when the message decides it,
// and otherwise the default with false.
func logDecide(m logKey, pending map[Dir]map[string]int) (Dir, bool) {
	switch {
	case m.kind == jsonrpc.KindRequest:
		switch {
		case m.method == mcp.MethodPing:
			return C2S, false
		case mcp.ServerInitiated(m.method):
			return S2C, true
		}
		return C2S, true
	case jsonrpc.IsResponseKind(m.kind):
		fromClient, okC := pending[C2S][m.id]
		fromServer, okS := pending[S2C][m.id]
		switch {
		case okC && okS: // the later request is the one answered
			if fromServer > fromClient {
				return C2S, true
			}
			return S2C, true
		case okC:
			return S2C, true
		case okS:
			return C2S, true
		}
		return S2C, false
	case m.kind == jsonrpc.KindNotification:
		switch m.method {
		case mcp.NotificationInitialized, mcp.NotificationRootsListChanged:
			return C2S, true
		case mcp.NotificationCancelled:
			return C2S, false
		case mcp.NotificationProgress:
			return S2C, false
		}
		return S2C, true
	}
	return C2S, false // a batch: most are the client's
}
