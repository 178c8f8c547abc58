package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/transport"
)

// TestLagNotTheTargetsHold: with --order none, a session whose
// notification's POST the target holds (no answer headers) cannot send
// the requests due meanwhile; that wait is the target's (held), not the
// replayer's lag. The target holds the first session's
// notifications/initialized until the other session's five tools/call
// have arrived (so the first session's are due); then every tools/call
// of the held session must show held time (none did before: all of the
// wait was counted as lag, and the advice blamed the replayer).
func TestLagNotTheTargetsHold(t *testing.T) {
	const calls = 5
	rec := httptest.NewServer(testserver.SlowHandler(0))
	defer rec.Close()
	tapePath := testtape.Record(t, transport.HTTP{URL: rec.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, calls))

	inner := testserver.SlowHandler(0)
	release := make(chan struct{})
	toolCalls := make(chan struct{}, 64)
	heldOne := make(chan struct{}, 1)
	heldOne <- struct{}{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(strings.NewReader(string(b)))
			switch {
			case strings.Contains(string(b), `"notifications/initialized"`):
				select {
				case <-heldOne: // the first session's: held until released
					select {
					case <-release:
					case <-r.Context().Done():
						return
					}
				default:
				}
			case strings.Contains(string(b), `"tools/call"`):
				toolCalls <- struct{}{}
			}
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	go func() { // release once the other session's calls are all in
		defer close(release)
		timeout := time.After(60 * time.Second)
		for range calls {
			select {
			case <-toolCalls:
			case <-timeout:
				return
			}
		}
	}()
	evPath := filepath.Join(t.TempDir(), "ev.jsonl")
	res := replayctl(t, "run", tapePath, "--target", srv.URL, "--sessions", "2", "--speed", "realtime", "--order", "none", "--out", "json="+evPath, "-q")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	f, err := os.Open(evPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	heldCalls := map[string]int{} // session → its tools/call judged with held time
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type    string `json:"type"`
			Session string `json:"session"`
			Method  string `json:"method"`
			HeldUS  int64  `json:"held_us"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "judged" && ev.Method == "tools/call" && ev.HeldUS > 0 {
			heldCalls[ev.Session]++
		}
	}
	most := 0
	for _, n := range heldCalls {
		most = max(most, n)
	}
	// The held session's first calls-1 calls were due before the other
	// session's last arrived (their schedules start within a step).
	if most < calls-1 {
		t.Errorf("tools/call with held time per session: %v; want %d or more in the session the target held\n%s", heldCalls, calls-1, res.stdout)
	}
}
