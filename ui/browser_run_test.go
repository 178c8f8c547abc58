package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// A live 20-session replay, watched from its start: the page shows 20
// lanes and every message the replay judged, with its verdict; clicking
// the failed message shows its differences, marked in the live and the
// recorded answer; the run's verdict and thresholds are shown at its end.
// A chaos run shows every injected fault on its message.
func TestBrowserLiveReplay(t *testing.T) {
	ctx := browser(t)
	const sessions, calls = 20, 8
	for _, c := range []struct {
		name   string
		fail   bool // the mock answers s3's 4th call differently
		chaos  string
		passed bool
	}{
		{name: "passing", passed: true},
		{name: "failing", fail: true},
		{name: "chaos", chaos: "malformed=0.1,error-response=0.1,duplicate=0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tapePath := writeTape(t, dir+"/tape.jsonl", sessions, calls, 40_000, nil) // 320 ms a session
			mockPath := writeTape(t, dir+"/mock.jsonl", sessions, calls, 40_000, func(s, i int) string {
				if c.fail && s == 3 && i == 4 {
					return "Echo: changed"
				}
				return ""
			})
			s := New(WithTitle(c.name+" run"), WithThresholds("p99<5s"))
			page := serve(t, s)
			run(t, ctx, "open the page", chromedp.Navigate(page))
			until(t, ctx, "the feed is open", `document.getElementById("conn").textContent === "live"`)

			var got results
			opts := append(s.Options(), replay.SpeedText("realtime"), replay.Against(replay.MockTape(mockPath)), replay.Thresholds("p99<5s"),
				replay.OnResult(func(r report.Result) {
					got.mu.Lock()
					got.rs = append(got.rs, resultKey{Session: r.Session, Seq: r.Seq, Verdict: string(r.Verdict), Method: r.Method, Diffs: len(r.Differences)})
					got.mu.Unlock()
				}))
			if c.chaos != "" {
				opts = append(opts, replay.Chaos(c.chaos), replay.Seed(7))
			}
			rep, err := replay.Run(t.Context(), tapePath, opts...)
			if rep == nil {
				t.Fatalf("Run: %v", err)
			}
			s.Finish(rep)
			if c.chaos == "" && rep.Passed() != c.passed {
				t.Fatalf("the run passed %v, want %v (%v)", rep.Passed(), c.passed, err)
			}
			want := got.all()
			until(t, ctx, "the page has the run's verdict and every message",
				fmt.Sprintf(`replayView.result() !== null && document.getElementById("verdict").textContent !== "" && replayView.messages().filter(m => m.verdict !== "").length >= %d`, len(want)))

			// The header's count is the report's: the notifications
			// sent and the server's notifications are judged, not checked.
			var counts string
			eval(t, ctx, `document.getElementById("counts").textContent`, &counts)
			if wantCount := fmt.Sprintf(" %d checked ", rep.Validation.Checked); !strings.Contains(counts, wantCount) || len(want) <= int(rep.Validation.Checked) {
				t.Errorf("the header says %q, want %q (the report's checked, of %d results)", counts, wantCount, len(want))
			}

			var lanes []string
			eval(t, ctx, `replayView.lanes()`, &lanes)
			if len(lanes) != sessions {
				t.Errorf("the page shows %d lanes %v, want %d", len(lanes), lanes, sessions)
			}
			var labels int
			eval(t, ctx, `document.querySelectorAll("#labels .lane-label").length`, &labels)
			if labels != sessions {
				t.Errorf("%d lane labels in the page, want %d (the window fits them all)", labels, sessions)
			}
			var msgs []pageMessage
			eval(t, ctx, `replayView.messages()`, &msgs)
			onPage := map[string]pageMessage{}
			for _, m := range msgs {
				onPage[fmt.Sprintf("%s/%d", m.Session, m.Seq)] = m
			}
			var failed *resultKey
			for i, r := range want {
				if r.Seq < 0 {
					continue
				}
				m, ok := onPage[fmt.Sprintf("%s/%d", r.Session, r.Seq)]
				if !ok || m.Verdict != r.Verdict {
					t.Errorf("%s seq %d %s (%s): on the page %+v (found %v), want its verdict", r.Session, r.Seq, r.Method, r.Verdict, m, ok)
				}
				if r.Verdict == "failed" && r.Diffs > 0 && failed == nil {
					failed = &want[i]
				}
			}
			var verdict string
			eval(t, ctx, `document.getElementById("verdict").textContent + " " + document.getElementById("thresholds").textContent`, &verdict)
			wantVerdict := "FAILED"
			if rep.Passed() {
				wantVerdict = "PASSED"
			}
			if !contains(verdict, wantVerdict) || !contains(verdict, "p99<5s") {
				t.Errorf("the page's verdict: %q, want %s and the threshold p99<5s", verdict, wantVerdict)
			}
			switch c.name {
			case "failing":
				if failed == nil || failed.Session != "s3" {
					t.Fatalf("no failed message in s3 among the results: %+v", failed)
				}
				showOnly(t, ctx, "bad")
				click(t, ctx, failed.Session, failed.Seq)
				until(t, ctx, "the differences are shown",
					`document.querySelector('#ddiffs li[data-path="result.content[0].text"]') !== null && document.querySelector('#danswer mark.diff') !== null && document.querySelector('#drecorded mark.diff') !== null`)
				var live, recorded, sent string
				eval(t, ctx, `document.querySelector('#danswer mark.diff').textContent`, &live)
				eval(t, ctx, `document.querySelector('#drecorded mark.diff').textContent`, &recorded)
				eval(t, ctx, `document.getElementById("dsent").textContent`, &sent)
				if live != `"Echo: changed"` || recorded != `"Echo: message 4"` || !contains(sent, `"message 4"`) {
					t.Errorf("the detail marks live %s and recorded %s, sent %.80q: want \"Echo: changed\", \"Echo: message 4\" and the request", live, recorded, sent)
				}
				shot(t, ctx, c.name+".png")

				// The same page frozen into a file: every message, the
				// verdict, and the failed message's differences, with no
				// server.
				frozen := filepath.Join(dir, "page.html")
				if err := s.SaveFrozen(frozen); err != nil {
					t.Fatal(err)
				}
				run(t, ctx, "open the frozen page", chromedp.Navigate("file://"+frozen))
				until(t, ctx, "the frozen page has every message and the verdict",
					fmt.Sprintf(`document.getElementById("verdict").textContent.startsWith("FAILED") && replayView.lanes().length === %d && replayView.messages().filter(m => m.verdict !== "").length >= %d`, sessions, len(want)))
				showOnly(t, ctx, "bad")
				click(t, ctx, failed.Session, failed.Seq)
				until(t, ctx, "the frozen page shows the differences",
					`document.querySelector('#danswer mark.diff') !== null && document.querySelector('#danswer mark.diff').textContent === '"Echo: changed"' && document.querySelector('#drecorded mark.diff').textContent === '"Echo: message 4"'`)
				shot(t, ctx, "frozen.png")
				return
			case "chaos":
				faults := map[string]string{}
				for _, f := range rep.Chaos.Faults {
					faults[fmt.Sprintf("%s/%d", f.Session, f.Seq)] = f.Kind
				}
				if len(faults) == 0 {
					t.Fatal("the chaos run injected no fault")
				}
				for k, kind := range faults {
					if m := onPage[k]; m.Fault != kind {
						t.Errorf("%s: the page shows fault %q, want %q", k, m.Fault, kind)
					}
				}
			}
			shot(t, ctx, c.name+".png")
		})
	}
}

// A thousand sessions: every lane is there, but only the rows in view are
// in the page (virtual scrolling); scrolled to the end, the last lanes
// are drawn and a message there opens.
func TestBrowserThousandLanes(t *testing.T) {
	ctx := browser(t)
	const sessions = 1000
	path := tempTape(t, "tape.jsonl", sessions, 2, 1000, nil)
	s := New()
	page := serve(t, s)
	rep, err := replay.Run(t.Context(), path, append(s.Options(), replay.SpeedText("fast"))...)
	if err != nil || !rep.Passed() {
		t.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
	}
	s.Finish(rep)
	run(t, ctx, "open the page", chromedp.Navigate(page))
	until(t, ctx, "the page has every lane and the verdict",
		fmt.Sprintf(`replayView.result() !== null && replayView.lanes().length === %d && replayView.shownLanes().length === %d`, sessions, sessions))
	var labels int
	eval(t, ctx, `document.querySelectorAll("#labels .lane-label").length`, &labels)
	if labels == 0 || labels > 100 {
		t.Errorf("%d lane labels in the page for %d lanes, want only the rows in view (1 to 100)", labels, sessions)
	}
	var last []string
	eval(t, ctx, `replayView.lanes().slice(-1)`, &last)
	var top int
	eval(t, ctx, `(() => { const b = document.getElementById("lanes"); b.scrollTop = b.scrollHeight; return b.scrollTop })()`, &top)
	until(t, ctx, "the last lane is drawn", fmt.Sprintf(`document.querySelector('#labels .lane-label[data-session=%q]') !== null`, last[0]))
	var seq int64
	eval(t, ctx, fmt.Sprintf(`replayView.messages().find(m => m.session === %q && m.method === "tools/call").seq`, last[0]), &seq)
	click(t, ctx, last[0], seq)
	// A fast run puts a session's messages within a few pixels: the click
	// opens one of them, of this lane.
	until(t, ctx, "a message of the last lane opens", fmt.Sprintf(`replayView.opened !== null && replayView.opened.session === %q`, last[0]))
	shot(t, ctx, "thousand.png")
}
