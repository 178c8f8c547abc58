package tape

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTP/1.1 for the pcap importer: an httpStream reads one direction of a
// connection, in order, as its bytes come (see halfStream), message by
// message: the start line and headers (parsed by net/http), then the
// body, by Content-Length, chunked, or up to the end of the stream, handed
// on piece by piece as it is decoded, so that an event stream's events
// come out with the time their bytes were captured.

// Bounds on what one HTTP message may hold; past them the message is
// given up (and said so), and the stream looks for the next one.
const (
	maxHTTPHead = 64 << 10 // start line and headers
	maxHTTPBody = 64 << 20 // a body that is kept whole (a POST's, a JSON answer's)
)

// errNotHTTP says that a stream does not start as HTTP/1.x does.
var errNotHTTP = errors.New("not HTTP/1.x")

type httpState uint8

const (
	hsHead       httpState = iota // reading a start line and headers
	hsBody                        // left bytes of a body of known length
	hsChunkSize                   // a chunk-size line
	hsChunkData                   // left bytes of a chunk
	hsChunkEnd                    // the CRLF after a chunk
	hsTrailer                     // trailer lines, up to an empty one
	hsUntilClose                  // a body that ends with the stream
	hsLost                        // looking for the next start line
	hsDone                        // the stream is not HTTP: ignored
)

// httpEvents receives what an httpStream reads.
type httpEvents interface {
	// request is a request's start line and headers, read at at (its
	// first byte).
	request(req *http.Request, at time.Time)
	// response is a response's status and headers; it reports whether
	// the response has no body whatever its headers say (the answer to
	// a HEAD).
	response(resp *http.Response, at time.Time) (noBody bool)
	// body is the next piece of the current message's body, decoded.
	body(data []byte, at time.Time)
	// end ends the current message; complete is false when the stream
	// ended or lost bytes before its end.
	end(at time.Time, complete bool)
	// lost says that bytes were lost or given up.
	lost(why string)
}

// httpStream reads one direction of a connection.
type httpStream struct {
	isResp bool // what it reads: responses (a server's side) or requests
	known  bool // isResp is known (from the first bytes)
	state  httpState
	buf    []byte
	left   int64
	inMsg  bool      // a message has started and not ended
	first  time.Time // when the first byte of the message being read came
	ev     httpEvents
}

// feed takes the next bytes of the stream, captured at at.
func (s *httpStream) feed(data []byte, at time.Time) {
	if s.state == hsDone {
		return
	}
	if s.state == hsLost && findStart(data, s.isResp, s.known) == 0 {
		s.buf = s.buf[:0] // a segment that starts a message: what came before is lost
	}
	if len(s.buf) == 0 && (s.state == hsHead || s.state == hsLost) {
		s.first = at
	}
	s.buf = append(s.buf, data...)
	for s.step(at) {
	}
	if len(s.buf) == 0 {
		s.buf = s.buf[:0:0] // a long stream does not keep its largest buffer
	}
}

// gap says that bytes were lost before the next ones.
func (s *httpStream) gap() {
	if s.state == hsDone {
		return
	}
	if s.inMsg {
		s.ev.end(time.Time{}, false)
		s.inMsg = false
		s.ev.lost("bytes of a message were not captured: the message is cut there")
	}
	s.buf = s.buf[:0]
	s.state = hsLost
}

// close ends the stream: a body that ends with it is complete.
func (s *httpStream) close(at time.Time) {
	if s.state == hsUntilClose {
		s.ev.end(at, true)
		s.inMsg = false
	} else if s.inMsg {
		s.ev.end(at, false) // an event stream open at the end of the capture ends so
		s.inMsg = false
	}
	s.state = hsDone
}

// step makes one move; it reports whether it can make another.
func (s *httpStream) step(at time.Time) bool {
	switch s.state {
	case hsLost:
		i := findStart(s.buf, s.isResp, s.known)
		if i < 0 {
			if len(s.buf) > 16 {
				s.buf = append(s.buf[:0], s.buf[len(s.buf)-16:]...)
			}
			return false
		}
		s.buf = s.buf[i:]
		s.state = hsHead
		return true
	case hsHead:
		return s.head(at)
	case hsBody:
		if len(s.buf) == 0 {
			return false
		}
		n := int(min(int64(len(s.buf)), s.left))
		s.ev.body(s.buf[:n], at)
		s.consume(n)
		s.left -= int64(n)
		if s.left == 0 {
			s.finish(at)
		}
		return true
	case hsChunkSize:
		line, ok := s.line()
		if !ok {
			return s.tooLong()
		}
		size := strings.TrimSpace(string(line))
		if i := strings.IndexByte(size, ';'); i >= 0 {
			size = strings.TrimSpace(size[:i])
		}
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil || n < 0 {
			s.ev.lost("a chunked body has a bad chunk size: the message is cut there")
			s.abandon()
			return true
		}
		s.left, s.state = n, hsChunkData
		if n == 0 {
			s.state = hsTrailer
		}
		return true
	case hsChunkData:
		if len(s.buf) == 0 {
			return false
		}
		n := int(min(int64(len(s.buf)), s.left))
		s.ev.body(s.buf[:n], at)
		s.consume(n)
		s.left -= int64(n)
		if s.left == 0 {
			s.state = hsChunkEnd
		}
		return true
	case hsChunkEnd:
		if _, ok := s.line(); !ok {
			return false
		}
		s.state = hsChunkSize
		return true
	case hsTrailer:
		line, ok := s.line()
		if !ok {
			return s.tooLong()
		}
		if len(bytes.TrimSpace(line)) == 0 {
			s.finish(at)
		}
		return true
	case hsUntilClose:
		if len(s.buf) == 0 {
			return false
		}
		s.ev.body(s.buf, at)
		s.buf = s.buf[:0]
		return false
	}
	return false
}

// head reads a start line and headers when they are all there.
func (s *httpStream) head(at time.Time) bool {
	if !s.known {
		switch {
		case len(s.buf) < 8:
			return false
		case bytes.HasPrefix(s.buf, []byte("HTTP/1.")):
			s.isResp, s.known = true, true
		case isMethodStart(s.buf):
			s.known = true
		default:
			s.state = hsDone
			s.buf = nil
			s.ev.lost(whyNotHTTP)
			return false
		}
	}
	end := bytes.Index(s.buf, []byte("\r\n\r\n"))
	n := end + 4
	if end < 0 {
		if end = bytes.Index(s.buf, []byte("\n\n")); end < 0 {
			if len(s.buf) > maxHTTPHead {
				s.ev.lost("an HTTP message's headers are longer than 64 KiB: it is skipped")
				s.buf = s.buf[:0]
				s.state = hsLost
			}
			return false
		}
		n = end + 2
	}
	br := bufio.NewReaderSize(bytes.NewReader(s.buf[:n]), n) // not 4 KiB a message
	if s.isResp {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return s.badHead(n)
		}
		s.consume(n)
		if resp.StatusCode >= 100 && resp.StatusCode < 200 {
			return true // 100 Continue: the real answer follows
		}
		s.inMsg = true
		noBody := s.ev.response(resp, s.first)
		switch {
		case noBody || resp.StatusCode == 204 || resp.StatusCode == 304:
			s.finish(at)
		case chunked(resp.TransferEncoding):
			s.state = hsChunkSize
		case resp.ContentLength >= 0:
			s.body(resp.ContentLength, at)
		default:
			s.state = hsUntilClose
		}
		return true
	}
	req, err := http.ReadRequest(br)
	if err != nil {
		return s.badHead(n)
	}
	s.consume(n)
	s.inMsg = true
	s.ev.request(req, s.first)
	switch {
	case chunked(req.TransferEncoding):
		s.state = hsChunkSize
	default:
		s.body(max(req.ContentLength, 0), at)
	}
	return true
}

func (s *httpStream) badHead(n int) bool {
	s.ev.lost("an HTTP message's start line or headers cannot be read: it is skipped")
	s.consume(n)
	s.state = hsLost
	return true
}

// body reads a body of n bytes.
func (s *httpStream) body(n int64, at time.Time) {
	if n == 0 {
		s.finish(at)
		return
	}
	s.left, s.state = n, hsBody
}

func (s *httpStream) finish(at time.Time) {
	s.ev.end(at, true)
	s.inMsg = false
	s.state = hsHead
	s.first = at // the next message's bytes, if any are here, came with these
}

// abandon gives up the current message and looks for the next.
func (s *httpStream) abandon() {
	if s.inMsg {
		s.ev.end(time.Time{}, false)
		s.inMsg = false
	}
	s.state = hsLost
}

// tooLong gives up a chunk line or trailer that does not end.
func (s *httpStream) tooLong() bool {
	if len(s.buf) > maxHTTPHead {
		s.ev.lost("a chunked body has a line longer than 64 KiB: the message is cut there")
		s.buf = s.buf[:0]
		s.abandon()
	}
	return false
}

// line takes the next line, without its end, when it is all there.
func (s *httpStream) line() ([]byte, bool) {
	i := bytes.IndexByte(s.buf, '\n')
	if i < 0 {
		return nil, false
	}
	line := bytes.TrimSuffix(s.buf[:i], []byte("\r"))
	line = append([]byte(nil), line...)
	s.consume(i + 1)
	return line, true
}

func (s *httpStream) consume(n int) {
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
}

func chunked(te []string) bool {
	for _, v := range te {
		if strings.EqualFold(v, "chunked") {
			return true
		}
	}
	return false
}

var methods = []string{"GET ", "POST ", "DELETE ", "PUT ", "HEAD ", "OPTIONS ", "PATCH "}

func isMethodStart(b []byte) bool {
	for _, m := range methods {
		if bytes.HasPrefix(b, []byte(m)) {
			return true
		}
	}
	return false
}

// findStart finds where the next HTTP message starts, at a line's start,
// or -1: a status line on a server's side, a request line on a client's
// (either while the side is not known yet).
func findStart(b []byte, isResp, known bool) int {
	for i := 0; i < len(b); i++ {
		if i > 0 && b[i-1] != '\n' {
			continue
		}
		rest := b[i:]
		if (!known || isResp) && bytes.HasPrefix(rest, []byte("HTTP/1.")) {
			return i
		}
		if (!known || !isResp) && isMethodStart(rest) {
			return i
		}
	}
	return -1
}
