// The headers of an HTTPConn's requests and what it keeps of its
// answers': the user's headers, session id and protocol version of a
// net/http request (newRequest), the standard headers of a stateless
// session's messages (standardHeaders, learnTools), and the answer
// headers kept in Incoming.HTTP (metaOf, httpMeta, mediaType).

package transport

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

// metaHeaders are the answer headers kept in Incoming.HTTP. They are
// canonical (http.CanonicalHeaderKey), as an answer's keys are, so they
// are looked up in its Header as they are, without Values' canonicalizing
// of each per answer (TestMetaHeadersCanonical).
var metaHeaders = []string{"Content-Type", HeaderSessionID, "Retry-After"}

// headerFirst is h.Get(key) for a canonical key, without Get's
// canonicalizing of it on each call.
func headerFirst(h http.Header, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// standardHeaders are the headers a message of a stateless session (MCP
// 2026-07-28 on) must carry, nil for none: Mcp-Protocol-Version from its _meta (or the
// session's, for a message without one), Mcp-Method, Mcp-Name and the
// Mcp-Param-* of the tool's x-mcp-header arguments, as the server listed
// its tools on this connection. A session-based message gets none, and
// neither does initialize or notifications/initialized.
func (c *HTTPConn) standardHeaders(msg []byte) http.Header {
	c.mu.Lock()
	sessionBased := c.protocolVersion != "" && c.stateless == ""
	c.mu.Unlock()
	if sessionBased { // an initialize was answered: nothing to derive
		return nil
	}
	return c.derivedHeaders(msg)
}

// derivedHeaders is standardHeaders for a session not known to be
// session-based.
func (c *HTTPConn) derivedHeaders(msg []byte) http.Header {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if mcp.MessageEra(m) == mcp.EraSession {
		// The handshake after a stateless probe (a server/discover the
		// server answered without the probe's revision, or refused):
		// session-based, so it carries no 2026 headers.
		c.stateless = ""
		return nil
	}
	v := mcp.MetaVersion(m.Params())
	switch {
	case v == "":
		v = c.stateless
	case mcp.EraOf(v) == mcp.EraStateless:
		c.stateless = v
	}
	if mcp.EraOf(v) != mcp.EraStateless {
		return nil
	}
	h := http.Header{HeaderProtocolVersion: {v}}
	for k, vs := range mcp.StandardHeaders(v, m, &c.tools) {
		h[k] = vs
	}
	return h
}

// learnTools keeps the x-mcp-header annotations of a tools/list result.
func (c *HTTPConn) learnTools(result []byte) {
	c.mu.Lock()
	err := c.tools.Learn(result)
	c.mu.Unlock()
	if err != nil {
		c.log.Debug().Err(err).Msg("tools whose x-mcp-header annotations are invalid get no Mcp-Param headers")
	}
}

// newRequest builds a request with the user's headers and, once known,
// the session id and protocol version.
func (c *HTTPConn) newRequest(ctx context.Context, method string, body io.Reader, initialize bool) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.url, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, c.url, err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if initialize {
		return req, nil
	}
	c.mu.Lock()
	sid, pv := headerValue(&c.sidValue, c.sessionID), headerValue(&c.pvValue, c.protocolVersion)
	c.mu.Unlock()
	if sid != nil {
		req.Header[HeaderSessionID] = sid
	}
	if pv != nil {
		req.Header[HeaderProtocolVersion] = pv
	}
	return req, nil
}

// The values of the headers every POST carries, shared by all requests:
// net/http only reads them, and an Add to one (its capacity is its
// length) makes a new slice.
var (
	postContentType = []string{"application/json"}
	postAccept      = []string{"application/json, text/event-stream"}
)

// headerValue is v as a header's values, nil for "": *kept when it holds
// v already, else a new slice kept in *kept. The caller holds c.mu.
func headerValue(kept *[]string, v string) []string {
	if v == "" {
		return nil
	}
	if k := *kept; len(k) == 1 && k[0] == v {
		return k
	}
	*kept = []string{v}
	return *kept
}

// metaOf is httpMeta(resp), the last answer's when it is alike: the
// answers of a session nearly always are (a status, a content type, one
// session id), and an HTTPMeta is never changed once made.
func (c *HTTPConn) metaOf(resp *http.Response) *tape.HTTPMeta {
	if m := c.meta.Load(); m != nil && sameMeta(m, resp) {
		return m
	}
	m := httpMeta(resp)
	c.meta.Store(m)
	return m
}

// sameMeta reports whether httpMeta(resp) would show what m shows.
func sameMeta(m *tape.HTTPMeta, resp *http.Response) bool {
	if m.Status != resp.StatusCode {
		return false
	}
	for _, k := range metaHeaders {
		if !slices.Equal(resp.Header[k], m.Headers[k]) {
			return false
		}
	}
	return true
}

// httpMeta is what Incoming.HTTP keeps of an answer.
func httpMeta(resp *http.Response) *tape.HTTPMeta {
	m := &tape.HTTPMeta{Status: resp.StatusCode}
	for _, k := range metaHeaders {
		if vs := resp.Header[k]; len(vs) > 0 {
			if m.Headers == nil {
				m.Headers = make(map[string][]string, len(metaHeaders))
			}
			m.Headers[k] = vs
		}
	}
	return m
}

// mediaType is the answer's content type without parameters, lower case.
func mediaType(resp *http.Response) string {
	var ct string
	if vs := resp.Header["Content-Type"]; len(vs) > 0 { // Get, without canonicalizing its key
		ct = vs[0]
	}
	switch ct {
	case "application/json", "text/event-stream": // what servers send: nothing to parse
		return ct
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}
