package record

import (
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// versionWatch learns, from the messages of a tape as they pass, the
// protocol version its traffic speaks, for the tape's header. Only an
// exchange the server accepted teaches it:
//   - session-based revisions: the protocolVersion of the result answering
//     initialize (the version both sides agreed on);
//   - the stateless revision (2026-07-28): the _meta protocol version of a
//     client request that is not server/discover, once a result answers
//     it. A request the server refused teaches nothing: a 2026 client
//     whose server/discover probe was refused, and that fell back to
//     initialize, is decided by the initialize.
//
// Requests are told apart by session and id, so one watch serves a tape
// of many sessions (the HTTP proxy's). It gives up (settled, no version)
// at the first client request that does work while no initialize or
// stateless request is waiting for its answer. It is pure: no I/O, no
// locking.
type versionWatch struct {
	pending map[string]string // session and id of a request that may teach → what it would ("" for initialize)
	version string
	settled bool
}

// observe looks at one message of session going dir and reports whether
// the version is now settled: known (version) or no longer to be learned.
func (v *versionWatch) observe(session string, dir tape.Dir, msg []byte) bool {
	if v.settled {
		return true
	}
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return false
	}
	key := session + "\x00" + jsonrpc.IDKey(m.ID)
	switch {
	case dir == tape.C2S && m.Kind == jsonrpc.KindRequest && m.Method == mcp.MethodInitialize:
		v.expect(key, "")
	case dir == tape.C2S && m.Kind == jsonrpc.KindRequest && !mcp.IsHandshake(m.Method):
		if ver := mcp.MetaVersion(m.Params()); ver != "" && mcp.MessageEra(m) == mcp.EraStateless {
			v.expect(key, ver)
		} else if len(v.pending) == 0 {
			v.settled = true // work without a handshake: nothing to learn
		}
	case dir == tape.S2C && jsonrpc.IsResponseKind(m.Kind):
		ver, ok := v.pending[key]
		if !ok {
			break
		}
		delete(v.pending, key)
		if m.Kind != jsonrpc.KindResponse {
			break // refused: teaches nothing
		}
		if ver == "" {
			ver = mcp.InitializeVersion(m.Result())
		}
		if ver != "" {
			v.version, v.settled = ver, true
		}
	}
	return v.settled
}

// expect notes a request that may teach the version: ver is its _meta
// version, "" for initialize (its answer says).
func (v *versionWatch) expect(key, ver string) {
	if v.pending == nil {
		v.pending = map[string]string{}
	}
	v.pending[key] = ver
}
