package jsonrpc

import (
	"encoding/json"
	"strconv"
)

// ErrorResponse is a JSON-RPC 2.0 error response to id, with code and
// message, and data when data is not nil:
//
//	{"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":"…","data":DATA}}
//
// An empty id is null (the answer to a message whose id cannot be read).
// The message is escaped as encoding/json escapes a string (HTML
// characters too); id and data are JSON, written as they are. It is the
// one builder of the error answers replayctl makes up (the mock's, the
// engine's, chaos', the recording proxy's, the transports').
func ErrorResponse(id []byte, code int, message string, data []byte) []byte {
	msg, _ := json.Marshal(message) // a string always marshals
	if len(id) == 0 {
		id = []byte("null")
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"error":{"code":-32000,"message":,"data":}}`)+len(id)+len(msg)+len(data))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	if data != nil {
		b = append(b, `,"data":`...)
		b = append(b, data...)
	}
	return append(b, "}}"...)
}
