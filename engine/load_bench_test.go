package engine

// Load benchmarks of the session actors: side by side with wrk over HTTP,
// many sessions, and the schedule of a session against a slow start.

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// wrkRate runs wrk with the project's tools/call script against url at
// the given concurrency for d and returns its requests/s, failing on
// non-2xx answers or answers without a result. It skips without wrk.
func wrkRate(b *testing.B, url, tool, args string, conns int, d time.Duration) float64 {
	b.Helper()
	bin, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk is not installed (apt-get install wrk): no side-by-side figure")
	}
	script := filepath.Join(testserver.Root(b), "scripts", "wrk-tools-call.lua")
	cmd := exec.Command(bin, "-t2", "-c"+strconv.Itoa(conns), "-d"+d.String(), "-s", script, url)
	cmd.Env = append(os.Environ(), "WRK_TOOL="+tool, "WRK_ARGS="+args)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) || !bytes.Contains(out, []byte("without a result: 0")) {
		b.Fatalf("wrk saw failed answers:\n%s", out)
	}
	m := regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		b.Fatalf("wrk printed no rate:\n%s", out)
	}
	rate, _ := strconv.ParseFloat(string(m[1]), 64)
	return rate
}

// BenchmarkHTTPLoadVsWrk replays 50 concurrent sessions of tools/call
// (fast, causal order: each call waits for the previous answer, as a wrk
// connection does) against a Streamable HTTP server, and runs wrk with 50
// connections against the same endpoint in the same run: for 3 s before
// the replay and 3 s after, so that a change of the machine's load
// during the run weighs on both alike (wrk takes whole seconds). ratio is
// replayctl's requests/s ÷ wrk's (the mean of its two rates);
// wrk-spread is the later wrk rate ÷ the earlier, how far the machine
// moved meanwhile.
//
// Against the go-sdk server a session makes 1,000 calls: its handshake
// (initialize, the GET stream, initialized: 0.2–0.4 s for 50 sessions),
// which wrk does not make, is then 1–3% of the replay's time rather
// than 3–7% with 200 (issue 24).
func BenchmarkHTTPLoadVsWrk(b *testing.B) {
	const sessions = 50
	targets := []struct {
		name       string
		url        func(testing.TB) string
		tool, args string
		calls      int // per session
	}{
		{"server=slow-20ms", func(tb testing.TB) string { return testserver.SlowHTTP(tb, "-delay", "20ms") }, "echo", `{"text":"hi"}`, 200},
		{"server=go-sdk", testserver.GoSDKHTTPStateless, "test_simple_text", `{}`, 1000},
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			calls := tg.calls
			url := tg.url(b)
			// One spare connection per session, as the CLI keeps by default
			// (replay.DefaultHTTPSpare): without it, a request sent while its
			// session's last answer is still being read (an event stream's
			// end) finds no connection idle and is sent on a goroutine of its
			// own, or dials (951 of 20,000 against the go-sdk server, 4 with it).
			d := transport.HTTP{URL: url, Client: transport.NewClient(sessions), Spare: 1}
			path := testtape.Record(b, d, "http", testtape.Conversation(tg.tool, tg.args, calls))
			var ours, theirs, spread float64
			var cpu time.Duration
			for b.Loop() {
				before := wrkRate(b, url, tg.tool, tg.args, sessions, 3*time.Second)
				gc := debug.SetGCPercent(gcPercent())
				cpu0 := testos.CPUTime()
				start := time.Now()
				rep, err := replay1(b, Config{Tape: path, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Sessions: sessions, Logger: zerolog.Nop()})
				elapsed := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				p := rep.Performance
				if bad := p.Errors + p.Timeouts; bad != 0 {
					b.Fatalf("%d errors and timeouts: %+v", bad, rep.Errors)
				}
				// tools/call answers only, as wrk sends: the handshakes are
				// not in the rate.
				ours += float64(sessions*calls) / elapsed.Seconds()
				cpu += testos.CPUTime() - cpu0
				debug.SetGCPercent(gc)
				after := wrkRate(b, url, tg.tool, tg.args, sessions, 3*time.Second)
				theirs += (before + after) / 2
				spread += after / before
			}
			n := float64(b.N)
			// On a machine whose cores the server needs too, the client's
			// own CPU per request is what it takes from the server.
			b.ReportMetric(float64(cpu.Microseconds())/n/float64(sessions*calls), "cpu-µs/request")
			b.ReportMetric(ours/n, "requests/s")
			b.ReportMetric(theirs/n, "wrk-requests/s")
			b.ReportMetric(ours/theirs, "ratio")
			b.ReportMetric(spread/n, "wrk-spread")
		})
	}
}

// BenchmarkMockManySessions replays a tape of many one-request recorded
// sessions against the built-in mock: the peak live heap stays flat as
// the tape's sessions grow (each session ends when its last message is
// done; the mock indexes the tape once).
func BenchmarkMockManySessions(b *testing.B) {
	for _, n := range []int{4000, 20000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "many.jsonl")
			writeOneShot(b, path, n)
			for b.Loop() {
				var rep report.Report
				var err error
				start := time.Now()
				peak := peakHeap(func() {
					rep, err = replay1(b, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop()})
				})
				elapsed := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Validation.Passed != int64(n) {
					b.Fatalf("passed %d, want %d", rep.Validation.Passed, n)
				}
				b.ReportMetric(elapsed.Seconds()*1000, "ms")
				b.ReportMetric(float64(peak)/(1<<20), "peak-live-heap-MB")
			}
		})
	}
}

// writeOneShot writes a tape of n sessions, each one ping and its answer,
// 100µs apart.
func writeOneShot(tb testing.TB, path string, n int) {
	tb.Helper()
	w, err := tape.Create(path, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		s := "s" + strconv.Itoa(i)
		if err := w.Write(tape.Message{Seq: int64(2 * i), TUS: int64(100 * i), Session: s, Dir: tape.C2S, Msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}); err != nil {
			tb.Fatal(err)
		}
		if err := w.Write(tape.Message{Seq: int64(2*i + 1), TUS: int64(100*i + 50), Session: s, Dir: tape.S2C, Msg: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSlowStart10x replays, at 10x, a session recorded against a
// server that took 500ms to start, against a stdio server that takes
// 500ms to start too: 200 tools/call recorded 20ms apart. The server logs
// when each message arrives; the gaps between arrivals are compared with
// the recorded gaps ÷ 10. Before sessions had their own clock, the calls
// due while the server started went out in one burst.
func BenchmarkSlowStart10x(b *testing.B) {
	const calls, gap, startup = 200, 20 * time.Millisecond, 500 * time.Millisecond
	path := filepath.Join(b.TempDir(), "slowstart.jsonl")
	writeSlowStart(b, path, calls, gap, startup)
	arrivals := filepath.Join(b.TempDir(), "arrivals.log")
	d := transport.Stdio{Command: testserver.Slow(b, "-start", startup.String(), "-arrivals", arrivals)}
	var devs []time.Duration
	for b.Loop() {
		_ = os.Remove(arrivals)
		rep, err := replay1(b, Config{Tape: path, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, Logger: zerolog.Nop()})
		if err != nil {
			b.Fatal(err)
		}
		if p := rep.Performance; p.Errors+p.Timeouts != 0 {
			b.Fatalf("errors %d timeouts %d", p.Errors, p.Timeouts)
		}
		at := callArrivals(b, arrivals)
		if len(at) != calls {
			b.Fatalf("the server saw %d calls, want %d", len(at), calls)
		}
		for i := 1; i < len(at); i++ {
			devs = append(devs, (at[i] - at[i-1] - gap/10).Abs())
		}
	}
	slices.Sort(devs)
	q := func(p float64) float64 {
		return float64(devs[int(math.Ceil(p*float64(len(devs))))-1]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.5), "dev-p50-ms")
	b.ReportMetric(q(0.99), "dev-p99-ms")
	b.ReportMetric(q(1), "dev-max-ms")
}

// writeSlowStart writes a session whose server answered initialize after
// startup, then n tools/call gap apart, each answered 1ms later.
func writeSlowStart(tb testing.TB, path string, n int, gap, startup time.Duration) {
	tb.Helper()
	w, err := tape.Create(path, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion, Transport: "stdio"})
	if err != nil {
		tb.Fatal(err)
	}
	var seq int64
	put := func(at time.Duration, dir tape.Dir, msg string) {
		if err := w.Write(tape.Message{Seq: seq, TUS: at.Microseconds(), Session: "s1", Dir: dir, Msg: []byte(msg)}); err != nil {
			tb.Fatal(err)
		}
		seq++
	}
	put(0, tape.C2S, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	put(startup, tape.S2C, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`)
	put(startup+time.Millisecond, tape.C2S, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= n; i++ {
		at := startup + time.Duration(i)*gap
		put(at, tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d"}}}`, i, i))
		put(at+time.Millisecond, tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}`, i, i))
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// callArrivals reads the slow server's arrival log: when each tools/call
// came in, as durations since the epoch.
func callArrivals(tb testing.TB, path string) []time.Duration {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var at []time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[1] != "tools/call" {
			continue
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			tb.Fatalf("arrivals: %q: %v", sc.Text(), err)
		}
		at = append(at, time.Duration(ns))
	}
	return at
}

// gcPercent is the collector's target during the replay: Go's default
// (100), or BENCH_GC, to see what GOGC does to replayctl's CPU per request.
func gcPercent() int {
	if v, err := strconv.Atoi(os.Getenv("BENCH_GC")); err == nil {
		return v
	}
	return 100
}
