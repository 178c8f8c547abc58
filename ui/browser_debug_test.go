package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// received is what the test's server saw: the method of every JSON-RPC
// message POSTed to it, and the argument "message" of each tools/call.
type received struct {
	mu      sync.Mutex
	methods []string
	calls   []string
}

func (r *received) snapshot() (methods, calls []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.methods...), append([]string(nil), r.calls...)
}

// countingServer serves the tape at path over Streamable HTTP on
// 127.0.0.1, as replayctl serve does, and counts what reaches it.
func countingServer(t *testing.T, path string) (string, *received) {
	t.Helper()
	srv, err := mock.NewServer(tape.File(path))
	if err != nil {
		t.Fatal(err)
	}
	mux := transport.NewMux(srv)
	got := &received{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
				Params struct {
					Arguments struct {
						Message string `json:"message"`
					} `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method != "" {
				got.mu.Lock()
				got.methods = append(got.methods, m.Method)
				if m.Method == "tools/call" {
					got.calls = append(got.calls, m.Params.Arguments.Message)
				}
				got.mu.Unlock()
			}
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		_ = mux.Close()
		hs.Close()
	})
	return hs.URL + "/mcp", got
}

// seqOf is the seq of the tape's tools/call whose message is msg.
func seqOf(t *testing.T, path, msg string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"method":"tools/call"`) && strings.Contains(l, `"message":"`+msg+`"`) {
			var m struct{ Seq int64 }
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			return m.Seq
		}
	}
	t.Fatalf("no tools/call of %q in %s", msg, path)
	return -1
}

// In debug, the page's pause, step, seek and breakpoints change what the
// server receives, through the same controller the REPL drives: the
// controller's status is the page's, and a step the REPL takes (a call on
// the controller) shows on the page.
func TestBrowserDebugDrivesTheReplay(t *testing.T) {
	ctx := browser(t)
	path := tempTape(t, "tape.jsonl", 1, 12, 1000, nil)
	url, got := countingServer(t, path)

	s := New(WithTitle("debug"))
	r, err := replay.New(tape.File(path), append(s.Options(), replay.Against(replay.HTTP(url)), replay.SpeedText("fast"), replay.Control())...)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Controller()
	if err := s.Control(c); err != nil {
		t.Fatal(err)
	}
	page := serve(t, s)
	ctx2, cancel := context.WithCancel(t.Context())
	g, gctx := errgroup.WithContext(ctx2)
	g.Go(func() error { return c.Run(gctx) })
	g.Go(func() error { _, err := r.Run(gctx); return err })
	defer func() {
		cancel()
		_ = g.Wait()
	}()
	if err := c.Start(t.Context()); err != nil { // the REPL's first command
		t.Fatal(err)
	}

	run(t, ctx, "open the page", chromedp.Navigate(page))
	until(t, ctx, "the page shows the replay paused before its first message",
		`replayView.state() !== null && replayView.state().state === "paused" && replayView.state().seq === 0 && !document.getElementById("debug").classList.contains("hidden")`)
	if m, _ := got.snapshot(); len(m) != 0 {
		t.Fatalf("the server received %v before any step", m)
	}

	// Three steps from the page: the handshake, then the first call. After
	// each the page stands where the REPL's status does: before the next
	// client message (not the server's answer the controller's seq may
	// be), with as many checked as the report counts (the notification
	// sent is not): the tape is initialize 0, its answer 1,
	// notifications/initialized 2, tools/call 3, a notification 4 and the
	// answer 5, tools/call 6. (The header says "1 session", not "1
	// sessions".)
	for i, want := range []string{"initialize", "notifications/initialized", "tools/call"} {
		run(t, ctx, "click Step", chromedp.Click(chromedp.ID("step")))
		until(t, ctx, fmt.Sprintf("step %d is judged", i+1), fmt.Sprintf(`replayView.state().judged === %d && replayView.state().state === "paused"`, i+1))
		next, checked := []int{2, 3, 6}[i], []int{1, 1, 2}[i]
		until(t, ctx, fmt.Sprintf("step %d: the page says before seq %d, %d checked, as the REPL", i+1, next, checked), fmt.Sprintf(
			`replayView.state().next === %d && document.getElementById("state").textContent.includes("before seq %d ") && document.getElementById("state").textContent.endsWith("checked %d") && document.getElementById("counts").textContent.startsWith("1 session · ") && document.getElementById("counts").textContent.includes(" %d checked ")`,
			next, next, checked, checked))
		m, _ := got.snapshot()
		if len(m) != i+1 || m[i] != want {
			t.Fatalf("after %d steps the server received %v, want %s last of %d", i+1, m, want, i+1)
		}
	}

	// Seek to the 5th call, and step: the server receives it, not the 2nd.
	seek := seqOf(t, path, "message 5")
	run(t, ctx, "seek", chromedp.SetValue(chromedp.ID("seekarg"), fmt.Sprint(seek)), chromedp.Click(chromedp.ID("seek")))
	until(t, ctx, "the seek is done", fmt.Sprintf(`replayView.state().seq === %d`, seek))
	run(t, ctx, "click Step", chromedp.Click(chromedp.ID("step")))
	until(t, ctx, "the sought message is judged", `replayView.state().judged === 4 && replayView.state().state === "paused"`)
	if _, calls := got.snapshot(); strings.Join(calls, ",") != "message 1,message 5" {
		t.Fatalf("after seek and step the server received the calls %v, want message 1 then message 5", calls)
	}

	// A breakpoint by expression, then resume: the replay stops before it.
	run(t, ctx, "add a breakpoint", chromedp.SetValue(chromedp.ID("breakarg"), `params.arguments.message == "message 8"`), chromedp.Click(chromedp.ID("break")))
	until(t, ctx, "the breakpoint is listed", `replayView.state().breakpoints.length === 1`)
	run(t, ctx, "click Resume", chromedp.Click(chromedp.ID("resume")))
	until(t, ctx, "the replay stops at the breakpoint", `replayView.state().state === "paused" && replayView.state().reason.startsWith("breakpoint")`)
	if _, calls := got.snapshot(); strings.Join(calls, ",") != "message 1,message 5,message 6,message 7" {
		t.Fatalf("stopped at the breakpoint, the server received the calls %v, want up to message 7 and not 8", calls)
	}

	// The REPL sees the page's state: the controller's status is the same.
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var page2 state
	eval(t, ctx, `replayView.state()`, &page2)
	if string(st.State) != page2.State || st.Seq != page2.Seq || st.Judged != page2.Judged || st.Seq != seqOf(t, path, "message 8") {
		t.Errorf("the controller says %s seq %d judged %d, the page %s seq %d judged %d: want the same, before message 8 (seq %d)",
			st.State, st.Seq, st.Judged, page2.State, page2.Seq, page2.Judged, seqOf(t, path, "message 8"))
	}

	// And the page sees the REPL's: a step on the controller.
	if _, err := c.Step(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	until(t, ctx, "the page follows the REPL's step", fmt.Sprintf(`replayView.state().judged === %d`, st.Judged+1))
	if _, calls := got.snapshot(); calls[len(calls)-1] != "message 8" {
		t.Fatalf("after the REPL's step the server received the calls %v, want message 8 last", calls)
	}

	// Pause from the page while it runs slowly: Pause returns when nothing
	// more will be sent; a step then sends exactly the next message.
	run(t, ctx, "slow down", chromedp.SetValue(chromedp.ID("speedarg"), "fixed:1s"), chromedp.Click(chromedp.ID("speed")))
	until(t, ctx, "the speed is set", `replayView.state().speed === "fixed:1s"`)
	run(t, ctx, "click Resume", chromedp.Click(chromedp.ID("resume")))
	until(t, ctx, "the replay runs", `replayView.state().state === "running"`)
	run(t, ctx, "click Pause", chromedp.Click(chromedp.ID("pause")))
	until(t, ctx, "the replay is paused", `replayView.state().state === "paused"`)
	_, before := got.snapshot()
	var judged int64
	eval(t, ctx, `replayView.state().sent`, &judged)
	run(t, ctx, "click Step", chromedp.Click(chromedp.ID("step")))
	until(t, ctx, "the step is done", fmt.Sprintf(`replayView.state().sent === %d && replayView.state().state === "paused"`, judged+1))
	_, after := got.snapshot()
	if len(after) != len(before)+1 {
		t.Fatalf("a step after pause: the server received the calls %v then %v, want exactly one more", before, after)
	}
	shot(t, ctx, "debug.png")
}
