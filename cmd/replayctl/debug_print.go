package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// defaultWidth is the width of the debugger's lines when the output is
// not a terminal (whose own width is used otherwise).
const defaultWidth = 80

// minWidth is the narrowest width lines are fitted to: below it a line
// would hold too little to read.
const minWidth = 20

// painter colours text on a terminal and leaves it plain elsewhere.
type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p painter) green(s string) string  { return p.paint("32", s) }
func (p painter) red(s string) string    { return p.paint("31", s) }
func (p painter) dim(s string) string    { return p.paint("2", s) }
func (p painter) yellow(s string) string { return p.paint("33", s) }
func (p painter) bold(s string) string   { return p.paint("1", s) }

// oneLine puts a message on one line and cuts it to width runes with
// "…": whitespace outside strings goes (a single space stays between two
// words, for bytes that are not JSON), control bytes become spaces. It
// reads no further than the line needs, so a huge message costs no more
// than a small one.
func oneLine(b []byte, width int) string {
	out := make([]byte, 0, min(len(b), 4*width+4))
	runes, inStr, esc, space := 0, false, false, false
	structural := func(c byte) bool { return strings.IndexByte("{}[],:", c) >= 0 }
	for i := 0; i < len(b) && runes <= width; i++ {
		c := b[i]
		if !inStr && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = true
			continue
		}
		if space && len(out) > 0 && !structural(out[len(out)-1]) && !structural(c) {
			out = append(out, ' ')
			runes++
		}
		space = false
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		}
		if c < 0x20 {
			c = ' '
		}
		out = append(out, c)
		if c&0xC0 != 0x80 {
			runes++
		}
	}
	return truncate(string(out), width)
}

// truncate cuts s to width runes, the last one "…".
func truncate(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// pretty indents JSON for print; bytes that are not JSON come back as
// they are.
func pretty(b []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, bytes.TrimSpace(b), "", "  ") != nil {
		return string(b)
	}
	return buf.String()
}

// payload is the part of a message worth a line: a request's params, an
// answer's result or error; the whole message when it has none of them.
func payload(msg []byte) []byte {
	rpc, err := jsonrpc.Parse(msg)
	if err != nil {
		return msg
	}
	for _, p := range [][]byte{rpc.Params(), rpc.Result(), rpc.Error()} {
		if p != nil {
			return p
		}
	}
	if rpc.Kind == jsonrpc.KindRequest || rpc.Kind == jsonrpc.KindNotification {
		return nil
	}
	return msg
}

// httpLine is the recorded HTTP metadata of a message, on a line:
// "http 200  Content-Type: application/json  Mcp-Session-Id: 1f3a", the
// headers in name order, as masked by the caller.
func httpLine(h *tape.HTTPMeta) string {
	s := "http"
	if h.Status != 0 {
		s += " " + strconv.Itoa(h.Status)
	}
	for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
		for _, v := range h.Headers[k] {
			s += "  " + k + ": " + v
		}
	}
	return truncate(strings.Map(func(r rune) rune {
		if r < 0x20 {
			return ' '
		}
		return r
	}, s), 16*defaultWidth)
}

// sentLine is "→ seq 5 tools/call {"name":"echo",…}", width runes at most.
// The method is the one msg has, as sent; when that is not the tape's
// (a modify), "→ seq 3 tools/call (tape: tools/list) {…}".
func sentLine(seq int64, method string, msg []byte, width int) string {
	label := method
	if rpc, err := jsonrpc.Parse(msg); err == nil && rpc.Method != "" && rpc.Method != method {
		label = rpc.Method
		if method != "" {
			label += " (tape: " + method + ")"
		}
	}
	head := fmt.Sprintf("→ seq %d %s", seq, label)
	if seq < 0 {
		head = "→ injected " + label
	}
	p := payload(msg)
	if len(p) == 0 {
		return truncate(head, width)
	}
	return fitLine(head, p, width)
}

// answerLine is "← {"content":[…]}", prefix "← " or "recorded ← ",
// width runes at most.
func answerLine(prefix string, msg []byte, width int) string {
	rpc, err := jsonrpc.Parse(msg)
	if err == nil && rpc.Kind == jsonrpc.KindError {
		prefix += "error "
	}
	return fitLine(strings.TrimSuffix(prefix, " "), payload(msg), width)
}

// fitLine is head, a space and as much of msg on one line as fits in
// width runes (head alone cut when even it does not fit).
func fitLine(head string, msg []byte, width int) string {
	room := width - utf8.RuneCountInString(head) - 1
	if room < 2 {
		return truncate(head, width)
	}
	return head + " " + oneLine(msg, room)
}

// diffFull is a difference with its whole values: "path: expected →
// actual", for diff (wrap fits it to the width).
func diffFull(d report.Difference) string {
	return fmt.Sprintf("%s: %s → %s", diffPath(d), jsonFull(d.Expected), jsonFull(d.Actual))
}

// diffPath is d's path, "$ (the whole answer, success→error)" when the
// whole answer differs: the kind says how.
func diffPath(d report.Difference) string {
	if d.Path != "" && d.Path != "$" {
		return d.Path
	}
	if d.Kind == "" {
		return "$ (the whole answer)"
	}
	return "$ (the whole answer, " + string(d.Kind) + ")"
}

func jsonFull(b json.RawMessage) string {
	if b == nil {
		return "(absent)"
	}
	b = excerptText(b)
	return oneLine(b, len(b)+1)
}

// excerptText is b, or, when b is a report's excerpt of an object or an
// array (report.Excerpt: a JSON string of the start of its JSON text,
// ending "… (N bytes)"), that text itself, so that it reads as JSON.
func excerptText(b json.RawMessage) json.RawMessage {
	if len(b) < 2 || b[0] != '"' || !bytes.HasSuffix(b, []byte(` bytes)"`)) || (b[1] != '{' && b[1] != '[') {
		return b
	}
	var s string
	if json.Unmarshal(b, &s) != nil || !strings.Contains(s, "… (") {
		return b
	}
	return json.RawMessage(s)
}

// wrap fits each line of s into width runes: a longer line goes on over
// the next lines (broken after a space where one is near the end), each indented as the line was and two more (up to half
// the width). Escape sequences (colour) are counted as text: wrap plain
// text only.
func wrap(s string, width int) string {
	width = max(width, minWidth)
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		r := []rune(line)
		if len(r) <= width {
			b.WriteString(line)
			continue
		}
		lead := len(line) - len(strings.TrimLeft(line, " "))
		indent := strings.Repeat(" ", min(lead+2, width/2))
		n := breakAt(r, width)
		b.WriteString(string(r[:n]))
		for r = r[n:]; len(r) > 0; {
			n = breakAt(r, width-len(indent))
			b.WriteString("\n" + indent + string(r[:n]))
			r = r[n:]
		}
	}
	return b.String()
}

// diffLine is "result.content[0].text: "a" → "b"".
func diffLine(d report.Difference) string {
	return fmt.Sprintf("%s: %s → %s", diffPath(d), jsonOrAbsent(d.Expected), jsonOrAbsent(d.Actual))
}

func jsonOrAbsent(b json.RawMessage) string {
	if b == nil {
		return "(absent)"
	}
	return oneLine(excerptText(b), 50)
}

// breakAt is how many runes of r go on a line of width: all when they
// fit, else up to a space in the second half of the line (kept at its
// end), else width.
func breakAt(r []rune, width int) int {
	if len(r) <= width {
		return len(r)
	}
	for i := width - 1; i >= width/2; i-- {
		if r[i] == ' ' {
			return i + 1
		}
	}
	return width
}

// verdictLine is "✓ passed (3.1ms)" or "✗ failed: path: "a" → "b" (+2
// more, see diff)", wrapped to width runes (a failure says what differs
// rather than being cut).
func verdictLine(p painter, r report.Result, width int) string {
	latency := ""
	if !r.Sent.IsZero() && !r.Answered.IsZero() {
		latency = " (" + report.FormatMS(float64(r.Answered.Sub(r.Sent).Microseconds())/1000) + ")"
	}
	switch r.Verdict {
	case report.Passed, report.Warned:
		return p.green("✓ "+string(r.Verdict)) + latency
	case report.Sent:
		if r.Seq < 0 {
			return p.dim("· injected: not on the tape, nothing to check") + latency
		}
		return p.dim("· sent, nothing to check") + latency
	case report.Skipped:
		return p.dim(truncate("· skipped: "+r.Err, width))
	case report.Failed:
		s := "✗ failed"
		if len(r.Differences) > 0 {
			s += ": " + diffLine(r.Differences[0])
		}
		if n := len(r.Differences) - 1; n > 0 {
			s += fmt.Sprintf(" (+%d more, see diff)", n)
		}
		return p.red(wrap(s+latency, width))
	}
	return p.red(wrap("✗ "+string(r.Verdict)+": "+r.Err+latency, width))
}

// msgLine is one line of list: "=> 5 c2s tools/call {…}", width runes
// at most.
func msgLine(m controller.Msg, current bool, width int) string {
	mark := "  "
	if current {
		mark = "=>"
	}
	what := m.Method
	if what == "" {
		what = m.Kind
		if m.ID != "" {
			what += " " + m.ID
		}
	}
	head := fmt.Sprintf("%s %4d %s %s", mark, m.Seq, m.Dir, what)
	if p := payload(m.Raw); len(p) > 0 {
		return fitLine(head, p, width)
	}
	return truncate(head, width)
}

// statusLine is where the replay stands, in a line; next is the seq of
// the next client message, checked how many answers were compared with
// the recording (the summary's count: a notification sent is not).
func statusLine(st controller.Status, next, checked int64) string {
	s := fmt.Sprintf("%s before seq %d", st.State, next)
	if st.Reason != "" {
		s += " (" + st.Reason + ")"
	}
	return s + fmt.Sprintf("; speed %s; released %d, sent %d, checked %d", st.Speed, st.Released, st.Sent, checked)
}

// helpEntry is a command's line of help: "  name  description", the
// description broken between words into lines of width runes at most,
// each under the column where it starts (on a narrow width, under the
// name, indented). The width is the terminal's, or 80 columns when the
// output is not a terminal (debugger.cols).
func helpEntry(name, help string, width int) string {
	head := fmt.Sprintf("  %-32s ", name)
	col := utf8.RuneCountInString(head)
	if width-col < 24 { // too narrow for the column: the description goes under the name
		return strings.TrimRight(head, " ") + "\n" + wordWrap(help, "      ", width)
	}
	return head + strings.TrimLeft(wordWrap(help, strings.Repeat(" ", col), width), " ")
}

// wordWrap breaks s between words into lines of width runes at most, each
// starting with indent; a word longer than a line has one to itself.
func wordWrap(s, indent string, width int) string {
	var b strings.Builder
	n := 0 // runes on the current line
	for _, w := range strings.Fields(s) {
		wn := utf8.RuneCountInString(w)
		switch {
		case n == 0:
			b.WriteString(indent + w)
			n = utf8.RuneCountInString(indent) + wn
		case n+1+wn > width:
			b.WriteString("\n" + indent + w)
			n = utf8.RuneCountInString(indent) + wn
		default:
			b.WriteString(" " + w)
			n += 1 + wn
		}
	}
	return b.String()
}
