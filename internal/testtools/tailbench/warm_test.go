//go:build linux

package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

// TestWarmHTTPKeptOutOfStats: warm's calls reach the slow server and are
// logged with their "warm-K" ids, and stats and split count only the
// measured client's calls after them.
func TestWarmHTTPKeptOutOfStats(t *testing.T) {
	dir := t.TempDir()
	log, report := filepath.Join(dir, "arrivals"), filepath.Join(dir, "bare.json")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	srv := httptest.NewServer(slowmcp.Handler(slowmcp.WithArrivals(f)))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	if err := warmCmd([]string{"-http", "-addr", addr, "-conns", "2", "-calls", "3"}); err != nil {
		t.Fatal(err)
	}
	if err := pingCmd([]string{"-http", "-addr", addr, "-calls", "4", "-gap", "1ms", "-report", report}); err != nil {
		t.Fatal(err)
	}
	srv.Close() // every handler has returned: the log is whole
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), ` tools/call "warm-`); n != 6 {
		t.Errorf("the log holds %d warm-up calls, want 6 (2 connections of 3):\n%s", n, b)
	}
	at, err := arrivals(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 4 {
		t.Errorf("arrivals read %d calls, want the 4 measured ones:\n%s", len(at), b)
	}
	var out strings.Builder
	if err := statsCmd([]string{"-gap", "1ms", log}, &out); err != nil {
		t.Fatal(err)
	}
	if err := splitCmd([]string{"-report", report, log}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), ": 4 calls; arrival vs schedule") || !strings.Contains(out.String(), "4 calls; way up") {
		t.Errorf("stats and split printed %q, want both of 4 calls", out.String())
	}
}

// TestPongWarm: pong -warm N serves N connections of warm-up, unlogged,
// then logs the measured one's calls only.
func TestPongWarm(t *testing.T) {
	dir := t.TempDir()
	log, report := filepath.Join(dir, "floor.log"), filepath.Join(dir, "floor.json")
	ln, port, err := pongListen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Close(ln); err != nil { // pongCmd listens there itself
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	served := make(chan error, 1)
	go func() { served <- pongCmd([]string{"-addr", addr, "-arrivals", log, "-warm", "2"}) }()
	if err := warmCmd([]string{"-addr", addr, "-conns", "2", "-calls", "3"}); err != nil {
		t.Fatal(err)
	}
	if err := pingCmd([]string{"-addr", addr, "-calls", "5", "-gap", "1ms", "-report", report}); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	at, err := arrivals(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 5 {
		t.Errorf("pong logged %d calls, want the 5 measured ones", len(at))
	}
}

func TestWarmBadFlags(t *testing.T) {
	if err := warmCmd([]string{"-conns", "0"}); err == nil || !strings.Contains(err.Error(), "-conns >= 1") {
		t.Errorf("-conns 0: got %v, want an error that says what to give", err)
	}
	if err := pongCmd([]string{"-arrivals", "x", "-warm", "-1"}); err == nil || !strings.Contains(err.Error(), "-warm >= 0") {
		t.Errorf("pong -warm -1: got %v, want an error that says what to give", err)
	}
}
