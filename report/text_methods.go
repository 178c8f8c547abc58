package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/mcp"
)

// textMethodLimit is how many methods, and how many names, WriteText
// lists; the JSON report has them all.
const textMethodLimit = 20

// handshakeLine says what the handshake took and whether the latency
// line counts it: "20 requests: p50 1.2s p99 3.61s max 3.79s; left out of
// latency (--include-handshake counts it)".
func handshakeLine(h Handshake) string {
	s := english.Count(h.Requests, "request")
	if l := h.LatencyMS; l.Count > 0 {
		s += fmt.Sprintf(": p50 %s  p99 %s  max %s", FormatDurationMS(l.P50), FormatDurationMS(l.P99), FormatDurationMS(l.Max))
	}
	if n := h.Errors + h.Timeouts; n > 0 {
		s += fmt.Sprintf(", %s", english.Count(n, "error"))
	}
	if h.Included {
		return s + "; counted in latency (--include-handshake)"
	}
	return s + "; left out of latency (--include-handshake counts it)"
}

// methods writes the breakdown by method and by name as two tables.
func (t *textWriter) methods(r Report) {
	if len(r.PerMethod) == 0 {
		return
	}
	fmt.Fprintf(&t.buf, "\n%s\n", t.paint(ansiBold, "By method:"))
	t.methodTable(r.PerMethod, r.PerMethodOmitted, func(s MethodSummary) string {
		if s.Handshake {
			return s.Method + " (handshake)"
		}
		return s.Method
	})
	if len(r.PerName) == 0 {
		return
	}
	fmt.Fprintf(&t.buf, "\n%s\n", t.paint(ansiBold, "By tool, prompt and resource:"))
	t.methodTable(r.PerName, r.PerNameOmitted, func(s MethodSummary) string {
		switch s.Method {
		case mcp.MethodToolsCall:
			return "tool " + s.Name
		case mcp.MethodPromptsGet:
			return "prompt " + s.Name
		case mcp.MethodResourcesRead:
			return "resource " + s.Name
		}
		return s.Method + " " + s.Name
	})
}

// methodTable writes lines as an aligned table: the name, the counts, the
// latency percentiles. Its first count is of messages (requests, and the
// notifications sent or received, which have no latency), so that a
// notification's row does not read as nothing.
func (t *textWriter) methodTable(lines []MethodSummary, omitted int64, name func(MethodSummary) string) {
	header := []string{"", "messages", "passed", "failed", "errors", "p50", "p95", "p99", "max"}
	rows := [][]string{header}
	shown := min(len(lines), textMethodLimit)
	for _, s := range lines[:shown] {
		row := []string{clean(name(s)), strconv.FormatInt(s.Results, 10), strconv.FormatInt(s.Passed, 10),
			strconv.FormatInt(s.Failed, 10), strconv.FormatInt(s.Errors+s.Timeouts, 10)}
		if l := s.LatencyMS; l.Count > 0 {
			row = append(row, FormatDurationMS(l.P50), FormatDurationMS(l.P95), FormatDurationMS(l.P99), FormatDurationMS(l.Max))
		} else {
			row = append(row, "-", "-", "-", "-")
		}
		rows = append(rows, row)
	}
	width := make([]int, len(header))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], len([]rune(cell)))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-len([]rune(cell)))
			if i == 0 {
				b.WriteString(cell + pad)
				continue
			}
			b.WriteString("  " + pad + cell)
		}
		fmt.Fprintf(&t.buf, "  %s\n", strings.TrimRight(b.String(), " "))
	}
	if more := len(lines) - shown; more > 0 {
		fmt.Fprintf(&t.buf, "  and %d more (the JSON report lists them all)\n", more)
	}
	if omitted > 0 {
		fmt.Fprintf(&t.buf, "  and %s not broken down (--method-limit)\n", english.Count(omitted, "result"))
	}
}
