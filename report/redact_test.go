package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testleak"
	"github.com/replayctl/replayctl/tape"
)

func TestRedactor(t *testing.T) {
	r := tape.RedactorOf([]string{"s3cr<t\"x", "", "tok"})
	in := `a s3cr<t"x b s3cr<t\"x c s3cr&lt;t&#34;x d tok e`
	want := `a [redacted] b [redacted] c [redacted] d [redacted] e`
	if got := string(r.Bytes([]byte(in))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if _, err := r.Writer(&buf).Write([]byte("log tok line")); err != nil || buf.String() != "log [redacted] line" {
		t.Errorf("writer: got %q, %v", buf.String(), err)
	}
	var none *tape.Redactor = tape.RedactorOf(nil)
	if none != nil || string(none.Bytes([]byte("tok"))) != "tok" {
		t.Errorf("no secrets: want a nil redactor that changes nothing")
	}
	if b := []byte("nothing here"); &r.Bytes(b)[0] != &b[0] {
		t.Errorf("a text without a secret should come back as it is, not copied")
	}
}

// jsonOf is s as encoding/json writes it (HTML characters escaped).
func jsonOf(s string) string { b, _ := json.Marshal(s); return string(b) }

// escapeAll writes s as a JSON string with every character but letters
// and digits escaped, '/' as \/, as some servers (PHP's json_encode) do.
func escapeAll(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '/':
			b.WriteString(`\/`)
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04X\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + r>>10, 0xDC00 + r&0x3FF
}

// Each way an output can write a secret, by the writer that does it: the
// redactor hides it, and what is around it stays.
func TestRedactorEncodings(t *testing.T) {
	const secret = `Tk/+é"<&>\😀 '%z`
	var page bytes.Buffer
	template.Must(template.New("").Parse(`<td title="{{.}}">{{.}}</td>`)).Execute(&page, jsonOf(secret))
	var attr bytes.Buffer
	template.Must(template.New("").Parse(`<a href="/x?v={{.}}">x</a><script>var v = {{.}};</script>`)).Execute(&attr, secret)
	var x bytes.Buffer
	xml.EscapeText(&x, []byte("expected "+jsonOf(secret)))
	plain := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return strings.TrimSpace(b.String())
	}
	var zl bytes.Buffer
	zlog := zerolog.New(&zl)
	zlog.Error().Str("body", secret).Err(fmt.Errorf("answer %q", jsonOf(secret))).Msg("failed")
	tests := []struct{ name, out string }{
		{"raw", secret},
		{"encoding/json", jsonOf(secret)},
		{"encoding/json, HTML not escaped", plain(secret)},
		{"every character escaped, \\/ and upper case", escapeAll(secret)},
		{"JSON in JSON", jsonOf(`{"text":` + jsonOf(secret) + `}`)},
		{"JSON in JSON in JSON", jsonOf(jsonOf(jsonOf(secret)))},
		{"html/template text and attribute", page.String()},
		{"html/template URL and script", attr.String()},
		{"html.EscapeString", template.HTMLEscapeString(secret)},
		{"encoding/xml of JSON", x.String()},
		{"Go %q", fmt.Sprintf("%q", secret)},
		{"Go %q of JSON", fmt.Sprintf("%q", jsonOf(secret))},
		{"zerolog JSON line", zl.String()},
		{"URL query", "http://h/mcp?token=" + url.QueryEscape(secret)},
		{"URL path", "http://h/" + url.PathEscape(secret)},
		{"base64 at 0", base64.StdEncoding.EncodeToString([]byte(secret + "!"))},
		{"base64 at 1", base64.StdEncoding.EncodeToString([]byte("u:" + secret))},
		{"base64 at 2, URL alphabet", base64.URLEncoding.EncodeToString([]byte("ab" + secret + "cd"))},
	}
	r := tape.RedactorOf([]string{secret})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "URL query" && tc.name != "URL path" {
				if _, ok := testleak.Find(tc.out, secret); !ok {
					t.Fatalf("the test is wrong: no secret in %s", tc.out)
				}
			}
			out := "keep<" + tc.out + ">keep"
			got := string(r.Bytes([]byte(out)))
			if how, ok := testleak.Find(got, secret); ok {
				t.Errorf("the secret is still there (%s):\n%s\nfrom\n%s", how, got, out)
			}
			if !strings.Contains(got, Redacted) || !strings.HasPrefix(got, "keep<") || !strings.HasSuffix(got, ">keep") {
				t.Errorf("got %s, want the secret replaced and the rest kept", got)
			}
		})
	}
}

// The forms the writers leave of characters they cannot write.
func TestRedactorLossyForms(t *testing.T) {
	const secret = "Tk\x01\ttab\xffZq"
	r := tape.RedactorOf([]string{secret})
	rep := Report{Errors: []ErrorEntry{{Seq: 1, Kind: "target", Message: "answer " + secret}}}
	rep.Performance.Errors = 1
	var text, js, junit bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "json": js.String(), "junit": junit.String()} {
		got := string(r.Bytes([]byte(out)))
		if strings.Contains(got, "tab") || !strings.Contains(got, Redacted) {
			t.Errorf("%s: the secret's lossy form is still there:\n%s", name, got)
		}
	}
}

// A value cut with "…" may end with the start of a secret: it goes too.
func TestRedactorCutValue(t *testing.T) {
	r := tape.RedactorOf([]string{"abcdefghij"})
	tests := []struct{ in, want string }{
		{"x abcdefg…", "x [redacted]…"},
		{`{"v":"abcd\u2026"}`, `{"v":"[redacted]\u2026"}`},
		{"x abc…", "x abc…"}, // shorter than minCut: three bytes say nothing
		{"x abcdefg", "x abcdefg"},
	}
	for _, tc := range tests {
		if got := string(r.Bytes([]byte(tc.in))); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Redacting a JSON document leaves it JSON, and changes nothing else.
func TestRedactorKeepsJSON(t *testing.T) {
	secret := `p@ss"w/ord+é`
	r := tape.RedactorOf([]string{secret})
	doc := `{"a":` + jsonOf(secret) + `,"b":` + escapeAll("x "+secret+" y") + `,"c":` + jsonOf(jsonOf(secret)) + `,"n":42}`
	got := r.Bytes([]byte(doc))
	if !json.Valid(got) {
		t.Fatalf("not JSON after redaction: %s", got)
	}
	want := `{"a":"[redacted]","b":"x\u0020[redacted]\u0020y","c":"\"[redacted]\"","n":42}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRedactorResultAndReport(t *testing.T) {
	const secret = "sk-live-42"
	r := tape.RedactorOf([]string{secret})
	diffs := []Difference{{Path: "result.text", Expected: json.RawMessage(`"a"`), Actual: json.RawMessage(`"` + secret + `"`)}}
	res := Result{Err: "bad " + secret, Differences: diffs, Out: []byte(`{"k":"` + secret + `"}`), Answer: []byte(`"` + secret + `"`),
		Method: "resources/read", Name: "https://h/?token=" + secret}
	got := Redact(r, res)
	if string(diffs[0].Actual) != `"`+secret+`"` {
		t.Errorf("Redact changed the caller's differences")
	}
	all := got.Err + string(got.Out) + string(got.Answer) + string(got.Differences[0].Actual) + got.Name
	if strings.Contains(all, secret) || strings.Count(all, Redacted) != 5 {
		t.Errorf("result not redacted: %+v", got)
	}
	rep := Report{
		Summary:    Summary{Target: "http://h/?token=" + secret, Aborted: "target failed: " + secret, Warnings: []string{secret}},
		Errors:     []ErrorEntry{{Message: secret}},
		Validation: Validation{Failures: []Failure{{Differences: diffs}}},
		Chaos:      Chaos{Faults: []Fault{{Detail: secret}}, Survival: []Survival{{Notes: []string{secret}}}},
		PerName:    []MethodSummary{{Method: "resources/read", Name: "https://h/?token=" + secret}},
		Histograms: Histograms{PerName: []GroupHistogram{{Method: "resources/read", Name: secret}}},
		Thresholds: []ThresholdResult{{Expr: "p99{tool:x}<1s", Detail: "the run has no tools/call \"x\"; it has " + secret}},
	}
	RedactReport(r, &rep)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), secret) {
		t.Errorf("report not redacted:\n%s", buf.String())
	}
}

// outputs renders rep in every format an output of replayctl has, and
// the log and error lines that carry the same values.
func outputs(t testing.TB, rep Report, secret string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":       func(b *bytes.Buffer) error { return rep.WriteText(b, false) },
		"text/color": func(b *bytes.Buffer) error { return rep.WriteText(b, true) },
		"json":       func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
		"junit":      func(b *bytes.Buffer) error { return rep.WriteJUnit(b) },
		"html":       func(b *bytes.Buffer) error { return rep.WriteHTML(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.Bytes()
	}
	err := fmt.Errorf("target failed: POST http://h/mcp: answer %q", `{"error":`+jsonOf(secret)+`}`)
	var js, console bytes.Buffer
	jl, cl := zerolog.New(&js), zerolog.New(zerolog.ConsoleWriter{Out: &console, NoColor: true})
	jl.Warn().Str("header", "Bearer "+secret).Err(err).Msg("request failed")
	cl.Warn().Str("header", "Bearer "+secret).Err(err).Msg(secret)
	out["log/json"], out["log/console"] = js.Bytes(), console.Bytes()
	out["error line"] = []byte(fmt.Sprintf("replayctl: %v\n", err))
	return out
}

// secretReport is a report with secret wherever a value from the wire, an
// error or the user can reach it, each in the form it would come in.
func secretReport(secret string, serverForm string) Report {
	c := NewCollector(WithRunID("run"))
	c.Start(at(0))
	c.Add(Result{Seq: 3, Session: "s1", Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
		Due: at(0), Sent: at(0), Answered: at(time.Millisecond), Verdict: Failed, Differences: []Difference{
			{Path: "result.content[0].text", Expected: json.RawMessage(`"recorded"`), Actual: json.RawMessage(serverForm), Kind: "changed"},
			{Path: `result[` + jsonOf(secret) + `]`, Actual: json.RawMessage(`1`), Kind: "extra"},
			{Path: "result.blob", Expected: json.RawMessage(`"` + base64.StdEncoding.EncodeToString([]byte("x"+secret)) + `"`), Kind: "missing"},
		}})
	c.Add(Result{Seq: 5, Session: "s1", Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
		Due: at(0), Sent: at(0), Verdict: Error, ErrKind: "target",
		Err: fmt.Sprintf("POST http://h/mcp: 401 Unauthorized: %s", `{"error":"bad token `+jsonOf(secret)+`"}`)})
	c.AddFault(Fault{Seq: 5, Session: "s1", Kind: "malformed", Detail: "truncated " + secret})
	c.Finish(at(time.Second))
	rep := c.Report(Meta{Tape: "t.jsonl", Sessions: 1, Target: "http://h/mcp?token=" + url.QueryEscape(secret),
		Speed: speedOf("fast"), Warnings: []string{"server said " + secret}})
	rep.Abort(fmt.Sprintf("target failed: %q", secret))
	rep.Chaos.Survival = []Survival{{Session: "s1", Notes: []string{"after " + secret}}}
	return rep
}

// FuzzRedactEveryOutput is the property of redaction: for any secret, in
// any form a server or an error gives it, through every writer — text,
// JSON, JUnit, HTML, the logs, the error line — the redacted output holds
// the secret in no form a reader could recover (testleak), and says
// [redacted] where it was.
func FuzzRedactEveryOutput(f *testing.F) {
	for _, s := range []string{"", "+", "a+b/c", `"quoted"`, `back\slash`, "é😀", "<script>&amp;", "100%", " spaced out ",
		"\u2028line", "'single'", "x]]>y", "&#43;", `\u0041`, "Ab==", "日本語のトークン", "a\\\"b"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, body string, form uint8) {
		if len(body) > 64 || !utf8.ValidString(body) || strings.Contains(body, "redacted") || strings.ContainsFunc(body, func(r rune) bool {
			return unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError
		}) {
			t.Skip() // lossy forms: TestRedactorLossyForms
		}
		secret := "Tk" + body + "Zq"
		serverForm := [...]string{jsonOf(secret), escapeAll(secret), jsonOf("echo: " + secret)}[form%3]
		r := tape.RedactorOf([]string{secret})
		for name, out := range outputs(t, secretReport(secret, serverForm), secret) {
			got := r.Bytes(out)
			if how, ok := testleak.Find(string(got), secret); ok {
				t.Errorf("%s: the secret %q is readable (%s) after redaction:\n%s", name, secret, how, got)
			}
			if !bytes.Contains(got, []byte(Redacted)) {
				t.Errorf("%s: nothing redacted:\n%s", name, got)
			}
		}
	})
}

func BenchmarkRedactor(b *testing.B) {
	r := tape.RedactorOf([]string{"sk-live-0123456789abcdef", `p@ss"word+é`})
	msg := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"Weather in Paris: 21\u00b0C, \"sunny\" \u0026 dry"}]}}`)
	var big bytes.Buffer
	for big.Len() < 1<<20 {
		big.Write(msg)
		big.WriteString("\n")
	}
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"size=message", msg}, {"size=1MB", big.Bytes()}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.in)))
			for b.Loop() {
				r.Bytes(tc.in)
			}
		})
	}
}

// TestRedactAnswerAsRecorded: an answer that came as it was recorded,
// or so but for its numeric id, is masked once (issue 24); what Redact
// shows is still, message by message, what masking and redacting each on
// its own shows, and the caller's bytes are left as they were.
func TestRedactAnswerAsRecorded(t *testing.T) {
	const secret = "sk-live-42"
	r := tape.RedactorOf([]string{secret})
	msg := func(id, token, text string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"token":"` + token + `","text":"` + text + `"}}`
	}
	for _, tc := range []struct{ name, answer, recorded string }{
		{"same", msg("1", "t0k", secret), msg("1", "t0k", secret)},
		{"other id", msg("7", "t0k", secret), msg("1", "t0k", secret)},
		{"other id, nothing to mask", msg("7", "", "a"), msg("-1", "", "a")},
		{"other id, the recorded one to mask", msg("7", "", "a"), msg("1", "t0k", "a")},
		{"other id, a string", msg(`"7"`, "", "a"), msg(`"1"`, "t0k", "a")},
		{"different", msg("1", "t0k", secret), msg("1", "other", secret+" 2")},
		{"a number in a string", `{"id":1,"result":{"text":"id 1"}}`, `{"id":1,"result":{"text":"id 2","token":"x"}}`},
		{"a number in a name", `{"id":1,"result":{"k1":"x"}}`, `{"id":1,"result":{"k2":"x"}}`},
		{"id nested", `{"result":{"id":1}}`, `{"result":{"id":2,"password":"p"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range []*tape.Redactor{nil, r} {
				answer, recorded := []byte(tc.answer), []byte(tc.recorded)
				got := Redact(rd, Result{Answer: answer, Recorded: recorded})
				if string(answer) != tc.answer || string(recorded) != tc.recorded {
					t.Fatalf("Redact changed the caller's messages")
				}
				wantA, wantR := tape.Mask([]byte(tc.answer)), tape.Mask([]byte(tc.recorded))
				if rd != nil {
					wantA, wantR = rd.Bytes(wantA), rd.Bytes(wantR)
				}
				if string(got.Answer) != string(wantA) || string(got.Recorded) != string(wantR) {
					t.Errorf("redactor %v:\nanswer   %s\nrecorded %s\nwant     %s\nand      %s", rd != nil, got.Answer, got.Recorded, wantA, wantR)
				}
			}
		})
	}
	got := Redact(r, Result{Answer: []byte(msg("7", "t0k", secret)), Recorded: []byte(msg("1", "t0k", secret))})
	if want := msg("1", Redacted, Redacted); string(got.Recorded) != want {
		t.Errorf("recorded %s, want %s", got.Recorded, want)
	}
}
