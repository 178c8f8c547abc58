// The answers that refuse a request (4xx, 5xx): a JSON-RPC error that
// answers the request is delivered as its answer (failed, answerOf);
// anything else becomes an *HTTPError (httpError, newHTTPError,
// retryAfter).

package transport

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
)

// failed reads a 4xx or 5xx answer to the message with the given id (a
// request when request is set), and closes it. A JSON-RPC error answering
// the request — as servers of MCP 2026-07-28 send for a header mismatch
// (-32020), an unknown method (-32601, HTTP 404) or bad params (-32602,
// HTTP 400) — is that request's answer: it is delivered, and judged like
// any other. So is a JSON-RPC error with a null id answering a POST that
// carried one request (a server that refused it before reading its id, as
// server-everything refuses a 2026-07-28 server/discover probe): it is
// delivered with the request's id in place of null, the rest of its bytes
// as they came, and logged at debug level. Anything else, and every 408,
// 429 and 5xx (which ask for a retry), is an *HTTPError.
func (c *HTTPConn) failed(resp *http.Response, id []byte, request bool) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, rpcErrorBytes))
	body = bytes.TrimSpace(body)
	retry := resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
	if id != nil && !retry && mediaType(resp) == "application/json" {
		if msg := answerOf(body, id, request); msg != nil {
			if !bytes.Equal(msg, body) {
				c.log.Debug().Int("status", resp.StatusCode).Str("id", string(id)).
					Msg("a JSON-RPC error with a null id answering a POST of one request: delivered as that request's answer")
			}
			in := Incoming{Msg: msg, At: time.Now(), HTTP: c.metaOf(resp)}
			return c.spawn(func() { c.deliver(in) }) // as an answer stream is read: not on the sender's goroutine
		}
	}
	return newHTTPError(resp, c.url, body[:min(len(body), errorBodyBytes)])
}

// answerOf is body as the answer to the message with id, when body is a
// JSON-RPC error to it: body itself when its id is id; body with its null
// id replaced by id when the message was a request; nil otherwise.
func answerOf(body, id []byte, request bool) []byte {
	mi := inspect(body)
	if mi.method != "" || mi.error == nil {
		return nil
	}
	if bytes.Equal(mi.id, id) {
		return body
	}
	if !request || mi.id != nil || !plainID(id) {
		return nil
	}
	m, err := jsonrpc.Parse(body)
	if err != nil || m.Kind != jsonrpc.KindError || string(m.ID) != "null" {
		return nil
	}
	return m.WithID(id)
}

// plainID reports whether id is one a JSON-RPC answer may carry: a string
// or a number. A request sent with another (chaos's invalid fault sends an
// object) gets no answer with it put in place of null.
func plainID(id []byte) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// httpError reads the start of a failed answer to a request to u, and
// closes it.
func httpError(resp *http.Response, u string) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyBytes))
	return newHTTPError(resp, u, body)
}

// newHTTPError describes a failed answer to a request to u, whose body
// starts with body.
func newHTTPError(resp *http.Response, u string, body []byte) error {
	e := &HTTPError{
		Method:     resp.Request.Method,
		URL:        u,
		Status:     resp.StatusCode,
		Body:       strings.TrimSpace(string(body)),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
		mediaType:  mediaType(resp),
	}
	if resp.StatusCode == http.StatusNotFound && resp.Request.Header.Get(HeaderSessionID) != "" {
		e.Body = "the server no longer knows this session (start a new one with initialize); " + e.Body
	}
	return e
}

// retryAfter parses a Retry-After value: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
