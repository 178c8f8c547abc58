package record

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// requestHeaders are the request headers kept on a client message (c2s):
// the MCP standard headers and what says how the body is framed.
// Mcp-Param-* headers are kept too (see keptRequest).
var requestHeaders = []string{
	"Content-Type", "Accept", mcp.HeaderProtocolVersion, mcp.HeaderSessionID,
	mcp.HeaderMethod, mcp.HeaderName, mcp.HeaderLastEventID,
}

// responseHeaders are the answer headers kept on a server message (s2c),
// with its status.
var responseHeaders = []string{
	"Content-Type", mcp.HeaderSessionID, mcp.HeaderProtocolVersion,
	"Retry-After", "Www-Authenticate", "Location",
}

// answerHeaders are the answer headers kept on a client message (c2s),
// with its answer's status: those that say why a request was refused or
// where to go, which a request never carries itself.
var answerHeaders = []string{"Retry-After", "Www-Authenticate", "Location"}

// requestMeta is what a client message keeps of its request's headers;
// nil when there is nothing. Credential headers (tape.Sensitive) are
// never kept, whatever their name's place in the lists.
func requestMeta(h http.Header) *tape.HTTPMeta {
	kept := keep(h, requestHeaders)
	for k, vs := range h {
		if strings.HasPrefix(k, mcp.HeaderParamPrefix) && !tape.Sensitive(k) {
			if kept == nil {
				kept = map[string][]string{}
			}
			kept[k] = vs
		}
	}
	if kept == nil {
		return nil
	}
	return &tape.HTTPMeta{Headers: kept}
}

// responseMeta is the status and kept headers of an answer.
func responseMeta(resp *http.Response) *tape.HTTPMeta {
	return &tape.HTTPMeta{Status: resp.StatusCode, Headers: keep(resp.Header, responseHeaders)}
}

func keep(h http.Header, names []string) map[string][]string {
	var kept map[string][]string
	for _, k := range names {
		if tape.Sensitive(k) {
			continue
		}
		if vs := h.Values(k); len(vs) > 0 {
			if kept == nil {
				kept = make(map[string][]string, len(names))
			}
			kept[k] = vs
		}
	}
	return kept
}

// lastEventIDExtra marks a message of a resumed GET stream with the
// Last-Event-ID the client resumed from.
func lastEventIDExtra(id string) map[string]json.RawMessage {
	return map[string]json.RawMessage{"last_event_id": jsonscan.AppendString(nil, id)}
}

// CodeUpstreamUnreachable is the JSON-RPC error code of the proxy's own
// answer when the upstream cannot be reached (in the server-error range
// JSON-RPC leaves to implementations).
const CodeUpstreamUnreachable = -32000

// upstreamError is the body of the proxy's 502: a JSON-RPC error to id
// (null when the request had none) naming the upstream.
func upstreamError(id []byte, upstream string, err error) []byte {
	b := jsonrpc.ErrorResponse(id, CodeUpstreamUnreachable, "replayctl record: the upstream server "+upstream+" cannot be reached: "+err.Error(), nil)
	return append(b, '\n')
}

// unreachable is the id of the request whose upstream could not be
// reached, for the proxy's error answer; nil for a batch or no request.
func (ex *exchange) unreachable() []byte {
	ex.flushClient() // no status: there was no answer
	ex.settle()
	if ex.body == nil {
		return nil
	}
	m, err := jsonrpc.Parse(ex.body)
	if err != nil || m.Kind != jsonrpc.KindRequest {
		return nil
	}
	return m.ID
}
