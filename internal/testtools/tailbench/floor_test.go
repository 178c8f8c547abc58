//go:build linux

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
)

// TestPingPong runs the floor's two ends over loopback: pong logs one
// arrival per call, ping reports each call's due, sent and answered
// times, and each arrival lies between its call's send and answer (one
// clock, the wall clock, for both); stats and split read the pair.
func TestPingPong(t *testing.T) {
	dir := t.TempDir()
	log, report := filepath.Join(dir, "floor.log"), filepath.Join(dir, "floor.json")
	off, err := rxstamp.On() // as pongCmd does: every request stamped
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	ln, port, err := pongListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- pongServe(ln, log) }()
	const calls = 20
	err = pingCmd([]string{"-addr", "127.0.0.1:" + strconv.Itoa(port), "-calls", strconv.Itoa(calls), "-gap", "1ms", "-spin", "100us", "-report", report})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if err := unix.Close(ln); err != nil {
		t.Fatal(err)
	}
	at, err := arrivals(log)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r pingReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(at) != calls || len(r.Timeline) != calls {
		t.Fatalf("got %d arrivals and %d calls reported, want %d of each", len(at), len(r.Timeline), calls)
	}
	start := r.Summary.StartedAt.UnixNano()
	stamp := func(v float64) int64 { return start + int64(v*float64(time.Millisecond)) }
	for i, c := range r.Timeline {
		if c.SentMS < c.DueMS || c.AnsweredMS < c.SentMS {
			t.Errorf("call %d: due %.3f sent %.3f answered %.3f ms: want due <= sent <= answered", i, c.DueMS, c.SentMS, c.AnsweredMS)
		}
		// A microsecond either side: the report's float milliseconds.
		if a := int64(at[i]); a < stamp(c.SentMS)-1000 || a > stamp(c.AnsweredMS)+1000 {
			t.Errorf("call %d arrived at %d, want between its send %d and answer %d", i, a, stamp(c.SentMS), stamp(c.AnsweredMS))
		}
		if i > 0 && c.DueMS <= r.Timeline[i-1].DueMS {
			t.Errorf("call %d due at %.3f ms, not after call %d's %.3f", i, c.DueMS, i-1, r.Timeline[i-1].DueMS)
		}
	}
	// The kernel's receive time of each call: between its send and its
	// read by pong.
	rx, err := arrivalsBy(log, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range r.Timeline {
		if a := int64(rx[i]); a < stamp(c.SentMS)-1000 || a > int64(at[i]) {
			t.Errorf("call %d received at %d, want between its send %d and pong's read %d", i, a, stamp(c.SentMS), int64(at[i]))
		}
	}
	var out strings.Builder
	if err := statsCmd([]string{"-gap", "1ms", log}, &out); err != nil {
		t.Fatal(err)
	}
	if err := statsCmd([]string{"-gap", "1ms", "-rx", log}, &out); err != nil {
		t.Fatal(err)
	}
	if err := splitCmd([]string{"-report", report, log}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "20 calls; arrival vs schedule") || !strings.Contains(out.String(), "20 calls; way up") {
		t.Errorf("stats and split printed %q, want both of 20 calls", out.String())
	}
}

// TestPingNoPong: ping against a port where nothing listens fails with
// what to do, after its -wait.
func TestPingNoPong(t *testing.T) {
	ln, port, err := pongListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Close(ln); err != nil { // nothing listens there now
		t.Fatal(err)
	}
	err = pingCmd([]string{"-addr", "127.0.0.1:" + strconv.Itoa(port), "-wait", "0s", "-report", filepath.Join(t.TempDir(), "r.json")})
	if err == nil || !strings.Contains(err.Error(), "is pong listening?") {
		t.Errorf("got %v, want a refused connection that asks whether pong listens", err)
	}
}

// TestPingHTTP: ping -http posts each call to /mcp as the other clients
// do and reads each answer whole, the head's Content-Length of body.
func TestPingHTTP(t *testing.T) {
	var mu sync.Mutex // guards got: the raw socket's reads are no synchronisation the race detector sees
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	report := filepath.Join(t.TempDir(), "bare.json")
	if err := pingCmd([]string{"-http", "-addr", srv.Listener.Addr().String(), "-calls", "3", "-gap", "1ms", "-report", report}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"POST /mcp " + call(1), "POST /mcp " + call(2), "POST /mcp " + call(3)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the server got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAnswerLength(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
		err      string
	}{
		{"head not yet whole", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", -1, ""},
		{"head and body", "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab", 43, ""},
		{"not 200", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 0, "want HTTP/1.1 200"},
		{"a stream", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", 0, "no Content-Length"},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", 0, "want a length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := answerLength([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("got %d, %v, want an error with %q", n, err, tt.err)
				}
				return
			}
			if err != nil || n != tt.want {
				t.Errorf("got %d, %v, want %d", n, err, tt.want)
			}
		})
	}
}
