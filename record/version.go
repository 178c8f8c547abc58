package record

import (
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// versionWatch learns, from the messages of a session as they pass, the
// protocol version it speaks, for the tape's header:
//   - session-based revisions: the protocolVersion of the server's answer
//     to initialize (the version both sides agreed on);
//   - the stateless revision (2026-07-28): the _meta protocol version of
//     the client's first request that is not server/discover (a client
//     that probed with server/discover and fell back to initialize is
//     decided by the initialize).
//
// It gives up (settled, no version) at the first client request that does
// work without either having been seen. It is pure: no I/O, no locking.
type versionWatch struct {
	pending map[string]bool // ids of initialize requests not yet answered
	version string
	settled bool
}

// observe looks at one message going dir and reports whether the version
// is now settled: known (version) or no longer to be learned.
func (v *versionWatch) observe(dir tape.Dir, msg []byte) bool {
	if v.settled {
		return true
	}
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return false
	}
	switch {
	case dir == tape.C2S && m.Kind == jsonrpc.KindRequest && m.Method == mcp.MethodInitialize:
		if v.pending == nil {
			v.pending = map[string]bool{}
		}
		v.pending[jsonrpc.IDKey(m.ID)] = true
	case dir == tape.S2C && jsonrpc.IsResponseKind(m.Kind) && v.pending[jsonrpc.IDKey(m.ID)]:
		delete(v.pending, jsonrpc.IDKey(m.ID))
		if ver := mcp.InitializeVersion(m.Result()); ver != "" {
			v.version, v.settled = ver, true
		}
	case dir == tape.C2S && m.Kind == jsonrpc.KindRequest && !mcp.IsHandshake(m.Method) && len(v.pending) == 0:
		v.version, v.settled = mcp.MetaVersion(m.Params()), true
	}
	return v.settled
}
