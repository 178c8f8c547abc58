package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// callsTape writes a tape of one session: the handshake, then n
// tools/call recorded gap apart, each answered 0.1ms later.
func callsTape(t *testing.T, n int, gap time.Duration) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	w, err := tape.Create(path, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion, Transport: "http"})
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	put := func(at time.Duration, dir tape.Dir, msg string) {
		if err == nil {
			err = w.Write(tape.Message{Seq: seq, TUS: at.Microseconds(), Session: "s1", Dir: dir, Msg: []byte(msg)})
		}
		seq++
	}
	put(0, tape.C2S, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	put(time.Millisecond, tape.S2C, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}}`)
	put(2*time.Millisecond, tape.C2S, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= n; i++ {
		at := 10*time.Millisecond + time.Duration(i-1)*gap
		put(at, tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d"}}}`, i, i))
		put(at+100*time.Microsecond, tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}`, i, i))
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGCDuringPacedSchedule counts the collections of a paced replay of
// 3,000 calls with the collector's default pacing (GOGC=100), up to the
// last answer judged: the one before the schedule starts, and none while
// it runs — its garbage stays within Config.GCHeadroom. A collection while the schedule ran held
// answers, and the calls waiting for them, for up to 20 ms in 2 of 3
// runs of 2,000 calls at 10x (BENCHMARKS.md, issue 24, fourth round). At
// fast there is no forced one, and the hold spaces the rest: none
// (sixth round: a single fast session held too; one or more before).
func TestGCDuringPacedSchedule(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	path := callsTape(t, 3000, 2*time.Millisecond)
	for _, tc := range []struct {
		speed scheduler.Speed
		want  uint32 // collections up to the last answer
	}{
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, 1}, // before the schedule
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 5000}, 1},
		{scheduler.Speed{Mode: scheduler.Fast}, 0},
	} {
		t.Run(tc.speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: path, Speed: tc.speed}))
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC() // none of the set-up's under way
				before := numGC()
				var atLast uint32 // when the last answer was judged
				e.OnResult(func(r report.Result) { atLast = numGC() })
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Summary.Passed || rep.Summary.Received != 3001 {
					t.Fatalf("passed %v, %d answers; want a pass with 3001", rep.Summary.Passed, rep.Summary.Received)
				}
				// Counted to the last answer: setting GOGC back as the
				// replay ends may start one more, after the schedule.
				if got := atLast - before; got != tc.want {
					t.Errorf("%d collections in a %s replay of 3,000 calls, want %d", got, tc.speed, tc.want)
				}
			})
		})
	}
}

// TestHoldCollectionsRestores: GOGC is the user's again once the last of
// the paced replays holding it ends, and is left alone when it is off,
// at a speed that is not paced, or with no headroom.
func TestHoldCollectionsRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	runtime.GC() // a live heap to pace by: run alone, no collection had run yet and GOGC stayed 150
	tenX := scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}
	a := holdCollections(tenX, DefaultGCHeadroom)
	b := holdCollections(scheduler.Speed{Mode: scheduler.Rate, RPS: 100}, 1<<20)
	a()
	if got := debug.SetGCPercent(150); got == 150 {
		t.Errorf("GOGC set back to 150 while a paced replay still runs")
	}
	b()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC %d after the replays, want the user's 150", got)
	}
	for _, tc := range []struct {
		name     string
		percent  int
		speed    scheduler.Speed
		headroom int64
	}{
		{"off", -1, tenX, DefaultGCHeadroom},
		{"fast", 150, scheduler.Speed{Mode: scheduler.Fast}, DefaultGCHeadroom},
		{"no headroom", 150, tenX, 0},
	} {
		debug.SetGCPercent(tc.percent)
		undo := holdCollections(tc.speed, tc.headroom)
		if got := debug.SetGCPercent(tc.percent); got != tc.percent {
			t.Errorf("%s: GOGC %d while the replay runs, want %d", tc.name, got, tc.percent)
		}
		undo()
	}
}

// TestGOGCRead: gogc reads the percentage as set, off included, without
// setting it.
func TestGOGCRead(t *testing.T) {
	was := debug.SetGCPercent(250)
	defer debug.SetGCPercent(was)
	if got := gogc(); got != 250 {
		t.Errorf("gogc() = %d after SetGCPercent(250)", got)
	}
	debug.SetGCPercent(-1)
	if got := gogc(); got >= 0 {
		t.Errorf("gogc() = %d with the collector off, want negative", got)
	}
}
