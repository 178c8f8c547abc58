package tape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
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
	ls, err := openLog(path, bytes.NewReader(doc), 0, 0, 0)
	if err != nil {
		return Header{}, nil, nil, err
	}
	msgs := make([]Message, 0, ls.n)
	for k := range ls.n {
		m, err := ls.message(k)
		if err != nil {
			return Header{}, nil, nil, err
		}
		msgs = append(msgs, m)
	}
	return ls.h, msgs, ls.warnings, nil
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

// logStream is a JSON-RPC log served from its file. openLog reads every
// line once, to learn what the directions' marks mean (logDirs), the
// earliest time and how many lines have one; message then reads the lines
// again, in order, deciding each message's direction, session and time
// as it goes. Neither pass keeps a line: memory does not grow with the
// log (but for the requests still unanswered, by id).
type logStream struct {
	path     string
	src      io.ReadSeeker
	start    int64    // where the log's first non-blank line starts in src
	lineBase int64    // the lines before it
	maxLine  int      // 0: any
	tmp      *os.File // src, when it is a copy of a pipe: closed by close

	// learned by the first pass
	h        Header
	n        int // messages
	timed    int // messages with a time
	base     time.Time
	hasBase  bool
	last     int64 // the last message's time
	warnings []string
	dirs     *logDirs

	// the second pass: where it stands
	br      *bufio.Reader
	line    int64
	k       int // the next message
	session int
	now     int64
	buf     []byte
}

// FormatLog is one JSON-RPC message per line.
const FormatLog Format = "jsonrpc-log"

func init() { Register(logImporter{}) }

// logImporter imports a JSON-RPC log, told by a first line that holds a
// JSON-RPC message (alone, in a logger's wrapper, or after a prefix),
// served from the file line by line (see logStream). A file that cannot
// seek (a pipe) is copied to a temporary file in TMPDIR first, to be read
// again from there.
type logImporter struct{}

func (logImporter) Format() Format { return FormatLog }
func (logImporter) Stage() Stage   { return StageLine }

func (logImporter) Detect(p *Probe) bool {
	t := bytes.TrimSpace(p.First())
	if t[0] != '{' {
		return isLogLine(t)
	}
	if p.binary() {
		return false // the native reader says what is wrong with it
	}
	env, ok := p.envelope()
	return ok && lineType(p.First(), env) == "" && mayBeLogLine(env) && isLogLine(t)
}

func (logImporter) Import(p *Probe) (*Imported, error) {
	src, start := p.n.src, p.start
	var tmp *os.File
	if _, err := src.Seek(0, io.SeekCurrent); err != nil {
		if tmp, err = copyToTemp(p.Path(), p.Rest()); err != nil {
			return nil, err
		}
		src, start = tmp, 0
	}
	ls, err := openLog(p.Path(), src, start, p.lineBase(), p.n.r.opts.maxLine)
	if err != nil {
		if tmp != nil {
			removeTemp(tmp)
		}
		return nil, err
	}
	ls.tmp = tmp
	return &Imported{Header: ls.h, Warnings: ls.warnings, src: ls}, nil
}

// openLog reads the log in src from start, where its line lineBase+1
// begins, once through.
func openLog(path string, src io.ReadSeeker, start, lineBase int64, maxLine int) (*logStream, error) {
	ls := &logStream{path: path, src: src, start: start, lineBase: lineBase, maxLine: maxLine, dirs: newLogDirs()}
	ls.h = Header{Format: FormatName, Version: FormatVersion, Tags: map[string]string{"imported_from": "jsonrpc-log"}}
	if err := ls.rewind(); err != nil {
		return nil, err
	}
	var maxAt time.Time
	for {
		ll, err := ls.nextLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		ls.n++
		if ls.h.ProtocolVersion == "" {
			ls.h.ProtocolVersion = messageVersion(ll.msg, nil)
		}
		if ll.hasAt {
			ls.timed++
			if !ls.hasBase || ll.at.Before(ls.base) {
				ls.base, ls.hasBase = ll.at, true
			}
			if ls.timed == 1 || ll.at.After(maxAt) {
				maxAt = ll.at
			}
		}
		ls.dirs.next(keyOf(ll))
	}
	if ls.n == 0 {
		return nil, &Error{Path: path, Seq: -1, Err: ErrEmpty, Msg: "the log holds no JSON-RPC message"}
	}
	ls.dirs.decide()
	if ls.timed > 0 && ls.timed < ls.n {
		ls.warnings = append(ls.warnings, fmt.Sprintf("tape %s: %d of %d lines have no time: each takes the time of the line before", path, ls.n-ls.timed, ls.n))
	}
	switch {
	case ls.timed == 0:
		ls.last = int64(ls.n-1) * 1000
	default:
		ls.last = max(maxAt.Sub(ls.base).Microseconds(), 0)
	}
	if ls.hasBase {
		ls.h.CreatedAt = ls.base.UTC().Format(time.RFC3339Nano)
	}
	return ls, ls.rewind()
}

// rewind goes back to the log's first line.
func (ls *logStream) rewind() error {
	if _, err := ls.src.Seek(ls.start, io.SeekStart); err != nil {
		return &Error{Path: ls.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot read it again (%v): check the file", err)}
	}
	if ls.br == nil {
		ls.br = bufio.NewReaderSize(ls.src, 64<<10)
	} else {
		ls.br.Reset(ls.src)
	}
	ls.line, ls.k, ls.session, ls.now = ls.lineBase, 0, 0, 0
	ls.dirs.restart()
	return nil
}

// nextLine reads up to the next message line and parses it; io.EOF at
// the end.
func (ls *logStream) nextLine() (logLine, error) {
	for {
		l, err := readLogLine(ls.br, ls.buf[:0], ls.maxLine)
		ls.buf = l
		if err == io.EOF && len(l) == 0 {
			return logLine{}, io.EOF
		}
		ls.line++
		if err == ErrLineTooLong {
			return logLine{}, &Error{Path: ls.path, Line: ls.line, Seq: -1, Err: ErrLineTooLong,
				Msg: fmt.Sprintf("the line is longer than the limit of %s: if the log is right, raise the limit (--max-line)", sizeName(int64(ls.maxLine)))}
		}
		if err != nil && err != io.EOF {
			return logLine{}, &Error{Path: ls.path, Line: ls.line, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot read it (%v): check the file and the disk", err)}
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		ll, msg := parseLogLine(l)
		if msg != "" {
			return logLine{}, &Error{Path: ls.path, Line: ls.line, Seq: -1, Msg: msg}
		}
		ll.line = ls.line
		return ll, nil
	}
}

// message returns message k (seq k). Reading in order costs one line
// each; going back reads the log again from its start.
func (ls *logStream) message(k int) (Message, error) {
	if k < ls.k {
		if err := ls.rewind(); err != nil {
			return Message{}, err
		}
	}
	for {
		ll, err := ls.nextLine()
		if err == io.EOF {
			return Message{}, &Error{Path: ls.path, Seq: int64(k), Msg: "the log is shorter than when it was opened: it changed while it was read; import it again"}
		}
		if err != nil {
			return Message{}, err
		}
		i := ls.k
		ls.k++
		if ll.rpc.Kind == jsonrpc.KindRequest && ll.rpc.Method == mcp.MethodInitialize || ls.session == 0 {
			ls.session++
		}
		switch {
		case ls.timed == 0:
			ls.now = int64(i) * 1000
		case ll.hasAt:
			ls.now = max(ls.now, ll.at.Sub(ls.base).Microseconds())
		}
		dir := ls.dirs.next(keyOf(ll))
		if i == k {
			return Message{Seq: int64(i), TUS: ls.now, Session: fmt.Sprintf("s%d", ls.session), Dir: dir, Msg: ll.msg, Line: ll.line}, nil
		}
	}
}

// readLogLine appends the next line (without its newline) to buf; io.EOF
// with the last line if it has no newline, or with nothing at the end.
// A line longer than max (if max > 0) is ErrLineTooLong.
func readLogLine(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		if max > 0 && len(buf)+len(frag) > max+1 {
			return buf, ErrLineTooLong
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
