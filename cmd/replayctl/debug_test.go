package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/report"
)

func TestFormatting(t *testing.T) {
	long := `{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 300) + `"}}`
	failed := report.Result{Seq: 5, Verdict: report.Failed, Differences: []report.Difference{
		{Path: "result.content[0].text", Expected: json.RawMessage(`"a"`), Actual: json.RawMessage(`"b"`)},
		{Path: "result.isError", Expected: nil, Actual: json.RawMessage(`true`)},
	}}
	tests := []struct {
		name, got, want string
	}{
		{"sent line, params", sentLine(5, "tools/call", []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{ "name": "echo" }}`), 120), `→ seq 5 tools/call {"name":"echo"}`},
		{"sent line, no params", sentLine(2, "notifications/initialized", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 120), `→ seq 2 notifications/initialized`},
		{"sent line, injected", sentLine(-1, "ping", []byte(`{"jsonrpc":"2.0","id":"x","method":"ping"}`), 120), `→ injected ping`},
		{"answer line", answerLine("← ", []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`), 120), `← {"content":[]}`},
		{"answer line, error", answerLine("← ", []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`), 120), `← error {"code":-1,"message":"no"}`},
		{"passed", verdictLine(false, report.Result{Verdict: report.Passed}, 120), "✓ passed"},
		{"passed in µs", verdictLine(false, report.Result{Verdict: report.Passed, Sent: time.Unix(5, 0), Answered: time.Unix(5, 42_000)}, 120), "✓ passed (42µs)"},
		{"passed in under 1µs", verdictLine(false, report.Result{Verdict: report.Passed, Sent: time.Unix(5, 0), Answered: time.Unix(5, 400)}, 120), "✓ passed (0µs)"},
		{"passed at once", verdictLine(false, report.Result{Verdict: report.Passed, Sent: time.Unix(5, 0), Answered: time.Unix(5, 0)}, 120), "✓ passed (0µs)"},
		{"passed in ms", verdictLine(false, report.Result{Verdict: report.Passed, Sent: time.Unix(5, 0), Answered: time.Unix(5, 3_100_000)}, 120), "✓ passed (3.1ms)"},
		{"failed", verdictLine(false, failed, 120), `✗ failed: result.content[0].text: "a" → "b" (+1 more, see diff)`},
		{"timeout", verdictLine(false, report.Result{Verdict: report.Timeout, Err: "no answer in 1s"}, 120), "✗ timeout: no answer in 1s"},
		{"absent", diffLine(failed.Differences[1]), "result.isError: (absent) → true"},
		{"colour", verdictLine(true, report.Result{Verdict: report.Passed}, 120), "\x1b[32m✓ passed\x1b[0m"},
		{"list, current", msgLine(controller.Msg{Seq: 3, Dir: "c2s", Method: "tools/list", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}, true, 120), "=>    3 c2s tools/list"},
		{"list, answer", msgLine(controller.Msg{Seq: 4, Dir: "s2c", Kind: "response", ID: "1", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}, false, 120), "      4 s2c response 1 {}"},
		{"not JSON", oneLine([]byte("a\n  b"), 10), "a b"},
		{"spaces in strings kept", oneLine([]byte(`{ "a" : "x  y",`+"\n"+` "b": [ 1, 2 ] }`), 40), `{"a":"x  y","b":[1,2]}`},
		{"escaped quote", oneLine([]byte(`{"a": "q\" } b", "c": 1}`), 40), `{"a":"q\" } b","c":1}`},
		{"cut", oneLine([]byte(`{"a": "abcdefghij"}`), 8), `{"a":"a…`},
		{"multibyte cut", oneLine([]byte(`"ééééééé"`), 4), `"éé…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
	if got := sentLine(7, "tools/call", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+long+`}`), 80); len([]rune(got)) != 80 || !strings.HasSuffix(got, "…") {
		t.Errorf("long line: got %d runes %q, want 80 ending in …", len([]rune(got)), got)
	}
	if got, want := pretty([]byte(`{"a":[1]}`)), "{\n  \"a\": [\n    1\n  ]\n}"; got != want {
		t.Errorf("pretty: got %q, want %q", got, want)
	}
}

// BenchmarkSentLine measures the line shown for each step, for params of
// growing size (the whole payload is compacted before it is cut).
func BenchmarkSentLine(b *testing.B) {
	for _, size := range []int{100, 10_000, 1_000_000} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", size) + `"}}}`)
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = sentLine(5, "tools/call", msg, defaultWidth)
			}
		})
	}
}

// oneLine reads what targets send: any bytes give at most width runes.
func FuzzOneLine(f *testing.F) {
	f.Add([]byte(`{"a": "x\" y", "b": [1, 2]}`), 20)
	f.Add([]byte("\xff\xfe not json \n"), 5)
	f.Fuzz(func(t *testing.T, b []byte, width int) {
		width = width%200 + 1
		if width < 1 {
			width += 200
		}
		got := oneLine(b, width)
		if n := len([]rune(got)); n > width {
			t.Errorf("got %d runes %q, want at most %d", n, got, width)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("got a line break in %q", got)
		}
	})
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name, in string
		width    int
		want     string
	}{
		{"fits", "abc\n  de", 20, "abc\n  de"},
		{"long", strings.Repeat("a", 25), 20, strings.Repeat("a", 20) + "\n  aaaaa"},
		{"keeps the indent", "    " + strings.Repeat("b", 40), 20, "    " + strings.Repeat("b", 16) + "\n      " + strings.Repeat("b", 14) + "\n      bbbbbbbbbb"},
		{"runes, not bytes", strings.Repeat("é", 21), 20, strings.Repeat("é", 20) + "\n  é"},
		{"at a space", "aaaaaaaaaaaaaa bbbbbbbbbb", 20, "aaaaaaaaaaaaaa \n  bbbbbbbbbb"},
		{"below the minimum", strings.Repeat("c", 21), 5, strings.Repeat("c", 20) + "\n  c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrap(tt.in, tt.width)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if n := len([]rune(l)); n > max(tt.width, minWidth) {
					t.Errorf("line %q is %d runes, more than %d", l, n, tt.width)
				}
			}
		})
	}
}
