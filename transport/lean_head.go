// Reading an answer's head on the lean client: the status line and
// header lines, parsed with what replayctl needs, sharing the last
// answer's header keys and values when its lines are the same bytes.

package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxHeadBytes bounds the status line and headers of an answer, as
// net/http's default MaxResponseHeaderBytes does.
const maxHeadBytes = 1 << 20

// headerLine is one header line of an answer, kept for the next answer
// of the connection to share its key and values when its line is the
// same bytes (a session's answers nearly always are, but for Date).
type headerLine struct {
	raw string
	key string
	val []string
}

// readHead reads an answer's status line and headers from br. prev holds
// the header lines of the connection's last answer; it becomes this
// one's. Errors say what was wrong; a failure before the first byte is a
// *noAnswerError.
func readHead(br *bufio.Reader, prev *[]headerLine) (*http.Response, error) {
	return readHeadInto(br, prev, nil)
}

// readHeadInto is readHead reading into resp, an earlier answer no one
// holds any more (its Header map emptied and kept); nil for a new one.
func readHeadInto(br *bufio.Reader, prev *[]headerLine, resp *http.Response) (*http.Response, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if len(line) == 0 {
			return nil, &noAnswerError{err}
		}
		return nil, headErr(err, "the status line")
	}
	if resp == nil {
		resp = &http.Response{}
	} else {
		h := resp.Header
		clear(h)
		*resp = http.Response{Header: h}
	}
	if err := parseStatus(trimEOL(line), resp); err != nil {
		return nil, err
	}
	size := len(line)
	old := *prev
	kept := old[:0] // kept[n] is written after old[n] is read
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, headErr(err, "the headers")
		}
		size += len(line)
		if size > maxHeadBytes {
			return nil, fmt.Errorf("malformed HTTP answer: its headers are longer than %d bytes", maxHeadBytes)
		}
		line = trimEOL(line)
		if len(line) == 0 {
			break
		}
		var hl headerLine
		if n < len(old) && old[n].raw == string(line) { // no allocation: the comparison of a []byte conversion
			hl = old[n]
		} else if hl, err = parseHeaderLine(line); err != nil {
			return nil, err
		}
		n++
		kept = append(kept, hl)
	}
	if resp.Header == nil {
		resp.Header = make(http.Header, len(kept))
	}
	for _, hl := range kept {
		if vs, ok := resp.Header[hl.key]; ok {
			resp.Header[hl.key] = append(vs[:len(vs):len(vs)], hl.val...)
		} else {
			resp.Header[hl.key] = hl.val
		}
	}
	*prev = kept
	return resp, nil
}

// headErr describes a failure to read part of an answer's head.
func headErr(err error, part string) error {
	if errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("malformed HTTP answer: a line of %s is longer than %d bytes", part, 4<<10)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading %s of the HTTP answer: %w", part, err)
}

// parseStatus reads "HTTP/1.1 200 OK" into resp.
func parseStatus(line []byte, resp *http.Response) error {
	bad := func() error {
		return fmt.Errorf("malformed HTTP answer: status line %q, want e.g. \"HTTP/1.1 200 OK\"", clip(line, 100))
	}
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || (line[7] != '0' && line[7] != '1') || line[8] != ' ' {
		return bad()
	}
	code := line[9:12]
	if code[0] < '1' || code[0] > '5' || code[1] < '0' || code[1] > '9' || code[2] < '0' || code[2] > '9' || (len(line) > 12 && line[12] != ' ') {
		return bad()
	}
	resp.StatusCode = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	resp.Proto, resp.ProtoMajor, resp.ProtoMinor = "HTTP/1.1", 1, 1
	if line[7] == '0' {
		resp.Proto, resp.ProtoMinor = "HTTP/1.0", 0
	}
	resp.Status = statusText(resp.StatusCode, line)
	return nil
}

// statusText is the Status of an answer: the common ones without an
// allocation.
func statusText(code int, line []byte) string {
	switch code {
	case http.StatusOK:
		if string(line[9:]) == "200 OK" {
			return "200 OK"
		}
	case http.StatusAccepted:
		if string(line[9:]) == "202 Accepted" {
			return "202 Accepted"
		}
	}
	return string(bytes.TrimSpace(line[9:]))
}

// parseHeaderLine reads "Name: value".
func parseHeaderLine(line []byte) (headerLine, error) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 || bytes.ContainsAny(line[:i], " \t") {
		return headerLine{}, fmt.Errorf("malformed HTTP answer: header line %q, want \"Name: value\"", clip(line, 100))
	}
	v := string(bytes.Trim(line[i+1:], " \t"))
	return headerLine{raw: string(line), key: http.CanonicalHeaderKey(string(line[:i])), val: []string{v}}, nil
}
