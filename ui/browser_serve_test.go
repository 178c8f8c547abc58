package ui

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	sv "github.com/replayctl/replayctl/serve"
)

// The page of a serve (ServeOptions): five go-sdk clients over
// Streamable HTTP, each its own lane named by its Mcp-Session-Id, each
// request a message with serve's verdict (served; the call the tape
// lacks a miss); filtered to the misses, clicking one shows its message, naming the closest
// recorded request; the serve's end is shown.
func TestBrowserServeShowsItsClients(t *testing.T) {
	ctx := browser(t)
	const clients, calls = 5, 3
	path := writeTape(t, filepath.Join(t.TempDir(), "tape.jsonl"), clients, calls, 1000, nil)
	s := New(WithTitle("serve"))
	page := serve(t, s)
	run(t, ctx, "open the page", chromedp.Navigate(page))
	until(t, ctx, "the feed is open", `document.getElementById("conn").textContent === "live"`)

	sctx, stop := context.WithCancel(t.Context())
	defer stop()
	urls := make(chan string, 1)
	srv, err := sv.New(path, append(s.ServeOptions(), sv.Listen("127.0.0.1:0"),
		sv.OnListening(func(a net.Addr) { urls <- "http://" + a.String() + "/mcp" }))...)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := srv.Run(sctx)
		done <- err
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("Run before listening: %v", err)
	}
	var ids []string
	for c := 0; c < clients; c++ {
		cl := mcp.NewClient(&mcp.Implementation{Name: "ui-test", Version: "1"}, nil)
		cs, err := cl.Connect(sctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= calls; i++ {
			if _, err := cs.CallTool(sctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": fmt.Sprintf("message %d", i)}}); err != nil {
				t.Fatalf("client %d call %d: %v", c, i, err)
			}
		}
		if _, err := cs.CallTool(sctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "never recorded"}}); err == nil {
			t.Fatalf("client %d: the call the tape lacks was answered", c)
		}
		ids = append(ids, cs.ID())
		_ = cs.Close()
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	s.ServeEnded()

	until(t, ctx, "the page shows the serve's end and every request",
		fmt.Sprintf(`replayView.runEnded() !== null && replayView.messages().filter(m => m.kind === "request" && m.verdict !== "").length >= %d`, clients*(calls+2)))
	var lanes []string
	eval(t, ctx, `replayView.lanes()`, &lanes)
	if fmt.Sprint(lanes) != fmt.Sprint(ids) {
		t.Errorf("the page's lanes %v, want the clients' sessions %v", lanes, ids)
	}
	var msgs []pageMessage
	eval(t, ctx, `replayView.messages().filter(m => m.kind === "request")`, &msgs)
	count := map[string]int{}
	var miss pageMessage
	for _, m := range msgs {
		count[m.Session+" "+m.Verdict]++
		if m.Verdict == "miss" {
			miss = m
		}
	}
	for _, id := range ids {
		if count[id+" served"] != calls+1 || count[id+" miss"] != 1 {
			t.Errorf("session %s: %d served, %d miss; want %d (initialize and the calls) and 1", id, count[id+" served"], count[id+" miss"], calls+1)
		}
	}
	shot(t, ctx, "serve.png")
	// The bars of an 80 ms serve sit close together: show the misses
	// only, as a person would, and click one.
	var ok bool
	eval(t, ctx, `(() => { const f = document.getElementById("fverdict"); f.value = "miss"; f.dispatchEvent(new Event("change")); return true })()`, &ok)
	until(t, ctx, "only the misses are drawn", fmt.Sprintf(`replayView.drawn === %d`, clients))
	click(t, ctx, miss.Session, miss.Seq)
	until(t, ctx, "the miss's detail names the closest recorded request",
		`document.getElementById("ddiffs").textContent.includes("closest recorded")`)
}
