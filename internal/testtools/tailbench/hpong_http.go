package main

// hpong's HTTP/1.1: the request heads it reads and the answers it
// writes, plain functions over bytes. It reads what bench-tail.sh's
// clients send (a POST with a Content-Length body, on a keep-alive
// connection, pipelined or not) and refuses, with a 4xx (505 for another
// version) and a closed connection, what it does not handle: chunked
// bodies, Expect, HTTP/1.0, heads over maxHead, bodies over maxBody,
// and (400, as net/http does) a request with no Host.

import (
	"bytes"
	"strconv"
	"time"
)

// The largest request head and body hpong reads (the slow server reads
// bodies up to slowmcp.MaxBody, 16 MiB; no client of bench-tail.sh
// sends more than a few hundred bytes).
const (
	maxHead = 8 << 10
	maxBody = 1 << 20
)

// request is one HTTP request at the start of a buffer.
type request struct {
	method, path []byte // path without its query
	body         []byte
	end          int  // the length of head and body
	close        bool // Connection: close
	// status, when not 0, is the error to answer (and close): the
	// request is not one hpong reads; why says so.
	status int
	why    string // the body, ending in a newline but net/http's own
}

// parseRequest reads the request b begins with; complete is false while
// b holds less than all of it. A request hpong refuses comes back
// complete with its status and why: the connection is answered and
// closed (its end is not known, the rest of b cannot be read).
func parseRequest(b []byte) (r request, complete bool) {
	headEnd := bytes.Index(b, []byte("\r\n\r\n"))
	if headEnd < 0 {
		if len(b) > maxHead {
			return refuse(431, "hpong: the request head is longer than 8 KiB"), true
		}
		return request{}, false
	}
	if headEnd > maxHead {
		return refuse(431, "hpong: the request head is longer than 8 KiB"), true
	}
	head := b[:headEnd]
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	method, line, ok1 := bytes.Cut(line, []byte(" "))
	target, version, ok2 := bytes.Cut(line, []byte(" "))
	if !ok1 || !ok2 || len(method) == 0 || len(target) == 0 || target[0] != '/' {
		return refuse(400, "hpong: not an HTTP request line: want METHOD /path HTTP/1.1"), true
	}
	if string(version) != "HTTP/1.1" {
		return refuse(505, "hpong: HTTP/1.1 only"), true
	}
	r.method = method
	r.path, _, _ = bytes.Cut(target, []byte("?"))
	length, seenLength, host := 0, false, false
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok || len(name) == 0 || name[0] == ' ' || name[0] == '\t' || name[len(name)-1] == ' ' {
			return refuse(400, "hpong: a header line is not NAME: VALUE (folded lines are not read)"), true
		}
		value = bytes.Trim(value, " \t")
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.ParseUint(string(value), 10, 31)
			if err != nil || value[0] == '+' || seenLength && int(n) != length {
				return refuse(400, "hpong: Content-Length is not one length"), true
			}
			if n > maxBody {
				return refuse(413, "hpong: the body is longer than 1 MiB"), true
			}
			length, seenLength = int(n), true
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			// 411: the body's length is what hpong needs and was not given.
			return refuse(411, "hpong: Transfer-Encoding (chunked bodies) is not read: send a Content-Length body"), true
		case bytes.EqualFold(name, []byte("Expect")):
			return refuse(417, "hpong: Expect is not met: send the body with the head"), true
		case bytes.EqualFold(name, []byte("Connection")):
			r.close = hasToken(value, "close")
		case bytes.EqualFold(name, []byte("Host")):
			host = true
		}
	}
	if !host {
		// net/http's answer, word for word (HTTP/1.1 requires Host).
		return request{status: 400, why: "400 Bad Request: missing required Host header", close: true}, true
	}
	r.end = headEnd + 4 + length
	if len(b) < r.end {
		return request{}, false
	}
	r.body = b[headEnd+4 : r.end]
	return r, true
}

// refuse is the refusal of status saying why; why is the body, with
// a newline added.
func refuse(status int, why string) request {
	return request{status: status, why: why + "\n", close: true}
}

// hasToken reports whether the comma-separated list v holds token, in
// any case.
func hasToken(v []byte, token string) bool {
	for len(v) > 0 {
		var t []byte
		t, v, _ = bytes.Cut(v, []byte(","))
		if bytes.EqualFold(bytes.Trim(t, " \t"), []byte(token)) {
			return true
		}
	}
	return false
}

// statusText is the reason phrase of each status hpong answers with.
func statusText(status int) string {
	switch status {
	case 200:
		return "OK"
	case 202:
		return "Accepted"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 411:
		return "Length Required"
	case 413:
		return "Request Entity Too Large"
	case 417:
		return "Expectation Failed"
	case 431:
		return "Request Header Fields Too Large"
	case 505:
		return "HTTP Version Not Supported"
	}
	return "Status"
}

// The head lines hpong's answers carry, as the slow server's net/http
// writes them.
const (
	jsonType  = "Content-Type: application/json\r\n"
	textType  = "Content-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n"
	allowPost = "Allow: POST\r\n"
)

// The slow server's text answers, which hpong gives alike.
const (
	notFound   = "404 page not found\n"
	postOnly   = "slow: POST a JSON-RPC message; this stateless server has no SSE stream and no session\n"
	dateFormat = "Mon, 02 Jan 2006 15:04:05 GMT" // http.TimeFormat
)

// clock is the Date line of the answers, formatted once a second.
type clock struct {
	sec  int64
	line []byte // "Date: ...\r\n"
}

// date returns the Date line for now (unix ns).
func (c *clock) date(now int64) []byte {
	if sec := now / 1e9; sec != c.sec || c.line == nil {
		c.sec = sec
		c.line = append(c.line[:0], "Date: "...)
		c.line = time.Unix(sec, 0).UTC().AppendFormat(c.line, dateFormat)
		c.line = append(c.line, "\r\n"...)
	}
	return c.line
}

// appendHead appends an answer's head: the status line, the lines of
// extra (each ending in CRLF), Date, Content-Length and, when close,
// Connection: close.
func appendHead(dst []byte, status int, extra string, date []byte, length int, close bool) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, ' ')
	dst = append(dst, statusText(status)...)
	dst = append(dst, "\r\n"...)
	dst = append(dst, extra...)
	dst = append(dst, date...)
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(length), 10)
	dst = append(dst, "\r\n"...)
	if close {
		dst = append(dst, "Connection: close\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// appendText appends a whole text/plain answer; to a HEAD (head), its
// head alone, the length of text given, as net/http answers a HEAD.
func appendText(dst []byte, status int, extra string, date []byte, text string, close, head bool) []byte {
	dst = appendHead(dst, status, extra+textType, date, len(text), close)
	if head {
		return dst
	}
	return append(dst, text...)
}
