package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	return decodeLog(path, doc, 0)
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

func decodeLog(path string, doc []byte, lineBase int64) (Header, []Message, []string, error) {
	var lines []logLine
	n := lineBase
	for len(doc) > 0 {
		i := bytes.IndexByte(doc, '\n')
		var l []byte
		if i < 0 {
			l, doc = doc, nil
		} else {
			l, doc = doc[:i], doc[i+1:]
		}
		n++
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		ll, msg := parseLogLine(l)
		if msg != "" {
			return Header{}, nil, nil, &Error{Path: path, Line: n, Seq: -1, Msg: msg}
		}
		ll.line = n
		lines = append(lines, ll)
	}
	if len(lines) == 0 {
		return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: ErrEmpty, Msg: "the log holds no JSON-RPC message"}
	}
	dirs := logDirections(lines)

	h := Header{Format: FormatName, Version: FormatVersion, Tags: map[string]string{"imported_from": "jsonrpc-log"}}
	var (
		base    time.Time
		hasBase bool
		msgs    = make([]Message, 0, len(lines))
		session = 0
		now     int64
	)
	timed := 0
	for _, l := range lines {
		if l.hasAt {
			timed++
			if !hasBase || l.at.Before(base) {
				base, hasBase = l.at, true
			}
		}
	}
	var warnings []string
	if timed > 0 && timed < len(lines) {
		warnings = append(warnings, fmt.Sprintf("tape %s: %d of %d lines have no time: each takes the time of the line before", path, len(lines)-timed, len(lines)))
	}
	for i, l := range lines {
		if l.rpc.Kind == jsonrpc.KindRequest && l.rpc.Method == mcp.MethodInitialize || session == 0 {
			session++
		}
		switch {
		case timed == 0:
			now = int64(i) * 1000
		case l.hasAt:
			now = max(now, l.at.Sub(base).Microseconds())
		}
		if h.ProtocolVersion == "" {
			h.ProtocolVersion = messageVersion(l.msg, nil)
		}
		msgs = append(msgs, Message{Seq: int64(i), TUS: now, Session: fmt.Sprintf("s%d", session), Dir: dirs[i], Msg: l.msg, Line: l.line})
	}
	if hasBase {
		h.CreatedAt = base.UTC().Format(time.RFC3339Nano)
	}
	return h, msgs, warnings, nil
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
