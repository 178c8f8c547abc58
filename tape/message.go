package tape

import (
	"bytes"
	"encoding/json"

	"github.com/replayctl/replayctl/internal/httpmeta"
	"github.com/replayctl/replayctl/jsonrpc"
)

// Dir is the direction of a recorded message.
type Dir string

// The two directions of a recorded message.
const (
	C2S Dir = "c2s" // client to server
	S2C Dir = "s2c" // server to client
)

// Native format identity, as written in a tape's header line.
const (
	FormatName    = "replayctl-tape"
	FormatVersion = 1
)

// Header is the first line of a native tape.
type Header struct {
	Format          string            `json:"format"`
	Version         int               `json:"version"`
	CreatedAt       string            `json:"created_at,omitempty"`
	ProtocolVersion string            `json:"protocol_version,omitempty"`
	Transport       string            `json:"transport,omitempty"`
	Server          *Server           `json:"server,omitempty"`
	Tags            map[string]string `json:"tags,omitempty"`
	// Extra holds members this version does not know, kept as they were.
	Extra map[string]json.RawMessage `json:"-"`
}

// Server says what was recorded: a command (stdio) or a URL (HTTP).
type Server struct {
	Command []string `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	Name    string   `json:"name,omitempty"`
	Version string   `json:"version,omitempty"`
}

// Message is one recorded JSON-RPC message and where it was seen.
type Message struct {
	Seq     int64  // position in the tape, from 0, in wire order
	TUS     int64  // microseconds since the tape's start
	Session string // recorded session name
	Dir     Dir
	// Msg is the exact JSON-RPC message as seen on the wire.
	Msg  json.RawMessage
	HTTP *HTTPMeta // transport metadata, when recorded over HTTP
	SSE  *SSEMeta
	// Line is the 1-based line the message was read from (for an imported
	// document, the line its JSON starts on), or 0; not written.
	Line int64
	// Extra holds members this version does not know, kept as they were.
	Extra map[string]json.RawMessage

	rpc jsonrpc.Kept // the reader's view of Msg (see RPC)
}

// RPC returns the JSON-RPC view of Msg (jsonrpc.Parse's answer): the one
// the tape reader found as it read the message, without parsing Msg
// again, or a fresh parse when Msg was not read so, or was replaced
// since. Bytes of Msg changed in place are not noticed: the reader's
// copies are shared by several messages, and are not to be written.
func (m *Message) RPC() (rpc jsonrpc.Message, err error) {
	err = m.RPCTo(&rpc)
	return rpc, err
}

// RPCTo is RPC, written into *dst, where the caller keeps it (the
// engine's item): not built, returned and copied again, which cost more
// than finding it (a jsonrpc.Message is 136 bytes).
func (m *Message) RPCTo(dst *jsonrpc.Message) (err error) {
	if m.rpc.Into(m.Msg, dst) {
		return nil
	}
	*dst, err = jsonrpc.Parse(m.Msg)
	return err
}

// HTTPMeta is what was seen of the HTTP exchange that carried a message
// (defined in a leaf package, so that internal/match can carry it
// without importing tape).
type HTTPMeta = httpmeta.Meta

// SSEMeta is the Server-Sent Events framing a message arrived in.
type SSEMeta struct {
	ID    string `json:"id,omitempty"`
	Event string `json:"event,omitempty"`
	Retry int64  `json:"retry,omitempty"` // milliseconds
}

// End is the last line of a complete native tape.
type End struct {
	Messages   int64 `json:"messages"`
	DurationUS int64 `json:"duration_us"`
}

// Detached returns m with Msg a copy of its own, and the reader's parse
// (see RPC) moved onto that copy: neither points into the memory the
// reader read m into, which is shared with other messages (a block of
// tape bytes), so that one message kept long does not keep the block.
// The other fields are as they are in m.
func (m Message) Detached() Message {
	msg := bytes.Clone(m.Msg)
	m.rpc = rekeep(m.rpc, m.Msg, msg)
	m.Msg = msg
	return m
}

// rekeep returns the parse k of old for now, a copy of old's bytes.
func rekeep(k jsonrpc.Kept, old, now []byte) jsonrpc.Kept {
	rpc, ok := k.Of(old)
	if !ok {
		return jsonrpc.Kept{}
	}
	rpc.Raw = now
	return jsonrpc.Keep(rpc)
}
