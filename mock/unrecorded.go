package mock

import (
	"encoding/json"
	"fmt"
	"slices"

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
//     initialize, as it does against the server recorded;
//   - initialize on a stateless tape (a server/discover answer recorded
//     and no initialize): what the server recorded says of itself in that
//     answer, when it lists a session-based revision among its
//     supportedVersions (the client's if listed, else the latest), as a
//     server that serves both eras answers a client of 2025-11-25 (the
//     TypeScript SDK's); method not found when it lists none. What the
//     client asks next is matched as usual: a request of another revision
//     than the recorded one misses, saying so (see DefaultVolatile).
func (s *Server) unrecorded(req jsonrpc.Message) []byte {
	switch req.Method {
	case mcp.MethodPing:
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
	case mcp.MethodDiscover:
		if s.sessionBased() {
			return notFound(req.ID)
		}
	case mcp.MethodInitialize:
		if d, ok := s.discovered(); ok {
			return d.initialize(req)
		}
	}
	return nil
}

func notFound(id []byte) []byte {
	return jsonrpc.ErrorResponse(id, mcp.CodeMethodNotFound, "Method not found", nil)
}

// discovery is what a recorded server/discover answer says of the server.
type discovery struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
	Meta              struct {
		ServerInfo json.RawMessage `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// discovered returns the first recorded server/discover answer of a
// stateless tape (no initialize recorded), read once; false when the
// tape is not one or its answer cannot be read.
func (s *Server) discovered() (*discovery, bool) {
	s.discoverOnce.Do(func() {
		discover, ok := s.idx.methods[mcp.MethodDiscover]
		if _, initialize := s.idx.methods[mcp.MethodInitialize]; !ok || initialize {
			return
		}
		var buf []byte
		for _, name := range s.idx.order {
			for _, e := range s.idx.sessions[name] {
				if e.method != discover || e.ans == 0 {
					continue
				}
				msg, err := s.idx.at(e.ans, -1, &buf)
				if err != nil {
					continue
				}
				var ans struct {
					Result *discovery `json:"result"`
				}
				if json.Unmarshal(msg, &ans) == nil && ans.Result != nil {
					s.discovery = ans.Result
					return
				}
			}
		}
	})
	return s.discovery, s.discovery != nil
}

// initialize is the answer to req, an initialize, of the server d
// describes.
func (d *discovery) initialize(req jsonrpc.Message) []byte {
	var asked struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(req.Params(), &asked) // a bad one asks for no version
	version := ""
	if mcp.EraOf(asked.ProtocolVersion) == mcp.EraSession && slices.Contains(d.SupportedVersions, asked.ProtocolVersion) {
		version = asked.ProtocolVersion
	} else {
		for _, v := range d.SupportedVersions {
			if mcp.EraOf(v) == mcp.EraSession && v > version {
				version = v
			}
		}
	}
	if version == "" {
		return notFound(req.ID)
	}
	res := struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
		Instructions    string          `json:"instructions,omitempty"`
	}{version, d.Capabilities, d.Meta.ServerInfo, d.Instructions}
	if len(res.Capabilities) == 0 {
		res.Capabilities = json.RawMessage(`{}`)
	}
	body, err := json.Marshal(res)
	if err != nil { // the recorded values are JSON: cannot happen
		return notFound(req.ID)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, body)
}

// sessionBased reports whether the tape is of a session-based revision
// (2025-11-25 and earlier): its clients began with initialize and none
// asked server/discover.
func (s *Server) sessionBased() bool {
	_, initialize := s.idx.methods[mcp.MethodInitialize]
	_, discover := s.idx.methods[mcp.MethodDiscover]
	return initialize && !discover
}
