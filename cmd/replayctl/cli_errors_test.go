package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRecordOutputNotATapeName: -o names the tape, but a word that is an
// output format elsewhere (json, text), or a name with no extension, is
// refused with a hint (exit 2) and no file is written: users type
// "-o json" as they would for run.
func TestRecordOutputNotATapeName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"json", "text", "session"} {
		out := filepath.Join(dir, name)
		res := replayctl(t, "record", "-o", out, "--", "true")
		if res.code != 2 || !strings.Contains(res.stderr, name+".jsonl") {
			t.Errorf("record -o %s: exit %d, want 2 and a hint naming %s.jsonl\nstderr: %s", name, res.code, name, res.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("record -o %s wrote %s", name, out)
		}
	}
}

// TestNumericFlagError: a numeric flag given a word says which flag
// wants what, not strconv's words.
func TestNumericFlagError(t *testing.T) {
	for _, args := range [][]string{
		{"run", "examples/quickstart.jsonl", "--sessions", "abc"},
		{"run", "examples/quickstart.jsonl", "--max-retries=x"},
		{"run", "examples/quickstart.jsonl", "--seed", "1.5"},
		{"run", "examples/quickstart.jsonl", "--timeout", "ten"},
	} {
		res := replayctl(t, args...)
		flag := strings.TrimLeft(strings.SplitN(args[2], "=", 2)[0], "-")
		if res.code != 2 || strings.Contains(res.stderr, "strconv") || strings.Contains(res.stderr, "time: ") ||
			!strings.Contains(res.stderr, "--"+flag) {
			t.Errorf("%v: exit %d, want 2 and a message naming --%s without strconv's or time's words\nstderr: %s", args, res.code, flag, res.stderr)
		}
	}
}

// TestUnknownFlagDidYouMean: a misspelt flag is answered with the flag
// meant.
func TestUnknownFlagDidYouMean(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--sesions", "2")
	if res.code != 2 || !strings.Contains(res.stderr, "did you mean --sessions?") {
		t.Errorf("exit %d, want 2 and \"did you mean --sessions?\"\nstderr: %s", res.code, res.stderr)
	}
	res = replayctl(t, "rnu", "examples/quickstart.jsonl")
	if res.code != 2 || !strings.Contains(res.stderr, "run") {
		t.Errorf("rnu: exit %d, want 2 and the command meant\nstderr: %s", res.code, res.stderr)
	}
}

// TestListenBarePort: --listen 8931 (a port alone) says what to write
// instead of "missing port in address (is the port in use?)".
func TestListenBarePort(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "examples/quickstart.jsonl", "--listen", "8931"},
		{"record", "-o", filepath.Join(t.TempDir(), "t.jsonl"), "--listen", "8931", "--upstream", "http://127.0.0.1:1/mcp"},
	} {
		res := replayctl(t, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "127.0.0.1:8931") || strings.Contains(res.stderr, "in use") {
			t.Errorf("%v: exit %d, want 2 and the hint 127.0.0.1:8931\nstderr: %s", args, res.code, res.stderr)
		}
	}
}

// TestListenPortInUse: record's and serve's --listen on a port another
// program holds says so and what to do.
func TestListenPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	for _, args := range [][]string{
		{"serve", "examples/quickstart.jsonl", "--listen", addr},
		{"record", "-o", filepath.Join(t.TempDir(), "t.jsonl"), "--listen", addr, "--upstream", "http://127.0.0.1:1/mcp"},
	} {
		res := replayctl(t, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "in use") || !strings.Contains(res.stderr, "port 0") {
			t.Errorf("%v: exit %d, want 2, the port in use and the hint of port 0\nstderr: %s", args, res.code, res.stderr)
		}
	}
}

// TestTargetNotMCPClipped: a --target that answers with a web page (here
// a 404 page of 20 KiB) fails naming the page once, not printing it
// (twice).
func TestTargetNotMCPClipped(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><head><title>Not Found</title></head><body>\n" + strings.Repeat("<p>nothing here</p>\n", 1000) + "</body></html>\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--target", srv.URL+"/index.html")
	all := res.stdout + res.stderr
	if res.code != 3 {
		t.Errorf("exit %d, want 3", res.code)
	}
	if n := strings.Count(all, "nothing here"); n > 1 {
		t.Errorf("the page's text is printed %d times, want at most once and clipped\n%s", n, all)
	}
	if n := strings.Count(all, "HTTP 404"); n != 1 || !strings.Contains(all, "Not Found") || len(all) > 2000 {
		t.Errorf("want HTTP 404 once, with the page's title, in a short output (%d bytes)\n%s", len(all), all)
	}
}

// TestTargetConnectionRefused: a --target where nothing listens says so
// once, with "is the server running?".
func TestTargetConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--target", "http://"+addr+"/mcp")
	all := res.stdout + res.stderr
	if res.code != 3 || strings.Count(all, "connection refused") != 1 || !strings.Contains(all, "is the server running?") {
		t.Errorf("exit %d, want 3, \"connection refused\" once and \"is the server running?\"\n%s", res.code, all)
	}
}

// TestFlagSwallowsTheDash: a flag given without its value before "--"
// takes "--" as its value; it is named, not reported as a second TAPE.
func TestFlagSwallowsTheDash(t *testing.T) {
	for _, args := range [][]string{
		{"run", "examples/quickstart.jsonl", "--ui", "--", "sh", "-c", "exit 0"},
		{"run", "examples/quickstart.jsonl", "--rerecord", "--", "sh"},
		{"run", "examples/quickstart.jsonl", "--header", "--", "sh"},
	} {
		res := replayctl(t, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "took \"--\" as its value") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the flag that took \"--\"", args, res.code, res.stderr)
		}
	}
}

// TestLogTimesAre24Hour: a warning's time reads as the rest of the
// output's times do (18:22:04.37), not "6:22PM".
func TestLogTimesAre24Hour(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.jsonl")
	res := replayctl(t, "convert", harFixtures+"gosdk-2025.har", out)
	if res.code != 0 || !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d\d WRN `).MatchString(res.stderr) {
		t.Errorf("convert: exit %d, stderr %q; want warnings stamped HH:MM:SS.hh", res.code, res.stderr)
	}
}

// TestSpinFlagNegative: --spin below 0 is bad input: exit 2, naming the flag.
func TestSpinFlagNegative(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--spin", "-1ms")
	if res.code != 2 || !strings.Contains(res.stderr, "--spin") {
		t.Errorf("exit %d, want 2 and a message naming --spin\nstderr: %s", res.code, res.stderr)
	}
}

// TestSpinFlagTooLong: a spin above scheduler.MaxSpin (1s) keeps a core
// busy that long before each message: refused, exit 2, saying so.
func TestSpinFlagTooLong(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--spin", "1h")
	if res.code != 2 || !strings.Contains(res.stderr, "--spin") || !strings.Contains(res.stderr, "at most 1s") || !strings.Contains(res.stderr, "core busy") {
		t.Errorf("exit %d, want 2 and a message naming --spin, its bound and its cost\nstderr: %s", res.code, res.stderr)
	}
}

// TestDebugSpinFlag: debug takes --spin and hands it to the replay, whose
// check refuses one above 1s as run's does.
func TestDebugSpinFlag(t *testing.T) {
	res := replayctlIn(t, "", "debug", "examples/quickstart.jsonl", "--spin", "1h")
	if res.code != 2 || !strings.Contains(res.stderr, "--spin") || !strings.Contains(res.stderr, "at most 1s") {
		t.Errorf("--spin 1h: exit %d, want 2 and a message naming --spin and its bound\nstderr: %s", res.code, res.stderr)
	}
	res = replayctlIn(t, "continue\n", "debug", "examples/quickstart.jsonl", "--spin", "0", "--speed", "10x")
	if res.code != 0 || !strings.Contains(res.stdout, "0 failed") {
		t.Errorf("--spin 0: exit %d, want 0\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
}

// TestGCHeadroomEverywhere: --gc-headroom is a flag, a config key
// (performance.gc_headroom) and a library option, as spin is; debug paces
// what continue sends, so it takes the flag too.
func TestGCHeadroomEverywhere(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "replayctl.yaml")
	if err := os.WriteFile(cfg, []byte("performance:\n  gc_headroom: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--config", cfg, "--speed", "fast")
	if res.code != 0 {
		t.Errorf("run with performance.gc_headroom: 0: exit %d, want 0\nstderr: %s", res.code, res.stderr)
	}
	if err := os.WriteFile(cfg, []byte("performance:\n  gc_headroom: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = replayctl(t, "run", "examples/quickstart.jsonl", "--config", cfg, "--speed", "fast")
	if res.code != 2 || !strings.Contains(res.stderr, "performance.gc_headroom") {
		t.Errorf("run with performance.gc_headroom: -1: exit %d, want 2 and a message naming the key\nstderr: %s", res.code, res.stderr)
	}
	res = replayctlIn(t, "continue\n", "debug", "examples/quickstart.jsonl", "--gc-headroom", "0", "--speed", "10x")
	if res.code != 0 || !strings.Contains(res.stdout, "0 failed") {
		t.Errorf("debug --gc-headroom 0: exit %d, want 0\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
}
