package mock

import (
	"fmt"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// unrecorded returns the answer an MCP server of the tape's revision
// gives to req, a request the tape has no answer for, when such a server
// answers it whatever it serves; nil when the tape must say (a miss):
//
//   - ping: {} (every revision that has it answers it so);
//   - server/discover on a session-based tape (an initialize handshake
//     recorded and no server/discover): method not found (-32601), as a
//     server of 2025-11-25 or earlier answers it. A client of 2026-07-28
//     that probes with it (the go-sdk's by default) then falls back to
//     initialize, as it does against the server recorded.
func (s *Server) unrecorded(req jsonrpc.Message) []byte {
	switch req.Method {
	case mcp.MethodPing:
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
	case mcp.MethodDiscover:
		if s.sessionBased() {
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"Method not found"}}`, req.ID, mcp.CodeMethodNotFound)
		}
	}
	return nil
}

// sessionBased reports whether the tape is of a session-based revision
// (2025-11-25 and earlier): its clients began with initialize and none
// asked server/discover.
func (s *Server) sessionBased() bool {
	_, initialize := s.idx.methods[mcp.MethodInitialize]
	_, discover := s.idx.methods[mcp.MethodDiscover]
	return initialize && !discover
}
