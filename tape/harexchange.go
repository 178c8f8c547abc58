package tape

import (
	"strings"

	"github.com/replayctl/replayctl/mcp"
)

// Why an entry is skipped, as the warnings say it.
const (
	skipMethod   = "not a POST, GET or DELETE: not MCP traffic"
	skipPOST     = "a POST whose body is not a JSON-RPC message: not MCP traffic"
	skipGET      = "a GET whose answer is not a text/event-stream: not an MCP server stream"
	skipGETEmpty = "a GET stream that carried no JSON-RPC message"
	skipDELETE   = "a DELETE (it ends a session and carries no message)"
)

// requestHeaders are the request headers kept on a client message.
func keepRequestHeader(name string) bool {
	if Sensitive(name) {
		return false
	}
	l := strings.ToLower(name)
	return strings.HasPrefix(l, "mcp-") || l == "last-event-id"
}

// responseHeaders are the answer headers kept on a server message, as a
// live HTTP connection keeps them.
var responseHeaders = []string{"Content-Type", mcp.HeaderSessionID, "Retry-After"}

// harExchange returns the messages of one entry in the order they went
// (the client's, then the server's), with Dir, Msg, HTTP and SSE set and
// Line the entry's; or why the entry is not MCP traffic.
func harExchange(d *vcrDoc, it *harItem, p string) ([]Message, string, error) {
	e := &it.harEntry
	var out []Message
	reqMeta := &HTTPMeta{Status: e.Response.Status}
	for _, nv := range e.Request.Headers {
		if keepRequestHeader(nv.Name) {
			if reqMeta.Headers == nil {
				reqMeta.Headers = map[string][]string{}
			}
			reqMeta.Headers[canonical(nv.Name)] = append(reqMeta.Headers[canonical(nv.Name)], nv.Value)
		}
	}
	switch strings.ToUpper(e.Request.Method) {
	case "POST":
		if e.Request.PostData == nil {
			return nil, skipPOST, nil
		}
		b, err := harBody(e.Request.PostData.Text, e.Request.PostData.Encoding)
		if err != nil {
			return nil, "", entryErr(d, it, "%s.request.postData.text is not valid base64 (%v): fix the file", p, err)
		}
		msg := rpcBody(b)
		if msg == nil {
			return nil, skipPOST, nil
		}
		out = append(out, Message{Dir: C2S, Msg: msg, HTTP: reqMeta, Line: it.line})
	case "GET":
		if mediaTypeOf(e.Response.Content.MimeType) != "text/event-stream" &&
			mediaTypeOf(header(e.Response.Headers, "Content-Type")) != "text/event-stream" {
			return nil, skipGET, nil
		}
	case "DELETE":
		return nil, skipDELETE, nil
	default:
		return nil, skipMethod, nil
	}
	answers, err := harAnswers(d, it, p)
	if err != nil {
		return nil, "", err
	}
	if answers == nil && len(out) == 0 {
		return nil, skipGETEmpty, nil
	}
	return append(out, answers...), "", nil
}

// harAnswers returns the server's messages in an entry's response.
func harAnswers(d *vcrDoc, it *harItem, p string) ([]Message, error) {
	e := &it.harEntry
	c := e.Response.Content
	if c.Text == "" {
		return nil, nil
	}
	meta := &HTTPMeta{Status: e.Response.Status}
	for _, k := range responseHeaders {
		if v := header(e.Response.Headers, k); v != "" {
			if meta.Headers == nil {
				meta.Headers = map[string][]string{}
			}
			meta.Headers[k] = []string{v}
		}
	}
	b, err := harBody(c.Text, c.Encoding)
	if err != nil {
		return nil, entryErr(d, it, "%s.response.content.text is not valid base64 (%v): fix the file", p, err)
	}
	mt := mediaTypeOf(c.MimeType)
	if mt == "" {
		mt = mediaTypeOf(header(e.Response.Headers, "Content-Type"))
	}
	switch mt {
	case "application/json":
		msg := rpcBody(b)
		if msg == nil {
			return nil, nil // an error page in JSON: its status is on the request
		}
		return []Message{{Dir: S2C, Msg: msg, HTTP: meta, Line: it.line}}, nil
	case "text/event-stream":
		events, tail := splitSSE(b)
		it.tail = tail
		var out []Message
		for _, ev := range events {
			msg := rpcBody(ev.data)
			if msg == nil {
				continue // a priming event, or data that is not JSON-RPC
			}
			out = append(out, Message{Dir: S2C, Msg: msg, HTTP: meta, Line: it.line,
				SSE: &SSEMeta{ID: ev.id, Event: ev.event, Retry: ev.retry}})
		}
		return out, nil
	}
	return nil, nil
}

// canonical is a header name as net/http writes it: Mcp-Session-Id.
func canonical(name string) string {
	b := []byte(strings.ToLower(name))
	up := true
	for i, c := range b {
		if up && 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
		up = c == '-'
	}
	return string(b)
}

// entryErr is an error about an entry, at the line it starts on.
func entryErr(d *vcrDoc, it *harItem, format string, args ...any) *Error {
	e := d.errf(0, format, args...)
	e.Line = it.line
	return e
}
