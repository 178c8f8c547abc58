package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// TestControllerDrivesTheEngine runs the real pipeline against the mock
// under a controller: step, breakpoint, seek and step again, checking
// which messages were judged after each command.
func TestControllerDrivesTheEngine(t *testing.T) {
	path := writeTape(t, t.TempDir(), 10, 1000, nil) // seq 0..2 handshake, request i at seq 1+2i
	e, err := New(withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)}))
	if err != nil {
		t.Fatal(err)
	}
	c := controller.New(e)
	e.Attach(c)
	var judged []int64
	results := make(chan report.Result, 100)
	e.OnResult(func(r report.Result) {
		if r.Dir == "c2s" {
			results <- r
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return c.Run(gctx) })
	g.Go(func() error { _, err := e.Run(gctx); return err })
	collect := func() []int64 {
		judged = judged[:0]
		for {
			select {
			case r := <-results:
				judged = append(judged, r.Seq)
			default:
				return append([]int64(nil), judged...)
			}
		}
	}
	mustEqual := func(what string, got, want []int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: judged %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: judged %v, want %v", what, got, want)
			}
		}
	}

	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Step(ctx, 1)
	if err != nil || len(rs) != 1 || rs[0].Seq != 0 || rs[0].Verdict != report.Passed {
		t.Fatalf("step 1: %+v, %v; want seq 0 passed", rs, err)
	}
	mustEqual("step 1", collect(), []int64{0})

	// A breakpoint on request 4 (seq 9): continue stops before it.
	if _, err := c.AddBreakpoint(ctx, `method == "tools/call" && params.arguments.message == "message 4"`); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := c.WaitStop(ctx)
	if err != nil || st.State != controller.Paused || st.Seq != 9 {
		t.Fatalf("continue: status %+v, %v; want paused before seq 9", st, err)
	}
	mustEqual("continue", collect(), []int64{2, 3, 5, 7})

	// Seek back to request 2 (seq 5), step: exactly seq 5 is sent again.
	if err := c.Seek(ctx, 5); err != nil {
		t.Fatal(err)
	}
	rs, err = c.Step(ctx, 1)
	if err != nil || len(rs) != 1 || rs[0].Seq != 5 || rs[0].Verdict != report.Passed {
		t.Fatalf("seek 5, step: %+v, %v; want seq 5, passed (the mock rewinds with the seek)", rs, err)
	}
	mustEqual("seek+step", collect(), []int64{5})

	cancel()
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestSeekPastTheEnd: a seek to a seq the tape does not have fails and
// changes nothing — the next step sends the next message, and the end of
// the tape is still reached. (The epoch was bumped before the loader
// refused, so everything loaded after it was stale and a step waited
// for ever.)
func TestSeekPastTheEnd(t *testing.T) {
	path := writeTape(t, t.TempDir(), 2, 1000, nil) // seq 0 initialize, 2 initialized, then the requests
	e, err := New(withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)}))
	if err != nil {
		t.Fatal(err)
	}
	c := controller.New(e)
	e.Attach(c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return c.Run(gctx) })
	g.Go(func() error { _, err := e.Run(gctx); return err })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(ctx, 1); err != nil {
		t.Fatal(err)
	}
	err = c.Seek(ctx, 99)
	if !errors.Is(err, tape.ErrOutOfRange) || !strings.Contains(err.Error(), "ends at seq") {
		t.Fatalf("seek 99: got %v, want an error saying where the tape ends", err)
	}
	rs, err := c.Step(ctx, 1)
	if err != nil || len(rs) != 1 || rs[0].Seq != 2 || rs[0].Verdict != report.Sent {
		t.Fatalf("step after a failed seek: %+v, %v; want seq 2 sent", rs, err)
	}
	if err := c.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := c.WaitStop(ctx); err != nil || st.State != controller.Ended {
		t.Fatalf("continue: %+v, %v; want the end of the tape", st, err)
	}
	cancel()
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
