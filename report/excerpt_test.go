package report

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	long := `{"text":"` + strings.Repeat("a", 10000) + `"}`
	tests := []struct {
		name   string
		raw    string
		limit  int
		prefix string // the excerpt's text starts so ("" when raw comes back)
	}{
		{"short value as it is", `{"a":1}`, 100, ""},
		{"at the limit as it is", strings.Repeat("1", 100), 100, ""},
		{"long object", long, 100, `{"text":"aaa`},
		{"long string: its text", `"` + strings.Repeat("a", 10000) + `"`, 100, "aaaa"},
		{"string of escapes, none cut", `"` + strings.Repeat(`\"\u00e9\n`, 100) + `"`, 100, "\"é\n\"é\n"},
		{"string then more", `"ab" ` + strings.Repeat("a", 200), 100, `"ab" aaa`},
		{"control bytes and bad UTF-8", strings.Repeat("\x01\xff é\u2028", 100), 100, "\x01\ufffd é\u2028"},
		{"tiny limit counts as 64", long, 3, `{"text":"a`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Excerpt(json.RawMessage(tc.raw), tc.limit)
			if tc.prefix == "" {
				if string(got) != tc.raw {
					t.Fatalf("got %s, want the value as it is", got)
				}
				return
			}
			if len(got) > max(tc.limit, minExcerpt) {
				t.Errorf("got %d bytes, want at most %d", len(got), max(tc.limit, minExcerpt))
			}
			var s string
			if err := json.Unmarshal(got, &s); err != nil {
				t.Fatalf("got %s: not a JSON string: %v", got, err)
			}
			if suffix := "… (" + strconv.Itoa(len(tc.raw)) + " bytes)"; !strings.HasPrefix(s, tc.prefix) || !strings.HasSuffix(s, suffix) {
				t.Errorf("got %q, want %q…%q", s, tc.prefix, suffix)
			}
			if again := Excerpt(got, tc.limit); !bytes.Equal(again, got) {
				t.Errorf("excerpt of the excerpt: got %s, want it unchanged", again)
			}
		})
	}
}

// FuzzExcerpt: whatever the value, its excerpt is valid JSON within the
// limit, says the value's size, and is its own excerpt.
func FuzzExcerpt(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `"\u0000\\"`, "\xff\xfe\x00", `[1,2,3]`,
		`"` + strings.Repeat(`a\u00e9\"é`, 20) + `"`, `{"t":"` + strings.Repeat("\x01\\", 50) + `"}`} {
		f.Add([]byte(s), 70)
	}
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		limit = limit % 512
		got := Excerpt(raw, limit)
		if len(raw) <= max(limit, minExcerpt) {
			if !bytes.Equal(got, raw) {
				t.Fatalf("got %q, want %q as it is", got, raw)
			}
			return
		}
		if len(got) > max(limit, minExcerpt) || !json.Valid(got) || !utf8.Valid(got) {
			t.Fatalf("got %q (%d bytes): want valid JSON of at most %d bytes", got, len(got), max(limit, minExcerpt))
		}
		if !bytes.HasSuffix(got, []byte("… ("+strconv.Itoa(len(raw))+` bytes)"`)) {
			t.Fatalf("got %q, want it to end with the size %d", got, len(raw))
		}
		if again := Excerpt(got, limit); !bytes.Equal(again, got) {
			t.Fatalf("excerpt of %q: got %q, want it unchanged", got, again)
		}
	})
}

// TestReportOfHugeAnswerIsSmall: a 50 MB answer that differs, and an
// error message as long, make a report of a few KB in every format, and
// the collector keeps none of the answer alive.
func TestReportOfHugeAnswerIsSmall(t *testing.T) {
	const size = 50_000_000
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	c := NewCollector()
	func() {
		answer := make([]byte, 0, size+64)
		answer = append(answer, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`...)
		at := len(answer) - 1
		answer = append(answer, bytes.Repeat([]byte("x"), size)...)
		answer = append(answer, `"}]}}`...)
		value := answer[at : at+size+2] // the text, a slice of the answer as the validator gives it
		r := request(1, 0, 0, time.Millisecond, Failed)
		r.Differences = []Difference{{Path: "result.content[0].text", Expected: json.RawMessage(`"call 1"`), Actual: value, Kind: "changed"}}
		r.Answer = answer
		c.Add(r)
		e := request(2, 0, 0, time.Millisecond, Error)
		e.Err = "invalid answer: " + string(value)
		c.Add(e)
	}()
	rep := c.Report(Meta{Tape: "t.jsonl", Sessions: 1, Warnings: []string{strings.Repeat("w", size)}})

	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 10<<20 {
		t.Errorf("the heap grew by %d bytes and stays so: the collector keeps the 50 MB answer alive", grew)
	}

	writers := map[string]func(*bytes.Buffer) error{
		"json":  func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
		"text":  func(b *bytes.Buffer) error { return rep.WriteText(b, false) },
		"junit": func(b *bytes.Buffer) error { return rep.WriteJUnit(b) },
		"html":  func(b *bytes.Buffer) error { return rep.WriteHTML(b) },
	}
	for name, write := range writers {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.Len() > 64<<10 {
			t.Errorf("%s report: %d bytes, want a few KB", name, b.Len())
		}
		if name == "json" {
			var back Report
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatalf("the JSON report is not valid JSON: %v", err)
			}
			d := back.Validation.Failures[0].Differences[0]
			var s string
			if err := json.Unmarshal(d.Actual, &s); err != nil || !strings.HasPrefix(s, "xxx") || !strings.HasSuffix(s, "… (50000002 bytes)") {
				t.Errorf("actual: got %.60s… (%v), want an excerpt of the text that says its size", d.Actual, err)
			}
			if string(d.Expected) != `"call 1"` {
				t.Errorf("expected: got %s, want the small value as it is", d.Expected)
			}
			if msg := back.Errors[0].Message; len(msg) > MaxValueBytes || !strings.HasSuffix(msg, " bytes)") {
				t.Errorf("error message: %d bytes, want at most %d ending with its size", len(msg), MaxValueBytes)
			}
		}
	}
}
