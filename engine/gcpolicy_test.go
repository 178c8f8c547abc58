package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"testing"
	"testing/synctest"
	"time"

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
// 3,000 calls with the collector's default pacing (GOGC=100): the one
// before the schedule starts, and none while it runs — its garbage stays
// within Config.GCHeadroom. A collection while the schedule ran held
// answers, and the calls waiting for them, for up to 20 ms in 2 of 3
// runs of 2,000 calls at 10x (BENCHMARKS.md, issue 24, fourth round). At
// fast the collector paces itself: more than one.
func TestGCDuringPacedSchedule(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	path := callsTape(t, 3000, 2*time.Millisecond)
	for _, tc := range []struct {
		speed scheduler.Speed
		paced bool // want exactly one collection
	}{
		{scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, true},
		{scheduler.Speed{Mode: scheduler.Rate, RPS: 5000}, true},
		{scheduler.Speed{Mode: scheduler.Fast}, false},
	} {
		t.Run(tc.speed.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e, err := New(withMock(Config{Tape: path, Speed: tc.speed}))
				if err != nil {
					t.Fatal(err)
				}
				before := numGC()
				rep, err := e.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Summary.Passed || rep.Summary.Received != 3001 {
					t.Fatalf("passed %v, %d answers; want a pass with 3001", rep.Summary.Passed, rep.Summary.Received)
				}
				got := numGC() - before
				if tc.paced && got != 1 {
					t.Errorf("%d collections in a paced replay of 3,000 calls, want 1 (before the schedule)", got)
				}
				if !tc.paced && got < 2 {
					t.Errorf("%d collections in a fast replay of 3,000 calls, want the collector's own (2 or more): the test's replay makes too little garbage to tell", got)
				}
			})
		})
	}
}
