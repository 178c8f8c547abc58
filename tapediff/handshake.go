package tapediff

import (
	"encoding/json"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// handshake is what a server said of itself: in the answer to
// initialize (session-based revisions) or server/discover (2026-07-28).
type handshake struct {
	method       string
	seq          int64
	version      string
	capabilities map[string]any
	serverInfo   json.RawMessage
	instructions json.RawMessage
}

// handshakeOf is the first answered initialize of s, else its first
// answered server/discover; nil when it has neither. version is the
// tape header's protocol version, used when the answer names none.
func handshakeOf(s *side, version string) *handshake {
	for _, method := range []string{mcp.MethodInitialize, "server/discover"} {
		for i := range s.exchanges {
			e := &s.exchanges[i]
			if e.method != method || e.answer == nil || e.answer.Kind != jsonrpc.KindResponse {
				continue
			}
			var r struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    json.RawMessage            `json:"capabilities"`
				ServerInfo      json.RawMessage            `json:"serverInfo"`
				Instructions    json.RawMessage            `json:"instructions"`
				Meta            map[string]json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(e.answer.Result(), &r)
			h := &handshake{method: method, seq: e.ansSeq, version: version, serverInfo: r.ServerInfo, instructions: r.Instructions}
			if h.version == "" {
				h.version = r.ProtocolVersion
			}
			if h.serverInfo == nil {
				h.serverInfo = r.Meta["io.modelcontextprotocol/serverInfo"]
			}
			h.capabilities, _ = decode(r.Capabilities).(map[string]any)
			return h
		}
	}
	return nil
}

// compareHandshakes reports a protocol version changed and capabilities
// removed (both breaking), capabilities added or changed, and the
// server's info and instructions changed. Tapes of which one has no
// handshake compare only their header's protocol versions.
func (d *differ) compareHandshakes(a, b *side, versionA, versionB string) {
	ha, hb := handshakeOf(a, versionA), handshakeOf(b, versionB)
	method := func(h *handshake) string {
		if h == nil {
			return mcp.MethodInitialize
		}
		return h.method
	}
	seq := func(h *handshake) int64 {
		if h == nil {
			return -1
		}
		return h.seq
	}
	va, vb := versionA, versionB
	if ha != nil {
		va = ha.version
	}
	if hb != nil {
		vb = hb.version
	}
	if va != "" && vb != "" && va != vb {
		d.add(Change{Kind: ProtocolVersionChanged, Method: method(ha), Path: "protocolVersion",
			A: encode(va), B: encode(vb), SeqA: seq(ha), SeqB: seq(hb)})
	}
	if ha == nil || hb == nil {
		return
	}
	at := Change{Method: ha.method, SeqA: ha.seq, SeqB: hb.seq}
	d.compareCapabilities(at, "capabilities", ha.capabilities, hb.capabilities)
	if !sameJSON(ha.serverInfo, hb.serverInfo) {
		c := at
		c.Kind, c.Path, c.A, c.B = ServerInfoChanged, "serverInfo", ha.serverInfo, hb.serverInfo
		d.add(c)
	}
	if !sameJSON(ha.instructions, hb.instructions) {
		c := at
		c.Kind, c.Path, c.A, c.B = InstructionsChanged, "instructions", ha.instructions, hb.instructions
		d.add(c)
	}
}

// compareCapabilities walks two capability objects: a member only A has
// is a capability removed (at any depth: resources.subscribe too), and so
// is a flag turned from true to false; only B's one added, and another
// value that differs changed.
func (d *differ) compareCapabilities(at Change, path string, a, b map[string]any) {
	for _, k := range sortedKeys(union(a, b)) {
		va, inA := a[k]
		vb, inB := b[k]
		c := at
		c.Path, c.Name = path+pathName(k), capabilityName(path, k)
		switch {
		case !inB:
			c.Kind, c.A = CapabilityRemoved, encode(va)
			if c.A == nil {
				c.A = json.RawMessage("null")
			}
		case !inA:
			c.Kind, c.B = CapabilityAdded, encode(vb)
			if c.B == nil {
				c.B = json.RawMessage("null")
			}
		default:
			ma, okA := va.(map[string]any)
			mb, okB := vb.(map[string]any)
			if okA && okB {
				d.compareCapabilities(at, c.Path, ma, mb)
				continue
			}
			if sameValue(va, vb) {
				continue
			}
			c.Kind, c.A, c.B = CapabilityChanged, encode(va), encode(vb)
			if va == true && vb == false { // subscribe: true → false is subscribe gone
				c.Kind = CapabilityRemoved
			}
		}
		d.add(c)
	}
}

// capabilityName is a capability's dotted name without the leading
// "capabilities.": "tools", "resources.subscribe".
func capabilityName(path, k string) string {
	const root = "capabilities"
	if path == root {
		return k
	}
	return path[len(root)+1:] + "." + k
}
