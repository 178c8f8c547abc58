package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// The page draws an MRTR chain and a task's polls as one group each in
// their lane, with a count, from what the replay judged and its results'
// bytes; a plain request between them is in no group.
func TestBrowserGroupsRoundsAndPolls(t *testing.T) {
	ctx := browser(t)
	s := New(WithTitle("groups"))
	page := serve(t, s)
	run(t, ctx, "open the page", chromedp.Navigate(page))
	until(t, ctx, "the feed is open", `document.getElementById("conn").textContent === "live"`)

	type msg struct{ method, name, params, result string }
	msgs := []msg{
		{"tools/call", "ask", `{"name":"ask"}`, `{"resultType":"input_required","inputRequests":{"q":{}},"requestState":"a"}`},
		{"tools/call", "ask", `{"name":"ask","inputResponses":{"q":{}},"requestState":"a"}`, `{"resultType":"input_required","inputRequests":{"q":{}},"requestState":"b"}`},
		{"tools/call", "ask", `{"name":"ask","inputResponses":{"q":{}},"requestState":"b"}`, `{"resultType":"complete","content":[]}`},
		{"tools/list", "", `{}`, `{"tools":[]}`},
		{"tools/call", "long", `{"name":"long"}`, `{"resultType":"task","taskId":"t1","status":"working"}`},
		{"tasks/get", "", `{"taskId":"t1"}`, `{"resultType":"complete","taskId":"t1","status":"working"}`},
		{"tasks/get", "", `{"taskId":"t1"}`, `{"resultType":"complete","taskId":"t1","status":"working"}`},
		{"tasks/get", "", `{"taskId":"t1"}`, `{"resultType":"complete","taskId":"t1","status":"completed"}`},
	}
	start := time.Now()
	for i, m := range msgs {
		seq := int64(i + 1)
		sent, answered := start.Add(time.Duration(i)*10*time.Millisecond), start.Add(time.Duration(i)*10*time.Millisecond+3*time.Millisecond)
		_ = s.Consumer().Handle([]event.Event{
			{Type: event.Sent, TUS: event.Stamp(start, sent), Session: "s1", Seq: seq, Method: m.method},
			{Type: event.Judged, TUS: event.Stamp(start, answered), Session: "s1", Seq: seq, Method: m.method, Kind: "request", Dir: "c2s",
				Name: m.name, Verdict: "passed", HasLag: true, Latency: 3 * time.Millisecond, HasLatency: true},
		})
		s.OnResult(report.Result{Seq: seq, Session: "s1", Method: m.method, Name: m.name, Dir: "c2s", Kind: "request",
			Sent: sent, Answered: answered, Verdict: report.Passed,
			Out:    fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, seq, m.method, m.params),
			Answer: fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":%s}`, seq, m.result)})
	}
	until(t, ctx, "the page has both groups", `replayView.groups().length === 2`)
	var groups []struct {
		Session, Kind, Label string
		Seqs                 []int64
	}
	eval(t, ctx, `replayView.groups()`, &groups)
	want := `[{s1 rounds 3 rounds [1 2 3]} {s1 task 3 polls [5 6 7 8]}]`
	if got := fmt.Sprint(groups); got != want {
		t.Errorf("the page's groups: %s, want %s", got, want)
	}
	shot(t, ctx, "groups.png")
}
