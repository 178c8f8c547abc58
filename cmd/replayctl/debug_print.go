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

// lineWidth is how much of a message one line of the debugger shows.
const lineWidth = 120

// painter colours text on a terminal and leaves it plain elsewhere.
type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p painter) green(s string) string { return p.paint("32", s) }
func (p painter) red(s string) string   { return p.paint("31", s) }
func (p painter) dim(s string) string   { return p.paint("2", s) }
func (p painter) bold(s string) string  { return p.paint("1", s) }

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
	}, s), 4*lineWidth)
}

// sentLine is "→ seq 5 tools/call {"name":"echo",…}".
func sentLine(seq int64, method string, msg []byte) string {
	head := fmt.Sprintf("→ seq %d %s", seq, method)
	if seq < 0 {
		head = "→ injected " + method
	}
	p := payload(msg)
	if len(p) == 0 {
		return head
	}
	return head + " " + oneLine(p, lineWidth-utf8.RuneCountInString(head)-1)
}

// answerLine is "← {"content":[…]}", prefix "← " or "recorded ← ".
func answerLine(prefix string, msg []byte) string {
	rpc, err := jsonrpc.Parse(msg)
	if err == nil && rpc.Kind == jsonrpc.KindError {
		prefix += "error "
	}
	return prefix + oneLine(payload(msg), lineWidth-utf8.RuneCountInString(prefix))
}

// diffLine is "result.content[0].text: "a" → "b"".
func diffLine(d report.Difference) string {
	return fmt.Sprintf("%s: %s → %s", d.Path, jsonOrAbsent(d.Expected), jsonOrAbsent(d.Actual))
}

func jsonOrAbsent(b json.RawMessage) string {
	if b == nil {
		return "(absent)"
	}
	return oneLine(b, 50)
}

// verdictLine is "✓ passed (3.1ms)" or "✗ failed: path: "a" → "b" (+2
// more, see diff)".
func verdictLine(p painter, r report.Result) string {
	latency := ""
	if !r.Sent.IsZero() && !r.Answered.IsZero() {
		latency = fmt.Sprintf(" (%.1fms)", float64(r.Answered.Sub(r.Sent).Microseconds())/1000)
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
		return p.dim("· skipped: " + r.Err)
	case report.Failed:
		s := "✗ failed"
		if len(r.Differences) > 0 {
			s += ": " + diffLine(r.Differences[0])
		}
		if n := len(r.Differences) - 1; n > 0 {
			s += fmt.Sprintf(" (+%d more, see diff)", n)
		}
		return p.red(s) + latency
	}
	return p.red("✗ "+string(r.Verdict)+": "+r.Err) + latency
}

// msgLine is one line of list: "=> 5 c2s tools/call {…}".
func msgLine(m controller.Msg, current bool) string {
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
		head += " " + oneLine(p, lineWidth-utf8.RuneCountInString(head)-1)
	}
	return head
}

// statusLine is where the replay stands, in a line; next is the seq of
// the next client message.
func statusLine(st controller.Status, next int64) string {
	s := fmt.Sprintf("%s before seq %d", st.State, next)
	if st.Reason != "" {
		s += " (" + st.Reason + ")"
	}
	return s + fmt.Sprintf("; speed %s; released %d, sent %d, judged %d", st.Speed, st.Released, st.Sent, st.Judged)
}
