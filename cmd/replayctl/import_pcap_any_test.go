package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportPcapAnyLive captures with `tcpdump -i any` (Linux cooked v2,
// link type 276) one exchange and a notification on loopback, imports
// the capture and finds the three messages, in order. It waits until the
// capture holds them before it stops tcpdump, as the other live tests
// do (see tcpdumpOn: what tcpdump has not read when it is stopped is
// lost). It needs tcpdump and the right to capture, and skips without
// them.
func TestImportPcapAnyLive(t *testing.T) {
	if testing.Short() {
		t.Skip("captures live traffic")
	}
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("tcpdump is not installed (apt-get install tcpdump): the live capture on any is not tested")
	}
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"any","version":"0"}}}`
		answer     = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"any","version":"0"}}}`
		inited     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"id"`) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, answer)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	pcap, stop := tcpdumpOn(t, tcpdump, "any", srv.URL)
	defer stop()
	for _, body := range []string{initialize, inited} {
		resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	pollUntil(t, 30*time.Second, func() bool { return len(readMessagesQuiet(pcap)) >= 3 }, "the capture to hold the 3 messages")
	stop()
	out := filepath.Join(t.TempDir(), "any.jsonl")
	if res := replayctl(t, "import", pcap, out); res.code != 0 {
		t.Fatalf("import exit %d: %s", res.code, res.stderr)
	}
	got := readMessages(t, out)
	want := []string{initialize, answer, inited}
	if len(got) != len(want) {
		t.Fatalf("%d messages imported from the capture, want %d", len(got), len(want))
	}
	for i, m := range got {
		if string(m.Msg) != want[i] {
			t.Errorf("message %d: %s, want %s", i, m.Msg, want[i])
		}
	}
}
