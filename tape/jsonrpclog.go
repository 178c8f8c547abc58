package tape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// DecodeLog imports a plain JSON-RPC log into a synthesized header, the
// messages in line order numbered from 0, and warnings.
//
// Each non-blank line holds one JSON-RPC message (or batch), in one of
// the shapes MCP loggers write:
//
//	{"jsonrpc":"2.0","id":1,"method":"tools/list"}
//	{"ts":"2026-05-01T10:00:00.120Z","direction":"send","message":{…}}
//	2026-05-01T10:00:00.120Z --> {"jsonrpc":"2.0",…}
//	<-- {"jsonrpc":"2.0",…}
//
// A wrapper object names the message "message", "msg", "payload" or
// "data", its time "ts", "timestamp" or "time" (ISO 8601, or a number of
// seconds or milliseconds since 1970), its direction "direction" or "dir".
// A prefix before the JSON may hold a time and a direction mark (-->, <--,
// ->, <-, >>>, <<<, >, <, send, recv, …).
//
// Directions are inferred from the messages, not taken from the marks: a
// request is the client's unless its method is one only servers send
// (mcp.ServerInitiated); a response goes opposite to the unanswered
// request with its id; a notification by its method. Where a message
// does not decide (ping, notifications/progress and /cancelled), the
// line's mark decides, read the way the log's decided lines use it (a
// client-side log's "send" is c2s, a server-side log's is s2c); with no
// mark, ping is the client's, progress the server's, cancelled the
// client's.
//
// Sessions: a new one (s1, s2, …) at each initialize request after the
// first. Times come from the lines' times, relative to the first, never
// decreasing; a log without times gets synthetic ones, 1 ms apart.
// Lines that are not JSON-RPC are an *Error naming the line.
func DecodeLog(path string, doc []byte) (Header, []Message, []string, error) {
	var store memStore
	h, im, warnings, err := decodeLog(path, bytes.NewReader(doc), 0, 0, &store)
	if err != nil {
		return Header{}, nil, nil, err
	}
	msgs, err := im.messages()
	if err != nil {
		return Header{}, nil, nil, err
	}
	return h, msgs, warnings, nil
}

// logLine is one message line as parsed.
type logLine struct {
	msg   []byte
	rpc   jsonrpc.Message
	mark  string // the direction mark, normalised: "a" (send-like), "b" (receive-like), or c2s/s2c
	at    time.Time
	hasAt bool
	line  int64
}

// logKey is what the import keeps of a line once its message is in the
// store: what decides its direction (see logDirections).
type logKey struct {
	kind   jsonrpc.Kind
	method string // interned: a log has few
	id     string // jsonrpc.IDKey of its id
	mark   string
}

// decodeLog imports the JSON-RPC log read from src, line by line, into
// store; lineBase is the number of lines before it, maxLine the longest
// line accepted (0: any).
func decodeLog(path string, src io.Reader, lineBase int64, maxLine int, store msgStore) (Header, *imported, []string, error) {
	var (
		keys    []logKey
		ats     []time.Time // the times of the lines that have one
		timedAt []int       // and which lines they are
		methods = map[string]string{}
		n       = lineBase
		session = 0
		br      = bufio.NewReaderSize(src, 64<<10)
		buf     []byte
	)
	h := Header{Format: FormatName, Version: FormatVersion, Tags: map[string]string{"imported_from": "jsonrpc-log"}}
	for {
		l, err := readLogLine(br, buf[:0], maxLine)
		buf = l
		if err == io.EOF && len(l) == 0 {
			break
		}
		n++
		if err == errLineTooLong {
			return Header{}, nil, nil, &Error{Path: path, Line: n, Seq: -1, Msg: fmt.Sprintf("the line is longer than %d bytes: split it, or raise the limit with --max-line", maxLine)}
		}
		if err != nil && err != io.EOF {
			return Header{}, nil, nil, &Error{Path: path, Line: n, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err)}
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		ll, msg := parseLogLine(l)
		if msg != "" {
			return Header{}, nil, nil, &Error{Path: path, Line: n, Seq: -1, Msg: msg}
		}
		if ll.rpc.Kind == jsonrpc.KindRequest && ll.rpc.Method == mcp.MethodInitialize || session == 0 {
			session++
		}
		if h.ProtocolVersion == "" {
			h.ProtocolVersion = messageVersion(ll.msg, nil)
		}
		if ll.hasAt {
			ats, timedAt = append(ats, ll.at), append(timedAt, len(keys))
		}
		// Dir is decided once every line is read (logDirections).
		if err := store.add(Message{Session: fmt.Sprintf("s%d", session), Dir: C2S, Msg: ll.msg, Line: n}); err != nil {
			return Header{}, nil, nil, &Error{Path: path, Line: n, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot keep the message (%v)", err)}
		}
		method, ok := methods[ll.rpc.Method]
		if !ok {
			method = strings.Clone(ll.rpc.Method)
			methods[method] = method
		}
		keys = append(keys, logKey{kind: ll.rpc.Kind, method: method, id: jsonrpc.IDKey(ll.rpc.ID), mark: ll.mark})
	}
	if len(keys) == 0 {
		return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: ErrEmpty, Msg: "the log holds no JSON-RPC message"}
	}
	dirs := logDirections(keys)

	var (
		base    time.Time
		hasBase bool
		now     int64
	)
	for _, at := range ats {
		if !hasBase || at.Before(base) {
			base, hasBase = at, true
		}
	}
	var warnings []string
	timed := len(ats)
	if timed > 0 && timed < len(keys) {
		warnings = append(warnings, fmt.Sprintf("tape %s: %d of %d lines have no time: each takes the time of the line before", path, len(keys)-timed, len(keys)))
	}
	refs := make([]importRef, len(keys))
	t := 0 // the next of ats
	for i := range keys {
		switch {
		case timed == 0:
			now = int64(i) * 1000
		case t < len(timedAt) && timedAt[t] == i:
			now = max(now, ats[t].Sub(base).Microseconds())
			t++
		}
		refs[i] = importRef{i: i, seq: int64(i), tus: now, dir: dirs[i]}
	}
	if hasBase {
		h.CreatedAt = base.UTC().Format(time.RFC3339Nano)
	}
	return h, &imported{store: store, refs: refs}, warnings, nil
}

// errLineTooLong is readLogLine's error for a line over the limit.
var errLineTooLong = errors.New("line too long")

// readLogLine appends the next line (without its newline) to buf; io.EOF
// with the last line if it has no newline, or with nothing at the end.
// A line longer than max (if max > 0) is errLineTooLong.
func readLogLine(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		if max > 0 && len(buf)+len(frag) > max+1 {
			return buf, errLineTooLong
		}
		buf = append(buf, frag...)
		switch err {
		case nil:
			return buf[:len(buf)-1], nil
		case bufio.ErrBufferFull:
			continue
		}
		return buf, err
	}
}

// wrapper member names, most common first.
var (
	logMsgKeys  = []string{"message", "msg", "payload", "data", "json"}
	logTimeKeys = []string{"ts", "timestamp", "time"}
	logDirKeys  = []string{"direction", "dir"}
)

// parseLogLine parses one non-blank line, or says why it is not a log line.
func parseLogLine(l []byte) (logLine, string) {
	var ll logLine
	j := jsonStart(l)
	if j < 0 {
		return ll, "not a JSON-RPC message: want one message per line, as JSON, maybe after a time and a direction mark (--> or <--); fix or remove the line"
	}
	prefix, body := l[:j], l[j:]
	if body[0] == '{' && pick(body, "jsonrpc") == nil {
		for _, k := range logMsgKeys {
			if m := pick(body, k); m != nil && (m[0] == '{' || m[0] == '[') {
				for _, tk := range logTimeKeys {
					if v := pick(body, tk); v != nil {
						ll.at, ll.hasAt = logTime(v)
						break
					}
				}
				for _, dk := range logDirKeys {
					var s string
					if v := pick(body, dk); v != nil && json.Unmarshal(v, &s) == nil {
						ll.mark = logMark(s)
						break
					}
				}
				body = m
				break
			}
		}
	}
	if len(prefix) > 0 {
		for _, f := range strings.Fields(strings.Trim(string(prefix), "[]")) {
			f = strings.Trim(f, "[]():")
			if t, ok := parseISO(f); ok && !ll.hasAt {
				ll.at, ll.hasAt = t, true
			} else if m := logMark(f); m != "" && ll.mark == "" {
				ll.mark = m
			}
		}
	}
	msg := rpcBody(body)
	if msg == nil {
		return ll, "the JSON on this line is not a JSON-RPC message (no \"jsonrpc\":\"2.0\" with a method, result or error): fix or remove the line"
	}
	ll.msg = msg
	ll.rpc, _ = jsonrpc.Parse(msg)
	return ll, ""
}

// jsonStart is where the JSON value that runs to the end of l starts, or -1.
func jsonStart(l []byte) int {
	for j := 0; j < len(l); j++ {
		if l[j] != '{' && l[j] != '[' {
			continue
		}
		if end, err := jsonscan.SkipValue(l, j); err == nil && end == len(l) && json.Valid(l[j:]) {
			return j
		}
	}
	return -1
}

// logMark normalises a direction mark: "c2s"/"s2c" when it names the
// sides, "a" (sent) or "b" (received) when it is relative to the logger.
func logMark(s string) string {
	switch strings.ToLower(s) {
	case "c2s", "client_to_server", "client->server", "to_server", "request":
		return string(C2S)
	case "s2c", "server_to_client", "server->client", "to_client":
		return string(S2C)
	case "-->", "->", ">>>", ">>", ">", "send", "sent", "out", "outgoing", "tx", "write":
		return "a"
	case "<--", "<-", "<<<", "<<", "<", "recv", "receive", "received", "in", "incoming", "rx", "read":
		return "b"
	}
	return ""
}

// logTime reads a time member: ISO 8601, or seconds (or milliseconds,
// when too large for seconds) since 1970.
func logTime(v []byte) (time.Time, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return parseISO(s)
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f <= 0 || math.IsInf(f, 0) {
		return time.Time{}, false
	}
	if f > 1e11 { // milliseconds
		f /= 1000
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
}

// isLogLine reports whether a first line (trimmed) is a line of a
// JSON-RPC log: a JSON-RPC message, alone, wrapped or after a prefix.
func isLogLine(l []byte) bool {
	ll, msg := parseLogLine(l)
	return msg == "" && ll.msg != nil
}
