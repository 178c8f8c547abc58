package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTextGroupsIdenticalFailures: one failure in each of 20 virtual
// sessions, judged in the order concurrent sessions end, is one block
// naming the sessions in natural order (s1#2 before s1#10), not ten
// identical blocks and "and 10 more"; a failure that differs is a block
// of its own. A message's seq is written "seq 5", as debug and JUnit
// write it ("#5" read like the session copy "s1#5").
func TestTextGroupsIdenticalFailures(t *testing.T) {
	c := NewCollector()
	order := []int{19, 1, 10, 2, 20, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 8, 16, 9, 17, 18}
	for _, k := range order {
		r := request(5, 0, 0, time.Millisecond, Failed)
		r.Session = fmt.Sprintf("s1#%d", k)
		r.Differences = []Difference{{Path: "result.content[0].text", Expected: json.RawMessage(`"12"`), Actual: json.RawMessage(`"13"`)}}
		c.Add(r)
	}
	other := request(7, 0, 0, time.Millisecond, Failed)
	other.Session = "s1#3"
	other.Differences = []Difference{{Path: "result.isError", Actual: json.RawMessage(`true`)}}
	c.Add(other)
	var buf bytes.Buffer
	if err := c.Report(Meta{Tape: "t.jsonl"}).WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	want := "  seq 5 tools/call in 20 sessions: s1#1, s1#2, s1#3, s1#4, s1#5, s1#6, s1#7, s1#8, s1#9, s1#10 and 10 more\n" +
		"    result.content[0].text: expected \"12\", got \"13\"\n" +
		"  seq 7 s1#3 tools/call\n" +
		"    result.isError: expected (absent), got true\n"
	if !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant it to contain:\n%s", got, want)
	}
	if n := strings.Count(got, "expected \"12\""); n != 1 {
		t.Errorf("the identical failure is printed %d times, want once:\n%s", n, got)
	}
	if strings.Contains(got, "and 11 more\n") || strings.Contains(got, "#5 ") {
		t.Errorf("got:\n%s\nwant no count of failures left out, and no #5", got)
	}
}

// TestHTMLSeqSpelling: the page writes a failure's seq as the text
// summary, debug and JUnit do: "seq 5".
func TestHTMLSeqSpelling(t *testing.T) {
	c := NewCollector()
	r := request(5, 0, 0, time.Millisecond, Failed)
	r.Differences = []Difference{{Path: "result", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`2`)}}
	c.Add(r)
	page := renderHTML(t, c.Report(Meta{Tape: "t.jsonl"}))
	if !strings.Contains(page, "<summary>seq 5 <code>s1</code>") {
		t.Errorf("the page's failure does not say \"seq 5\":\n%s", page[strings.Index(page, "<summary>"):][:200])
	}
}
