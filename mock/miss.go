package mock

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// CodeMiss is the JSON-RPC error code a Server answers a request it has
// no recorded answer for: in the range JSON-RPC 2.0 leaves to
// implementations (-32000 to -32099), away from the codes MCP uses
// (-32002, -32020, -32042). The error's message says what was asked,
// why it missed and the closest recorded request; its data is the Miss.
const CodeMiss = -32090

// Miss is a request a Server could not answer from its tape, or a
// request of the tape the client did not answer in time.
type Miss struct {
	// Session is the live session's id (SessionInfo.ID); Recorded the
	// recorded session it is bound to, "" when none could be.
	Session  string `json:"session"`
	Recorded string `json:"recorded,omitempty"`
	Method   string `json:"method"`
	// ID is the live request's id; Params its params, secrets masked
	// (tape.Mask).
	ID     json.RawMessage `json:"id,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	// Reason says in words why there is no answer.
	Reason string `json:"reason"`
	// Closest is the recorded request most like the live one (same
	// method, fewest differences), nil when the tape has no request of
	// that method.
	Closest *Closest `json:"closest,omitempty"`
}

// Closest is the recorded request a miss names, and what differs.
type Closest struct {
	Session string          `json:"session"`
	Seq     int64           `json:"seq"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	// Differences are the live request's against it (expected: the
	// recorded value, actual: the live one), volatile fields left out,
	// secrets masked. Empty when the two match and the recorded one was
	// answered already.
	Differences []validator.Difference `json:"differences,omitempty"`
}

// String says the miss in one line: what was asked, why it missed, and
// where the closest recorded request differs.
func (m Miss) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (id %s): %s", m.Method, m.ID, m.Reason)
	if c := m.Closest; c != nil {
		fmt.Fprintf(&b, "; closest recorded: seq %d (session %s)", c.Seq, c.Session)
		for i, d := range c.Differences {
			if i == 3 {
				fmt.Fprintf(&b, ", and %d more", len(c.Differences)-3)
				break
			}
			sep := ", "
			if i == 0 {
				sep = " differs at "
			}
			b.WriteString(sep + describe(d))
		}
		if m.Method == "initialize" && slices.ContainsFunc(c.Differences, func(d validator.Difference) bool { return d.Path == "params.protocolVersion" }) {
			b.WriteString("; to answer a client of another revision with the recorded one, as MCP's version negotiation lets a server do, pass --volatile initialize:params.protocolVersion")
		}
	}
	return b.String()
}

// describe says a difference in words.
func describe(d validator.Difference) string {
	switch d.Kind {
	case validator.DiffAdded:
		return fmt.Sprintf("%s (not recorded; got %s)", d.Path, clip(d.Actual))
	case validator.DiffRemoved:
		return fmt.Sprintf("%s (recorded %s; missing)", d.Path, clip(d.Expected))
	}
	return fmt.Sprintf("%s (recorded %s, got %s)", d.Path, clip(d.Expected), clip(d.Actual))
}

func clip(v []byte) string {
	const most = 80
	if len(v) > most {
		return string(v[:most]) + "…"
	}
	return string(v)
}

// answer is the JSON-RPC error the client gets for m, with id.
func (m Miss) answer(id []byte) []byte {
	data, err := json.Marshal(m)
	if err != nil {
		data = []byte("null")
	}
	return jsonrpc.ErrorResponse(id, CodeMiss, "replayctl serve: no recorded answer: "+m.String(), data)
}

// masked returns v with its sensitive members masked, or nil for none.
func masked(v []byte) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	return tape.Mask(v)
}

// maskDifferences masks secrets in ds (tape.MaskDifference: the values
// at a path through a sensitive member name, and sensitive members
// inside the values) and clips long values.
func maskDifferences(ds []validator.Difference) []validator.Difference {
	for i := range ds {
		d := &ds[i]
		e, a := tape.MaskDifference(d.Path, d.Expected, d.Actual)
		d.Expected, d.Actual = clipJSON(nonEmpty(e)), clipJSON(nonEmpty(a))
	}
	return ds
}

// nonEmpty is v, or nil for an empty value.
func nonEmpty(v []byte) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	return v
}

// newMiss starts the Miss of req in a live session.
func newMiss(live, recorded string, req jsonrpc.Message, reason string) *Miss {
	return &Miss{Session: live, Recorded: recorded, Method: transport.Clip(req.Method), ID: clipJSON(append(json.RawMessage(nil), req.ID...)),
		Params: clipJSON(masked(req.Params())), Reason: reason}
}

// maxEcho is the longest JSON value of a client's (an id, params, a
// value that differs) a Miss keeps; a longer one is kept as a string of
// its start and its length (transport.Clip).
const maxEcho = 4 << 10

// clipJSON returns v, or when it is longer than maxEcho a JSON string
// saying its start and its length.
func clipJSON(v json.RawMessage) json.RawMessage {
	if len(v) <= maxEcho {
		return v
	}
	s := string(v[:maxEcho])
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 { // a character cut short: drop its bytes
		s = s[:len(s)-1]
	}
	out, _ := json.Marshal(fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s, ""), len(v)))
	return out
}
