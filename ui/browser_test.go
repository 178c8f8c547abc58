package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is Debian's Chromium; the browser tests skip without it.
const chromium = "/usr/bin/chromium"

// browserWait bounds every wait for the page: generous, on a loaded
// 2-core machine; the tests wait for conditions, never for time.
const browserWait = 90 * time.Second

// browser starts a headless Chromium for the test (closed when it ends)
// and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium
	if _, err := os.Stat(path); err != nil {
		if path, err = exec.LookPath("chromium"); err != nil {
			t.Skip("no Chromium (/usr/bin/chromium; apt-get install chromium): the page's tests need a real browser")
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1500),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// run runs actions on the page, each wait bounded by browserWait.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// until waits until the JS expression cond is true on the page.
func until(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(browserWait))); err != nil {
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("counts").textContent + " | " + JSON.stringify(replayView.state()) + " | " + document.getElementById("ctlerr").textContent +
			" | open: " + (document.getElementById("detail").classList.contains("hidden") ? "none" : document.getElementById("dhead").textContent)`))
		t.Fatalf("waiting until %s (%s): %v; the page shows: %s", what, cond, err, shown)
	}
}

// eval evaluates expr on the page into out (JSON).
func eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	raw, err := chromedp.Run(c, chromedp.Evaluate[json.RawMessage]("JSON.stringify("+expr+")"))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("evaluate %s: %s: %v", expr, raw, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		t.Fatalf("evaluate %s: %s: %v", expr, s, err)
	}
}

// click clicks the bar of session's message seq on the timeline, where a
// person would.
func click(t *testing.T, ctx context.Context, session string, seq int64) {
	t.Helper()
	var pt struct{ X, Y float64 }
	expr := fmt.Sprintf(`replayView.point(%q, %d)`, session, seq)
	until(t, ctx, "the bar of "+session+" seq "+fmt.Sprint(seq)+" is drawn", expr+" !== null")
	eval(t, ctx, expr, &pt)
	run(t, ctx, "click the bar", chromedp.MouseClickXY(pt.X, pt.Y))
}

// showOnly shows the messages of verdict only (the page's verdict
// filter; "bad": those not passed), as a person picks it. A late run's
// requests can be sent at once, their bars drawn over each other: with
// the others hidden, the bar of the one to click is all there.
func showOnly(t *testing.T, ctx context.Context, verdict string) {
	t.Helper()
	var got string
	eval(t, ctx, fmt.Sprintf(`(() => { const s = document.getElementById("fverdict"); s.value = %q; s.dispatchEvent(new Event("change")); return s.value })()`, verdict), &got)
	if got != verdict {
		t.Fatalf("the verdict filter shows %q, want %q", got, verdict)
	}
}

// shot saves a PNG of the page in $REPLAYCTL_UI_SHOTS (when set) as name.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("REPLAYCTL_UI_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// pageMessage is a message as the page folded it (replayView.messages).
type pageMessage struct {
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
	Method  string `json:"method"`
	Verdict string `json:"verdict"`
	Fault   string `json:"fault"`
}

// results collects what the replay judged (its result hook).
type results struct {
	mu sync.Mutex
	rs []resultKey
}

type resultKey struct {
	Session, Verdict, Method string
	Seq                      int64
	Diffs                    int
}

func (r *results) all() []resultKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]resultKey(nil), r.rs...)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
