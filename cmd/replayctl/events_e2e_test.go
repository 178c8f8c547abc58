package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// TestOutJSONLoadReplay: `--out json=FILE` of a 50-session HTTP load replay
// against a real server (the go-sdk conformance server on loopback) holds,
// for every request, its due, sent, answered and judged events in that
// order, with timestamps that agree with the figures the events carry;
// and the report's latency, lag and held percentiles, recomputed from the
// file with the report's histogram, are the report's own.
func TestOutJSONLoadReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays against a real server")
	}
	const sessions, calls = 50, 10
	url := testserver.GoSDKHTTP(t)
	tp := testtape.Record(t, transport.HTTP{URL: url, Client: transport.NewClient(4)}, "http", testtape.Conversation("test_simple_text", `{}`, calls))
	dir := t.TempDir()
	evPath, repPath := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "report.json")
	res := replayctl(t, "run", tp, "--target", url, "--sessions", "50", "--speed", "fast", "--timeout", "20s",
		"--out", "json="+evPath, "--report", repPath, "-q")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	var rep report.Report
	raw, err := os.ReadFile(repPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	events := readEvents(t, evPath)

	// Each request's events, by line, in file order.
	type key struct {
		session string
		seq     int64
	}
	type trail struct {
		line map[event.Type]int
		ev   map[event.Type]event.Event
		dup  []event.Type
	}
	trails := map[key]*trail{}
	var latencies, lags, helds []time.Duration
	for i, e := range events {
		switch e.Type {
		case event.Due, event.Sent, event.Answered, event.Judged:
		default:
			continue
		}
		k := key{e.Session, e.Seq}
		tr := trails[k]
		if tr == nil {
			tr = &trail{line: map[event.Type]int{}, ev: map[event.Type]event.Event{}}
			trails[k] = tr
		}
		if _, seen := tr.ev[e.Type]; seen {
			tr.dup = append(tr.dup, e.Type)
		}
		tr.line[e.Type], tr.ev[e.Type] = i+1, e
		if e.Type != event.Judged {
			continue
		}
		// The handshake's latency is apart from the report's (issue 23).
		if e.HasLatency && !mcp.IsHandshake(e.Method) {
			latencies = append(latencies, e.Latency)
		}
		if e.HasLag {
			lags = append(lags, e.Lag)
		}
		if e.HasHeld {
			helds = append(helds, e.Held)
		}
	}
	requests := 0
	for k, tr := range trails {
		j, ok := tr.ev[event.Judged]
		if !ok || j.Kind != "request" || j.Dir != "c2s" {
			continue
		}
		requests++
		if len(tr.dup) > 0 {
			t.Errorf("%s seq %d: got events %v more than once, want each once", k.session, k.seq, tr.dup)
		}
		order := []event.Type{event.Due, event.Sent, event.Answered, event.Judged}
		for i, typ := range order {
			if _, ok := tr.ev[typ]; !ok {
				t.Fatalf("%s seq %d: no %s event, want due, sent, answered and judged", k.session, k.seq, typ)
			}
			if i == 0 {
				continue
			}
			prev := order[i-1]
			if tr.line[prev] > tr.line[typ] || tr.ev[prev].TUS > tr.ev[typ].TUS {
				t.Errorf("%s seq %d: %s (line %d, t_us %d) after %s (line %d, t_us %d), want it before",
					k.session, k.seq, prev, tr.line[prev], tr.ev[prev].TUS, typ, tr.line[typ], tr.ev[typ].TUS)
			}
		}
		due, sent, answered := tr.ev[event.Due].TUS, tr.ev[event.Sent].TUS, tr.ev[event.Answered].TUS
		// Each stamp is rounded to the µs, and so is each figure: they
		// agree within the roundings.
		if got, want := answered-sent, us(j.Latency); !j.HasLatency || abs(got-want) > 1 {
			t.Errorf("%s seq %d: answered − sent = %dµs, judged latency %dµs (present %v): want them equal (±1µs)", k.session, k.seq, got, want, j.HasLatency)
		}
		if got, want := sent-due, us(j.Held)+us(j.Lag); abs(got-want) > 2 {
			t.Errorf("%s seq %d: sent − due = %dµs, judged held + lag = %dµs: want them equal (±2µs)", k.session, k.seq, got, want)
		}
		if s := tr.ev[event.Sent]; us(s.Held) != us(j.Held) {
			t.Errorf("%s seq %d: sent says held %s, judged %s: want the same", k.session, k.seq, s.Held, j.Held)
		}
	}
	if want := sessions * (1 + calls); requests != want {
		t.Errorf("got %d requests in the events, want %d", requests, want)
	}
	if last := events[len(events)-1]; last.Type != event.RunEnded {
		t.Errorf("last event %s, want %s", last.Type, event.RunEnded)
	}
	p := rep.Performance
	t.Logf("%d events, %d requests; latency p50 %vms p99 %vms, lag p50 %vms p99 %vms, held p99 %vms", len(events), requests,
		p.LatencyMS.P50, p.LatencyMS.P99, p.ScheduleLagMS.P50, p.ScheduleLagMS.P99, p.HeldMS.P99)
	for _, c := range []struct {
		name     string
		fromFile report.Stats
		fromRep  report.Stats
	}{
		{"latency", report.DurationStats(latencies), p.LatencyMS},
		{"schedule lag", report.DurationStats(lags), p.ScheduleLagMS},
		{"held", report.DurationStats(helds), p.HeldMS},
	} {
		if c.fromFile.Count != c.fromRep.Count || c.fromFile.P50 != c.fromRep.P50 || c.fromFile.P99 != c.fromRep.P99 || c.fromFile.Max != c.fromRep.Max {
			t.Errorf("%s from the events: count %d p50 %v p99 %v max %v; the report's: count %d p50 %v p99 %v max %v; want the same",
				c.name, c.fromFile.Count, c.fromFile.P50, c.fromFile.P99, c.fromFile.Max, c.fromRep.Count, c.fromRep.P50, c.fromRep.P99, c.fromRep.Max)
		}
	}
	if p.LatencyMS.Count != int64(sessions*calls) || rep.Handshake.LatencyMS.Count != sessions {
		t.Errorf("the report counts %d latencies and %d of the handshake, want %d and %d", p.LatencyMS.Count, rep.Handshake.LatencyMS.Count, sessions*calls, sessions)
	}
}

func readEvents(t *testing.T, path string) []event.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s line %d: %v: %s", path, n, err, sc.Text())
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatalf("%s: no events", path)
	}
	return events
}

func us(d time.Duration) int64 { return int64(d.Round(time.Microsecond) / time.Microsecond) }

func abs(n int64) int64 { return max(n, -n) }

// TestOutBadSpec: a bad --out is exit 2 with what to give instead.
func TestOutBadSpec(t *testing.T) {
	for _, spec := range []string{"csv=x", "json", "json=", "json=-&--out-buffer=0", "json=" + filepath.Join(t.TempDir(), "no", "such", "dir", "e.jsonl")} {
		args := []string{"run", "examples/quickstart.jsonl", "--speed", "fast"}
		for i, part := range strings.Split(spec, "&") { // "&" joins a second flag
			if i == 0 {
				args = append(args, "--out", part)
			} else {
				args = append(args, part)
			}
		}
		res := replayctl(t, args...)
		if res.code != 2 || !strings.Contains(res.stderr, "--out") || strings.Contains(res.stdout, "passed") {
			t.Errorf("--out %s: got exit %d, stdout %q, stderr %q; want 2, nothing replayed, and a message about --out", spec, res.code, res.stdout, res.stderr)
		}
	}
}

// TestOutStdout: json=- puts the events alone on stdout, one JSON object a
// line ending with run_ended; the summary goes to stderr.
func TestOutStdout(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--out", "json=-")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	for i, l := range lines {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("stdout line %d is not an event: %v: %q", i+1, err, l)
		}
		if i == len(lines)-1 && e.Type != event.RunEnded {
			t.Errorf("last line %q, want a run_ended event", l)
		}
	}
	if !strings.Contains(res.stderr, "passed") {
		t.Errorf("stderr %q, want the summary there", res.stderr)
	}
}

// TestOutWriteFails: a file the events cannot be written to is exit 2
// naming it, after the summary.
func TestOutWriteFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--out", "json=/dev/full")
	if res.code != 2 || !strings.Contains(res.stderr, "--out json=/dev/full") || !strings.Contains(res.stdout, "passed") {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 2, the summary, and the --out error", res.code, res.stdout, res.stderr)
	}
}

// TestDebugOut: debug takes --out json=FILE too (not json=-: its stdout is
// the debugger's).
func TestDebugOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	res := replayctlIn(t, "continue\n", "debug", "examples/quickstart.jsonl", "--out", "json="+path)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", res.code, res.stderr)
	}
	judged := 0
	for _, e := range readEvents(t, path) {
		if e.Type == event.Judged && e.Kind == "request" {
			judged++
		}
	}
	if judged != 8 {
		t.Errorf("%d requests judged in the events, want the tape's 8", judged)
	}
	if res := replayctlIn(t, "", "debug", "examples/quickstart.jsonl", "--out", "json=-"); res.code != 2 || !strings.Contains(res.stderr, "json=FILE") {
		t.Errorf("debug --out json=-: exit %d, stderr %q; want 2 and to give a file", res.code, res.stderr)
	}
}
