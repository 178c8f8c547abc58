package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testtape"
)

// serve --listen against real clients: many at once, a legacy one, chaos
// that hangs up.

// TestServeHTTPConcurrentClients: 100 go-sdk clients at once against one
// serve, each running the whole script; none may fail.
func TestServeHTTPConcurrentClients(t *testing.T) {
	const clients = 100
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			// A go-sdk client holds two or three connections (its
			// stream, a call, an idle one kept alive): 100 of them pass
			// the default --max-conns (256), whose eviction of an idle
			// connection a POST can race (TestConnectionFloodLeavesRoomForClients
			// tests that limit). This test is about concurrency.
			p := startServe(t, "--strict", "--max-conns", "1024", recordedTape(t, version))
			ctx, cancel := context.WithTimeout(t.Context(), 2*serveWait)
			defer cancel()
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			defer hc.CloseIdleConnections()
			errs := make(chan error, clients)
			var wg sync.WaitGroup
			for i := range clients {
				wg.Go(func() {
					errs <- runScript(ctx, hc, p.url, version, i)
				})
			}
			wg.Wait()
			close(errs)
			failed := 0
			for err := range errs {
				if err != nil {
					failed++
					if failed <= 3 {
						t.Error(err)
					}
				}
			}
			if failed > 0 {
				t.Errorf("%d of %d clients failed", failed, clients)
			}
			code, stderr := p.stop(t)
			if code != 0 || !strings.Contains(stderr, "served: 0 misses") {
				t.Errorf("serve: exit %d, stderr:\n%s", code, clip(stderr, 2000))
			}
		})
	}
}

// runScript connects a go-sdk client over Streamable HTTP and runs
// testtape.ScriptAll.
func runScript(ctx context.Context, hc *http.Client, url, version string, i int) error {
	c := testtape.NewClient("replayctl-testtape")
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, opts)
	if err != nil {
		return fmt.Errorf("client %d: connect: %w", i, err)
	}
	defer cs.Close()
	if err := testtape.ScriptAll(ctx, cs); err != nil {
		return fmt.Errorf("client %d: %w", i, err)
	}
	return cs.Close()
}

// TestServeHTTPHangUp: chaos hang-up=1 drops the connection of every
// answer but the handshake's (never faulted); the client connects, sees
// its next request fail, and serve lists the faults when it stops.
func TestServeHTTPHangUp(t *testing.T) {
	p := startServe(t, "--chaos", "hang-up=1", "--seed", "3", recordedTape(t, "2025-11-25"))
	ctx, cancel := context.WithTimeout(t.Context(), serveWait)
	defer cancel()
	cs, err := connectNoRetries(t, ctx, p.url)
	if err != nil {
		t.Fatalf("connect: %v; want the handshake spared", err)
	}
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Error("tools/list succeeded; want the connection dropped")
	}
	cs.Close()
	code, stderr := p.stop(t)
	if code != 0 || !strings.Contains(stderr, "fault: hang-up to tools/list") || strings.Contains(stderr, "to initialize") {
		t.Errorf("serve: exit %d, want 0 and the hang-up to tools/list listed, none to initialize; stderr:\n%s", code, stderr)
	}
}

// TestServeLegacySSE: a go-sdk client of the 2024-11-05 HTTP+SSE
// transport runs the whole script against serve's /sse.
func TestServeLegacySSE(t *testing.T) {
	p := startServe(t, "--strict", recordedTape(t, "2025-11-25"))
	ctx, cancel := context.WithTimeout(t.Context(), serveWait)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	c := testtape.NewClient("replayctl-testtape")
	sse := strings.TrimSuffix(p.url, "/mcp") + "/sse"
	cs, err := c.Connect(ctx, &sdk.SSEClientTransport{Endpoint: sse, HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to %s: %v", sse, err)
	}
	if err := testtape.ScriptAll(ctx, cs); err != nil {
		t.Error(err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	code, stderr := p.stop(t)
	if code != 0 || !strings.Contains(stderr, "served: 0 misses") {
		t.Errorf("serve: exit %d; stderr:\n%s", code, stderr)
	}
}

// TestServeHangUpAnswersTheRepeat: an answer serve's hang-up kept from
// the client is not used up. run sends the request again on a new
// connection and gets the recorded answer; serve lists the faults and no
// misses, so --strict does not fail because of serve's own chaos.
func TestServeHangUpAnswersTheRepeat(t *testing.T) {
	p := startServe(t, "--strict", "--chaos", "hang-up=1", "--seed", "3", "examples/quickstart.jsonl")
	r := replayctl(t, "run", "examples/quickstart.jsonl", "--target", p.url, "--speed", "fast")
	code, stderr := p.stop(t)
	if r.code != 0 || !strings.Contains(r.stdout, "result      PASS") {
		t.Errorf("run: exit %d, want 0 and PASS (every request answered on its repeat); stdout:\n%s\nstderr:\n%s", r.code, clip(r.stdout, 3000), clip(r.stderr, 2000))
	}
	if code != 0 || !strings.Contains(stderr, "served: 0 misses") || !strings.Contains(stderr, "fault: hang-up to tools/list") {
		t.Errorf("serve --strict: exit %d, want 0, no misses and the hang-ups listed; stderr:\n%s", code, clip(stderr, 4000))
	}
}

// TestServeSummaryNamesSessionsOneWay: serve's summary names the session
// of a fault and of a miss the same way, the recorded session and the
// client's, so that a fault and a miss of one client can be told apart
// from another's; and its counts are in English, not "request(s)".
func TestServeSummaryNamesSessionsOneWay(t *testing.T) {
	p := startServe(t, "--strict", "--chaos", "error=1", "--seed", "3", recordedTape(t, "2025-11-25"))
	ctx, cancel := context.WithTimeout(t.Context(), serveWait)
	defer cancel()
	cs, err := connectNoRetries(t, ctx, p.url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	live := cs.ID()
	for range 3 { // the first is answered, with an error fault; later ones outrun the recording
		_, _ = cs.ListTools(ctx, nil)
	}
	cs.Close()
	code, stderr := p.stop(t)
	if code != 1 {
		t.Errorf("serve --strict: exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "(s)") {
		t.Errorf("stderr says a count as \"(s)\"; want singular or plural:\n%s", stderr)
	}
	want := "session s1 (client " + live + ")"
	var faults, misses int
	for _, line := range strings.Split(stderr, "\n") {
		kind, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		if kind != "miss" && kind != "fault" {
			continue
		}
		if kind == "miss" {
			misses++
		} else {
			faults++
		}
		if !strings.Contains(line, want) {
			t.Errorf("%s line does not name the session as %q:\n%s", kind, want, line)
		}
	}
	if faults == 0 || misses == 0 {
		t.Errorf("%d faults and %d misses listed, want some of each; stderr:\n%s", faults, misses, stderr)
	}
}

// connectNoRetries connects a plain go-sdk client (no roots, no handlers)
// to serve's streamable endpoint url with protocol 2025-11-25, its
// transport not retrying, so that a dropped connection fails the request.
func connectNoRetries(t *testing.T, ctx context.Context, url string) (*sdk.ClientSession, error) {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	c := sdk.NewClient(&sdk.Implementation{Name: "replayctl-testtape", Version: "1"}, nil)
	return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}
