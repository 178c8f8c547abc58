package tape

import (
	"bytes"
	"strconv"
)

// sseEvent is one event of a recorded text/event-stream body.
type sseEvent struct {
	id    string
	event string
	data  []byte
	retry int64 // the retry field of the event's block, ms, or 0
}

// splitSSE splits a whole recorded text/event-stream body (a HAR
// response's content) into its events with data, by the rules of the
// WHATWG HTML spec that transport.SSEReader follows for a live stream:
// fields data, id, event and retry; comments; CRLF, CR or LF line
// endings; one leading byte order mark; an id holding NUL ignored; a
// block without data dispatches nothing. The one difference is at the
// end: a live reader drops an unterminated last block, while a recording
// cut when the capture stopped keeps it, so splitSSE returns it as well
// and says so (tail).
//
// It is a second, small parser rather than transport's because transport
// imports tape (for HTTPMeta and SSEMeta), so tape cannot import
// transport, and a complete body in memory needs none of the streaming,
// bounding and buffering that make up most of transport's reader. A fuzz
// test in tape_test holds the two to the same events.
func splitSSE(body []byte) (events []sseEvent, tail bool) {
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	var (
		cur     sseEvent
		data    []byte
		hasData bool
	)
	dispatch := func() {
		if hasData {
			cur.data = append([]byte{}, data...)
			events = append(events, cur)
		}
		cur, data, hasData = sseEvent{}, data[:0], false
	}
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		if i < 0 { // an unterminated last line
			sseField(body, &cur, &data, &hasData)
			break
		}
		line := body[:i]
		next := i + 1
		if body[i] == '\r' && next < len(body) && body[next] == '\n' {
			next++
		}
		body = body[next:]
		if len(line) == 0 {
			dispatch()
			continue
		}
		sseField(line, &cur, &data, &hasData)
	}
	if hasData {
		dispatch()
		tail = true
	}
	return events, tail
}

// sseField applies one non-empty line to the block being built.
func sseField(line []byte, cur *sseEvent, data *[]byte, hasData *bool) {
	if line[0] == ':' {
		return // a comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "data":
		if *hasData {
			*data = append(*data, '\n')
		}
		*data = append(*data, value...)
		*hasData = true
	case "event":
		cur.event = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			cur.id = string(value)
		}
	case "retry":
		if len(value) > 0 && len(bytes.Trim(value, "0123456789")) == 0 {
			if n, err := strconv.ParseInt(string(value), 10, 64); err == nil {
				cur.retry = n
			}
		}
	}
}

// appendSSE writes one event as a text/event-stream block.
func appendSSE(b []byte, id, event string, retry int64, data []byte) []byte {
	if id != "" {
		b = append(append(append(b, "id: "...), id...), '\n')
	}
	if event != "" {
		b = append(append(append(b, "event: "...), event...), '\n')
	}
	if retry > 0 {
		b = append(strconv.AppendInt(append(b, "retry: "...), retry, 10), '\n')
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		b = append(append(append(b, "data: "...), l...), '\n')
	}
	return append(b, '\n')
}
