package transport

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/mcp"
)

// What the HTTP listeners share: JSON-RPC error bodies, content
// negotiation (the Host and Origin check is Guard, guard.go).

var (
	errStreamDone = errors.New("transport: the stream has ended")
	errStreamBusy = errors.New("transport: the stream already has a client attached")
)

// errorBody is a JSON-RPC error answer to id (nil: null) with code and
// message.
func errorBody(id []byte, code int, message string) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	msg, _ := json.Marshal(message) // a string always marshals
	b := make([]byte, 0, 64+len(id)+len(msg))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	b = append(b, "}}"...)
	return b
}

// writeError answers an HTTP request with status and a JSON-RPC error
// body: what a client of either revision can read.
func writeError(w http.ResponseWriter, status int, id []byte, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(id, code, message))
}

// accepts says which of the two answer forms a client's Accept headers
// allow. No Accept header at all allows both (RFC 9110); q=0 refuses.
func accepts(h http.Header) (json, sse bool) {
	values := h.Values("Accept")
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || params["q"] == "0" || params["q"] == "0.0" {
				continue
			}
			switch mt {
			case "*/*":
				json, sse = true, true
			case "application/*", "application/json":
				json = true
			case "text/*", "text/event-stream":
				sse = true
			}
		}
	}
	return json, sse
}

// isJSONContent says whether a request's Content-Type is application/json.
func isJSONContent(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// knownRevision says whether v is a protocol revision a listener serves.
func knownRevision(v string) bool {
	switch v {
	case mcp.V20241105, mcp.V20250326, mcp.V20250618, mcp.V20251125, mcp.V20260728:
		return true
	}
	return mcp.EraOf(v) == mcp.EraStateless // a newer stateless revision
}
