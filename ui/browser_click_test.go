package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/replayctl/replayctl/engine/event"
)

// A click on a bar opens the message whose bar is drawn there, on top:
// when a slow answer's bar spans the next requests of its session (a
// loaded machine: an answer 90 ms late under requests 40 ms apart), each
// of them opens, and the slow one where it shows. The page draws a
// lane's messages in order, each over the ones before; a request sent
// late also has a line from its due time, under the bars.
//
// TestBrowserLiveReplay/failing clicked the middle of the failed
// request's bar and lag line together, where under load an earlier
// request's late answer could be: the earlier one opened, and the test
// waited for differences that never came (1 of 40 runs under burners).
func TestBrowserClicksTheBarOnTop(t *testing.T) {
	ctx := browser(t)
	s := New(WithTitle("overlapping bars"))
	page := serve(t, s)
	run(t, ctx, "open the page", chromedp.Navigate(page))
	until(t, ctx, "the feed is open", `document.getElementById("conn").textContent === "live"`)

	ms := time.Millisecond
	for _, m := range []struct {
		seq                 int64
		due, sent, answered time.Duration
		verdict             string
	}{
		{2, 0, 0, 2 * ms, "passed"},
		{3, 40 * ms, 40 * ms, 130 * ms, "passed"},   // a slow answer, over the next two
		{4, 70 * ms, 80 * ms, 85 * ms, "failed"},    // sent 10 ms late: a line from 70 ms
		{5, 120 * ms, 125 * ms, 128 * ms, "passed"}, // within the slow bar, to its end
		{6, 160 * ms, 160 * ms, 162 * ms, "passed"},
	} {
		_ = s.Consumer().Handle([]event.Event{
			{Type: event.Sent, TUS: m.sent.Microseconds(), Session: "s1", Seq: m.seq, Method: "tools/call"},
			{Type: event.Judged, TUS: m.answered.Microseconds(), Session: "s1", Seq: m.seq, Method: "tools/call", Kind: "request", Dir: "c2s",
				Name: "echo", Verdict: m.verdict, Lag: m.sent - m.due, HasLag: true, Latency: m.answered - m.sent, HasLatency: true},
		})
	}
	until(t, ctx, "the page has every message drawn", `replayView.messages().filter(m => m.verdict !== "").length === 5 && replayView.point("s1", 6) !== null`)
	for _, seq := range []int64{4, 3, 5, 2, 6} {
		var cleared bool
		eval(t, ctx, `(document.getElementById("dhead").textContent = "") === ""`, &cleared)
		click(t, ctx, "s1", seq)
		until(t, ctx, "a message opens", `document.getElementById("dhead").textContent !== ""`)
		var head string
		eval(t, ctx, `document.getElementById("dhead").textContent`, &head)
		if want := fmt.Sprintf("s1 seq %d ", seq); !strings.HasPrefix(head, want) {
			t.Errorf("clicking the bar of s1 seq %d opened %q, want %q…", seq, head, want)
		}
	}
	shot(t, ctx, "overlap.png")
}

// A click opens what is drawn where it lands: a response's 2 px line
// and a server notification's dot near the bottom of its row are small
// items, and a click beside them on a long bar opens the bar. The line
// used to be clickable 3 px either side, the dot over the whole height of
// its row, so a click on the bar within a few pixels of them opened them.
func TestBrowserClicksWhatIsDrawn(t *testing.T) {
	ctx := browser(t)
	s := New(WithTitle("small items on a long bar"))
	page := serve(t, s)
	run(t, ctx, "open the page", chromedp.Navigate(page))
	until(t, ctx, "the feed is open", `document.getElementById("conn").textContent === "live"`)
	ms := time.Millisecond
	_ = s.Consumer().Handle([]event.Event{
		{Type: event.Sent, TUS: 0, Session: "s1", Seq: 2, Method: "tools/call"},
		// the client's answer to a server request, drawn as a line at 100 ms
		{Type: event.Sent, TUS: (100 * ms).Microseconds(), Session: "s1", Seq: 3},
		{Type: event.Judged, TUS: (100 * ms).Microseconds(), Session: "s1", Seq: 3, Kind: "response", Dir: "c2s", Verdict: "passed"},
		// a server notification, drawn as a dot at 150 ms
		{Type: event.Judged, TUS: (150 * ms).Microseconds(), Session: "s1", Seq: 4, Method: "notifications/message", Kind: "notification", Dir: "s2c", Verdict: "passed"},
		{Type: event.Judged, TUS: (200 * ms).Microseconds(), Session: "s1", Seq: 2, Method: "tools/call", Kind: "request", Dir: "c2s",
			Name: "slow", Verdict: "failed", Latency: 200 * ms, HasLatency: true},
	})
	until(t, ctx, "the page has every message drawn", `replayView.messages().filter(m => m.verdict !== "").length === 3 && replayView.point("s1", 2) !== null && replayView.point("s1", 3) !== null && replayView.point("s1", 4) !== null`)
	var bar, line, dot struct{ X, Y float64 }
	eval(t, ctx, `replayView.point("s1", 2)`, &bar)
	eval(t, ctx, `replayView.point("s1", 3)`, &line)
	eval(t, ctx, `replayView.point("s1", 4)`, &dot)
	for _, c := range []struct {
		what string
		x, y float64
		seq  int64
	}{
		{"the line", line.X, line.Y, 3},
		{"the bar 2.5 px left of the line", line.X - 2.5, line.Y, 2},
		{"the bar 2.5 px right of the line", line.X + 2.5, line.Y, 2},
		{"the dot", dot.X, dot.Y, 4},
		{"the bar above the dot", dot.X, bar.Y, 2},
	} {
		var cleared bool
		eval(t, ctx, `(document.getElementById("dhead").textContent = "") === ""`, &cleared)
		run(t, ctx, "click "+c.what, chromedp.MouseClickXY(c.x, c.y))
		until(t, ctx, "a message opens", `document.getElementById("dhead").textContent !== ""`)
		var head string
		eval(t, ctx, `document.getElementById("dhead").textContent`, &head)
		if want := fmt.Sprintf("s1 seq %d ", c.seq); !strings.HasPrefix(head, want) {
			t.Errorf("clicking %s opened %q, want %q…", c.what, head, want)
		}
	}
	shot(t, ctx, "small-items.png")
}
