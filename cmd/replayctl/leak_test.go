package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/debug"
	"github.com/replayctl/replayctl/internal/testleak"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

// FuzzDebuggerRedaction is the redaction property for the debugger's
// output (report's FuzzRedactEveryOutput has the reports and logs): for
// any secret, anywhere in a line — cut short at the line's width or not —
// every line the debugger prints of a result the engine gives (redacted
// and masked), of a tape's message (shown), and of raw bytes written
// through the app's redacting writer, holds it in no readable form.
func FuzzDebuggerRedaction(f *testing.F) {
	for _, s := range []string{"+", `"q"`, `a\b`, "é😀/", "<&>", "100%", " x "} {
		for _, pad := range []uint8{0, 60, 100, 110, 118} {
			f.Add(s, pad)
		}
	}
	f.Fuzz(func(t *testing.T, body string, pad uint8) {
		if len(body) > 64 || !utf8.ValidString(body) || strings.Contains(body, "redacted") || strings.ContainsFunc(body, func(r rune) bool {
			return unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError
		}) {
			t.Skip()
		}
		secret := "Tk" + body + "Zq"
		value := strings.Repeat("x", int(pad)) + secret // moves the secret across the cut
		rd := tape.RedactorOf([]string{secret})
		a := &app{}
		a.redactor.Store(rd)
		var out bytes.Buffer
		w := a.redacting(&out)

		raw := report.Result{Seq: 3, Method: "tools/call", Dir: report.DirC2S, Verdict: report.Failed,
			Out:      []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"m":` + quoteJSON(value) + `}}}`),
			Answer:   []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + quoteJSON(value) + `}]}}`),
			Recorded: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`),
			Differences: []report.Difference{{Path: "result.content[0].text", Expected: json.RawMessage(`"x"`),
				Actual: json.RawMessage(quoteJSON(value))}},
		}
		res := report.Redact(rd, raw) // as the engine hands results on
		m := debug.Shown(controller.Msg{Seq: 3, Dir: "c2s", Method: "tools/call", Raw: raw.Out,
			HTTP: &tape.HTTPMeta{Headers: map[string][]string{"X-Echo": {value}}}}, rd)
		for _, r := range []report.Result{res, raw} { // raw: the writer alone must hide it
			fmt.Fprintln(w, sentLine(r.Seq, r.Method, r.Out, defaultWidth))
			fmt.Fprintln(w, answerLine("← ", r.Answer, defaultWidth))
			fmt.Fprintln(w, verdictLine(painter(false), r, defaultWidth))
			fmt.Fprintln(w, answerLine("recorded ← ", r.Recorded, defaultWidth))
			fmt.Fprintln(w, diffLine(r.Differences[0]))
			fmt.Fprintln(w, wrap(diffFull(r.Differences[0]), defaultWidth))
			fmt.Fprintln(w, wrap(pretty(r.Answer), defaultWidth))
		}
		fmt.Fprintln(w, msgLine(m, true, defaultWidth))
		fmt.Fprintf(w, "%s\n%s\n", wrap(httpLine(m.HTTP), defaultWidth), wrap(pretty(m.Raw), defaultWidth))
		if how, ok := testleak.Find(out.String(), secret); ok {
			t.Errorf("the debugger shows %q (%s):\n%s", secret, how, out.String())
		}
		if !strings.Contains(out.String(), report.Redacted) {
			t.Errorf("nothing redacted:\n%s", out.String())
		}
	})
}
