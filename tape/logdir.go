package tape

import (
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// logDirections infers who sent each line of a JSON-RPC log (see
// DecodeLog): first from the messages that decide it, which also teach
// what the log's relative marks ("send", "-->") mean; then the rest.
func logDirections(lines []logKey) []Dir {
	dirs := make([]Dir, len(lines))
	decided := make([]bool, len(lines))
	// votes[mark][dir]: how often a mark went with a decided direction.
	votes := map[string]map[Dir]int{"a": {}, "b": {}}
	// pending requests by sender and id, to send responses the other way
	pending := map[Dir]map[string]int{C2S: {}, S2C: {}}
	for pass := 0; pass < 2; pass++ {
		clear(pending[C2S])
		clear(pending[S2C])
		markDir := func(mark string) (Dir, bool) {
			switch mark {
			case string(C2S), string(S2C):
				return Dir(mark), true
			case "a", "b":
				v := votes[mark]
				switch {
				case v[C2S] > v[S2C]:
					return C2S, true
				case v[S2C] > v[C2S]:
					return S2C, true
				}
			}
			return "", false
		}
		for i, l := range lines {
			d, ok := logDecide(l, pending)
			if pass == 0 {
				decided[i] = ok
				if ok && (l.mark == "a" || l.mark == "b") {
					votes[l.mark][d]++
				}
			}
			if !ok {
				if md, known := markDir(l.mark); known {
					d = md
				}
			}
			dirs[i] = d
			if l.kind == jsonrpc.KindRequest {
				pending[d][l.id] = i
			}
			if jsonrpc.IsResponseKind(l.kind) {
				delete(pending[opposite(d)], l.id)
			}
		}
	}
	return dirs
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
