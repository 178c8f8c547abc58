package transport

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/replayctl/replayctl/jsonrpc"
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
	return jsonrpc.ErrorResponse(id, code, message, nil)
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
