package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/internal/testtape/calls"
	"github.com/replayctl/replayctl/metrics"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/tracefile"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// writeTape writes a native tape of one session: the handshake, then n
// tools/call requests gapUS apart, each answered after 100µs. answer
// changes the recorded answer text of request i.
func writeTape(tb testing.TB, dir string, n int, gapUS int64, answer func(i int) string) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("tape-%d.jsonl", n))
	if err := (calls.Tape{N: n, Gap: time.Duration(gapUS) * time.Microsecond, Answer: answer}).Write(path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// withMock gives cfg the built-in mock, answering from cfg's own tape, as
// its target when it has none: what package replay does by default.
func withMock(cfg Config) Config {
	if cfg.Dialer != nil {
		return cfg
	}
	src := cfg.Source
	if src == nil {
		src = tape.File(cfg.Tape)
	}
	cfg.Dialer = mock.FromSource(src, mock.WithTapeOptions(cfg.TapeOptions...))
	if cfg.Target == "" {
		cfg.Target = "mock"
	}
	return cfg
}

func replay(tb testing.TB, cfg Config) (report.Report, error) {
	tb.Helper()
	if cfg.Logger.GetLevel() == zerolog.DebugLevel {
		cfg.Logger = zerolog.New(zerolog.NewTestWriter(tb)).Level(zerolog.WarnLevel)
	}
	e, err := New(withMock(cfg))
	if err != nil {
		tb.Fatal(err)
	}
	// A bound for a replay that hangs, not a figure: a replay of
	// 100,000 requests under cachegrind (BenchmarkPipeline) takes more
	// than a minute on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return e.Run(ctx)
}

func TestReplayAgainstOwnTapePasses(t *testing.T) {
	for _, order := range []Order{OrderCausal, OrderSequential, OrderNone} {
		t.Run(string(order), func(t *testing.T) {
			path := writeTape(t, t.TempDir(), 50, 1000, nil)
			rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Order: order})
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Validation
			if v.Checked != 51 || v.Passed != 51 || v.Failed != 0 {
				t.Errorf("checked/passed/failed = %d/%d/%d, want 51/51/0", v.Checked, v.Passed, v.Failed)
			}
		})
	}
}

// TestRunIDPerReplay: every replay's report has a run id of its own, a
// random (version 4) UUID.
func TestRunIDPerReplay(t *testing.T) {
	path := writeTape(t, t.TempDir(), 2, 1000, nil)
	var ids []string
	for range 2 {
		rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}})
		if err != nil {
			t.Fatal(err)
		}
		id := rep.Summary.RunID
		if u, err := uuid.Parse(id); err != nil || u.String() != id || u.Version() != 4 {
			t.Fatalf("run_id %q: want a version 4 UUID in canonical form (%v)", id, err)
		}
		ids = append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Errorf("two replays: got the same run id %s twice, want two", ids[0])
	}
}

func TestChangedAnswersFailExactly(t *testing.T) {
	dir := t.TempDir()
	path := writeTape(t, dir, 20, 1000, nil)
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	changed := writeTape(t, other, 20, 1000, func(i int) string {
		if i == 7 || i == 13 {
			return "something else"
		}
		return fmt.Sprintf("Echo: message %d", i)
	})
	rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Dialer: mock.New(changed)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Validation.Failed != 2 || rep.Validation.Passed != 19 {
		t.Fatalf("failed %d passed %d, want 2 and 19", rep.Validation.Failed, rep.Validation.Passed)
	}
	// Request i is seq 3+2(i-1): the handshake takes seqs 0..2.
	for k, want := range []int64{15, 27} {
		f := rep.Validation.Failures[k]
		if f.Seq != want || len(f.Differences) != 1 || f.Differences[0].Path != "result.content[0].text" {
			t.Errorf("failure %d = seq %d %+v, want seq %d at result.content[0].text", k, f.Seq, f.Differences, want)
		}
	}
}

// BenchmarkPipeline replays a tape of n requests in fast mode against the
// built-in mock, every answer validated. requests/s is the headline figure.
// events=file writes the event stream to a file as JSON Lines (--out
// json=FILE) besides; events=metrics counts it for Prometheus (--metrics;
// one scrape at the end); events=trace keeps it for a Perfetto trace and
// writes the trace file at the end (--out trace=FILE); events=none
// consumes nothing more.
func BenchmarkPipeline(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		for _, sink := range []string{"none", "file", "metrics", "trace"} {
			b.Run(fmt.Sprintf("msgs=%d/events=%s", n, sink), func(b *testing.B) {
				dir := b.TempDir()
				path := writeTape(b, dir, n, 1000, nil)
				b.ReportAllocs()
				b.ResetTimer()
				var lines, stalls int64
				cpu0 := testos.CPUTime()
				for b.Loop() {
					cfg := Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop()}
					var f *os.File
					var m *metrics.Metrics
					var tr *tracefile.Trace
					switch sink {
					case "file":
						var err error
						if f, err = os.Create(filepath.Join(dir, "events.jsonl")); err != nil {
							b.Fatal(err)
						}
						write := event.JSONLines(f)
						cfg.Events = []event.Consumer{{Name: "file", Handle: func(batch []event.Event) error {
							lines += int64(len(batch))
							return write(batch)
						}}}
					case "metrics":
						m = metrics.New()
						cfg.Events = []event.Consumer{m.Consumer()}
					case "trace":
						tr = tracefile.New()
						cfg.Events = []event.Consumer{tr.Consumer("trace", 0)}
					}
					rep, err := replay(b, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if f != nil {
						if err := f.Close(); err != nil {
							b.Fatal(err)
						}
					}
					if m != nil {
						var text bytes.Buffer
						m.WriteText(&text)
						if !bytes.Contains(text.Bytes(), []byte(fmt.Sprintf("replayctl_requests_total{method=\"tools/call\"} %d\n", n))) {
							b.Fatalf("the metrics do not count %d tools/call requests:\n%s", n, text.Bytes())
						}
					}
					if tr != nil {
						tf, err := os.Create(filepath.Join(dir, "trace.json"))
						if err != nil {
							b.Fatal(err)
						}
						if _, err := tr.WriteTo(tf); err != nil {
							b.Fatal(err)
						}
						if err := tf.Close(); err != nil {
							b.Fatal(err)
						}
					}
					if rep.Validation.Passed != int64(n+1) {
						b.Fatalf("passed %d, want %d", rep.Validation.Passed, n+1)
					}
					for _, w := range rep.Summary.Warnings {
						if !strings.Contains(w, "fell behind") { // waiting for the file is the design, and its cost
							b.Fatalf("warning: %s", w)
						}
						stalls++
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
				// On a shared machine the CPU per request is the steadier figure.
				b.ReportMetric(float64((testos.CPUTime()-cpu0).Nanoseconds())/float64(b.N)/float64(n)/1000, "cpu-µs/request")
				if sink == "file" {
					b.ReportMetric(float64(lines)/float64(b.N)/float64(n), "events/request")
				}
				if sink != "none" {
					b.ReportMetric(float64(stalls)/float64(b.N), "runs-that-waited/op")
				}
			})
		}
	}
}

func TestVirtualSessions(t *testing.T) {
	path := writeTape(t, t.TempDir(), 30, 1000, nil)
	for _, ramp := range []time.Duration{0, 20 * time.Millisecond} {
		t.Run(ramp.String(), func(t *testing.T) {
			var seen = map[string]int{}
			cfg := Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, Sessions: 5, Ramp: ramp}
			e, err := New(withMock(cfg))
			if err != nil {
				t.Fatal(err)
			}
			e.OnResult(func(r report.Result) { seen[r.Session]++ })
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep, err := e.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Validation.Passed != 5*31 || rep.Validation.Failed != 0 {
				t.Errorf("passed %d failed %d, want %d and 0", rep.Validation.Passed, rep.Validation.Failed, 5*31)
			}
			if rep.Summary.Sessions != 5 || len(seen) != 5 {
				t.Errorf("sessions %d, results from %v; want 5 virtual sessions", rep.Summary.Sessions, seen)
			}
			for k := 1; k <= 5; k++ {
				if n := seen[fmt.Sprintf("s1#%d", k)]; n != 32 {
					t.Errorf("session s1#%d: %d results, want 32", k, n)
				}
			}
		})
	}
}

func TestFanoutOrderAndWindow(t *testing.T) {
	path := writeTape(t, t.TempDir(), 100, 1000, nil)
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f := newFanout(r, 4, 10*time.Millisecond) // shifts 0, 2.5, 5, 7.5 ms
	var last int64 = -1
	n, maxWindow := 0, 0
	for {
		m, err := f.Next()
		if err != nil {
			break
		}
		if m.TUS < last {
			t.Fatalf("message %d of %s at %dµs after one at %dµs: out of due order", m.Seq, m.Session, m.TUS, last)
		}
		last = m.TUS
		n++
		maxWindow = max(maxWindow, len(f.window))
	}
	if want := 4 * 203; n != want {
		t.Errorf("got %d messages, want %d", n, want)
	}
	// 7.5 ms of a tape with 2 messages per ms: about 15 in the window.
	if maxWindow > 20 {
		t.Errorf("window grew to %d messages, want about 15 (7.5ms of tape)", maxWindow)
	}
}

// TestNewNeedsDialer: the engine has no target of its own (package replay
// passes the built-in mock); a config without one is refused, saying so.
func TestNewNeedsDialer(t *testing.T) {
	_, err := New(Config{Tape: "../examples/quickstart.jsonl"})
	if err == nil || !strings.Contains(err.Error(), "Config.Dialer is nil") {
		t.Errorf("got %v, want an error saying Config.Dialer is nil", err)
	}
}
