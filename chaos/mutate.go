package chaos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ErrNotApplicable is wrapped by the errors of Mutate and MutateAnswer when
// the fault cannot be made from the message given: unknown-method on a
// message with no method, cancel on one with no id, a structural mutation
// of bytes that are not a JSON object. The engine sends the message as is
// and logs the error.
var ErrNotApplicable = errors.New("chaos: fault does not apply to this message")

// Mutate returns the bytes to send in place of msg for fault f — none,
// one or several messages — as MutateWithPrev with no previous request id.
func Mutate(f Fault, msg []byte) ([][]byte, error) {
	return MutateWithPrev(f, msg, nil)
}

// MutateWithPrev returns the bytes to send in place of msg for fault f. It
// is a pure function of f.Kind, f.Param, msg and prevID, and never writes to
// msg; a returned slice may be msg itself.
//
// prevID is the raw id of the session's previous request (as the target
// saw it), used by duplicate-id: msg goes out with that id. With no
// previous request (prevID nil), duplicate-id sends msg twice, so that its
// own id is in flight twice.
//
// Schedule-level kinds (reorder, burst, slow-write, disconnect) and the
// faults on the way back return msg unchanged: the engine applies them
// with Fault.ReorderWindow, BurstSize, SlowWrite, DisconnectAt and
// MutateAnswer. Errors wrap ErrNotApplicable.
func MutateWithPrev(f Fault, msg []byte, prevID []byte) ([][]byte, error) {
	switch f.Kind {
	case Malformed:
		return one(malformed(f, msg)), nil
	case Drop:
		return [][]byte{}, nil
	case Duplicate:
		return [][]byte{msg, msg}, nil
	case Reorder, Burst, SlowWrite, Disconnect, Timeout, NetworkError, InvalidResponse, ErrorResponse:
		return one(msg), nil
	case Invalid:
		if f.Variant() == invalidEmptyBatch {
			return one([]byte("[]")), nil
		}
	}
	o, err := structured(f, msg)
	if err != nil {
		return nil, err
	}
	switch f.Kind {
	case Invalid:
		return one(invalid(f, o)), nil
	case UnknownMethod:
		if _, ok := o.get("method"); !ok {
			return nil, notApplicable(f, "the message has no method")
		}
		o.set("method", []byte(fmt.Sprintf(`"chaos/unknown-%08x"`, uint32(f.Param>>16))))
		return one(o.bytes()), nil
	case BadParams:
		if _, ok := o.get("method"); !ok {
			return nil, notApplicable(f, "the message has no method, so no params")
		}
		return one(badParams(f, o)), nil
	case DuplicateID:
		if _, ok := o.get("id"); !ok {
			return nil, notApplicable(f, "the message has no id")
		}
		if prevID == nil {
			return [][]byte{msg, msg}, nil
		}
		if !json.Valid(prevID) {
			return nil, notApplicable(f, fmt.Sprintf("the previous id %.40q is not JSON", prevID))
		}
		o.set("id", prevID)
		return one(o.bytes()), nil
	case Cancel:
		id, ok := o.get("id")
		if !ok {
			return nil, notApplicable(f, "the message has no id (a notification is never cancelled)")
		}
		return [][]byte{msg, cancelled(id)}, nil
	}
	return nil, fmt.Errorf("chaos seq %d (session %s): unknown fault kind %q; known kinds: %s", f.Seq, f.Session, string(f.Kind), knownList())
}

func one(b []byte) [][]byte { return [][]byte{b} }

func notApplicable(f Fault, why string) error {
	return fmt.Errorf("%w: %s at seq %d (session %s): %s", ErrNotApplicable, f.Kind, f.Seq, f.Session, why)
}

// structured takes msg apart for the mutations that edit its members.
func structured(f Fault, msg []byte) (*object, error) {
	if !json.Valid(msg) {
		return nil, notApplicable(f, "the message is not valid JSON")
	}
	o, err := parseObject(msg)
	if err != nil {
		return nil, notApplicable(f, "the message is not a JSON object")
	}
	return o, nil
}

// cancelled is the MCP notification that cancels request id.
func cancelled(id []byte) []byte {
	b := make([]byte, 0, 128+len(id))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = append(b, id...)
	return append(b, `,"reason":"replayctl chaos: cancel"}}`...)
}

// notJSON is a line a confused client might send: a header of another
// framing (LSP's), not JSON.
func notJSON(msg []byte) []byte {
	return []byte("Content-Length: " + strconv.Itoa(len(msg)))
}

// malformed returns msg spoiled so that it is not JSON. Every variant ends
// with a check: should the result still be valid JSON (msg was odd), the
// not-JSON line is sent instead.
func malformed(f Fault, msg []byte) []byte {
	var out []byte
	switch f.Variant() {
	case malformedNotJSON:
		out = notJSON(msg)
	case malformedTruncated:
		out = truncate(msg, f.Param>>8)
	case malformedTrailingComma:
		t := bytes.TrimRight(msg, " \t\r\n")
		out = make([]byte, 0, len(t)+1)
		if n := len(t); n > 0 && (t[n-1] == '}' || t[n-1] == ']') {
			out = append(append(append(out, t[:n-1]...), ','), t[n-1])
		} else {
			out = append(append(out, t...), ',')
		}
	default: // malformedBinary
		out = make([]byte, 16)
		h := f.Param
		for i := range out {
			h = mix(h + golden)
			out[i] = 0x80 | byte(h) // never '\n', never valid UTF-8 outside a string
		}
	}
	if json.Valid(out) {
		return notJSON(msg)
	}
	return out
}

// truncate cuts msg (trailing white space removed) after 1 + r mod (len-1)
// bytes: a strict prefix, which for a JSON object is never valid JSON.
func truncate(msg []byte, r uint64) []byte {
	t := bytes.TrimRight(msg, " \t\r\n")
	if len(t) < 2 {
		return []byte(`{"jsonrpc":"2.0"`)
	}
	cut := 1 + int(r%uint64(len(t)-1))
	return append([]byte(nil), t[:cut]...)
}

// invalid returns o as valid JSON that is not a valid JSON-RPC message.
func invalid(f Fault, o *object) []byte {
	switch f.Variant() {
	case invalidNoMethod:
		o.remove("method")
		o.remove("result")
		o.remove("error")
	case invalidObjectID:
		o.set("id", []byte(fmt.Sprintf(`{"chaos":%d}`, uint16(f.Param>>8))))
	default: // invalidVersion
		o.set("jsonrpc", []byte(`"1.0"`))
	}
	return o.bytes()
}
