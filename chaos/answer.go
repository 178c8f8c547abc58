package chaos

import (
	"fmt"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// The error codes JSON-RPC 2.0 defines (mcp's, where they are listed
// once), and the ones error-response sends.
const (
	CodeParseError     = mcp.CodeParseError
	CodeInvalidRequest = mcp.CodeInvalidRequest
	CodeMethodNotFound = mcp.CodeMethodNotFound
	CodeInvalidParams  = mcp.CodeInvalidParams
	CodeInternalError  = mcp.CodeInternal
	CodeServerError    = -32000 // the first of the codes JSON-RPC leaves to servers
)

// MutateAnswer returns what the client is given in place of answer (the
// target's real answer to the faulted request) for a fault on the way back:
//   - timeout, network-error: nil — nothing arrives; the engine lets the
//     deadline pass (timeout). A network-error fails the connection before
//     the request is written, so the engine never asks for its answer;
//   - invalid-response: bytes that are not a valid answer (not JSON,
//     truncated, a wrong id, jsonrpc "1.0");
//   - error-response: a JSON-RPC error with the answer's id (-32603 or
//     -32000).
//
// Outbound kinds return answer unchanged. It never writes to answer.
func MutateAnswer(f Fault, answer []byte) ([]byte, error) {
	switch f.Kind {
	case Timeout, NetworkError:
		return nil, nil
	case InvalidResponse:
		switch f.Variant() {
		case 0:
			return notJSON(answer), nil
		case 1:
			return truncate(answer, f.Param>>8), nil
		}
		o, err := structured(f, answer)
		if err != nil {
			return nil, err
		}
		if f.Variant() == 2 {
			o.set("id", []byte(fmt.Sprintf(`"chaos-wrong-id-%08x"`, uint32(f.Param>>16))))
		} else {
			o.set("jsonrpc", []byte(`"1.0"`))
		}
		return o.bytes(), nil
	case ErrorResponse:
		id := []byte("null")
		if o, err := structured(f, answer); err == nil {
			if v, ok := o.get("id"); ok {
				id = v
			}
		}
		code, text := CodeInternalError, "Internal error"
		if f.Variant() == 1 {
			code, text = CodeServerError, "Server error"
		}
		return jsonrpc.ErrorResponse(id, code, text+" (injected by replayctl chaos)", nil), nil
	}
	if !f.Kind.valid() {
		return nil, fmt.Errorf("chaos seq %d (session %s): unknown fault kind %q; known kinds: %s", f.Seq, f.Session, string(f.Kind), knownList())
	}
	return answer, nil
}
