package coord

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/report"
)

// TestJoinStopFinishServe runs a coordinator of 2 shards with Serve on
// a loopback port and 2 shards that Join it: both get one common start;
// the coordinator's Stop cancels each shard's Context with ErrStopped;
// Finish reports each replay as stopped by the coordinator; Serve then
// returns the merged report of both.
func TestJoinStopFinishServe(t *testing.T) {
	const n = 2
	srv, err := New(n, StartLead(0), RegisterTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	type served struct {
		rep *report.Report
		err error
	}
	done := make(chan served, 1)
	go func() {
		rep, err := srv.Serve(ctx, ln)
		done <- served{rep, err}
	}()
	url := "http://" + ln.Addr().String()
	type joined struct {
		s   *Shard
		err error
	}
	joins := make(chan joined, n)
	for i := range n {
		go func() {
			s, _, err := Join(ctx, url, "", hello(i, n, fmt.Sprintf("a%d", i)), NewStream())
			joins <- joined{s, err}
		}()
	}
	var shards []*Shard
	for range n {
		j := <-joins
		if j.err != nil || j.s == nil {
			t.Fatalf("Join: %v, %v", j.s, j.err)
		}
		shards = append(shards, j.s)
	}
	if shards[0].Start().IsZero() || !shards[0].Start().Equal(shards[1].Start()) {
		t.Fatalf("starts %v and %v, want one common start", shards[0].Start(), shards[1].Start())
	}
	srv.Stop("told to stop")
	for i, s := range shards {
		<-s.Context().Done()
		if cause := context.Cause(s.Context()); !errors.Is(cause, ErrStopped) || !strings.Contains(cause.Error(), "told to stop") {
			t.Errorf("shard %d: cause %v, want ErrStopped with why", i, cause)
		}
		rep := part(fmt.Sprintf("s%d", i), &report.Shard{Index: i, Count: n}, 1, 2)
		if err := s.Finish(ctx, rep, nil); err != nil {
			t.Fatalf("shard %d: Finish: %v", i, err)
		}
		if rep.Summary.Passed || !strings.Contains(rep.Summary.Aborted, "stopped by the coordinator: told to stop") {
			t.Errorf("shard %d: summary %+v, want failed, stopped by the coordinator", i, rep.Summary)
		}
	}
	got := <-done
	if got.err != nil || got.rep == nil || got.rep.Coordination == nil || len(got.rep.Coordination.Shards) != n {
		t.Fatalf("Serve: %+v, %v; want the merged report of %d shards", got.rep, got.err, n)
	}
}

// TestServeInterruptedStopsShardsInterrupted: an interrupted coordinator
// (Serve's ctx done) stops every shard with the stop's kind: each shard's
// own report says it was interrupted (not failed), stopped by the
// coordinator, and so does the merged report, from the shards' reports.
func TestServeInterruptedStopsShardsInterrupted(t *testing.T) {
	const n = 2
	srv, err := New(n, StartLead(0), RegisterTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	serveCtx, interrupt := context.WithCancel(ctx) // the coordinator's Ctrl-C
	defer interrupt()
	type served struct {
		rep *report.Report
		err error
	}
	done := make(chan served, 1)
	go func() {
		rep, err := srv.Serve(serveCtx, ln)
		done <- served{rep, err}
	}()
	url := "http://" + ln.Addr().String()
	joins := make(chan *Shard, n)
	for i := range n {
		go func() {
			s, _, err := Join(ctx, url, "", hello(i, n, fmt.Sprintf("a%d", i)), NewStream())
			if err != nil || s == nil {
				t.Errorf("Join %d: %v, %v", i, s, err)
			}
			joins <- s
		}()
	}
	var shards []*Shard
	for range n {
		s := <-joins
		if s == nil {
			t.FailNow()
		}
		shards = append(shards, s)
	}
	interrupt()
	for _, s := range shards {
		<-s.Context().Done()
		i := s.client.hello.Index
		rep := part(fmt.Sprintf("s%d", i), &report.Shard{Index: i, Count: n}, 1, 2)
		if err := s.Finish(ctx, rep, context.Cause(s.Context())); err != nil {
			t.Fatalf("shard %d: Finish: %v", i, err)
		}
		if rep.Summary.Stopped != report.StopInterrupted || rep.Summary.Passed || !strings.Contains(rep.Summary.Aborted, "stopped by the coordinator: the coordinator was interrupted") {
			t.Errorf("shard %d: stopped %q, passed %v, aborted %q; want interrupted, stopped by the coordinator", i, rep.Summary.Stopped, rep.Summary.Passed, rep.Summary.Aborted)
		}
	}
	got := <-done
	if got.err != nil || got.rep == nil || got.rep.Summary.Stopped != report.StopInterrupted {
		t.Fatalf("Serve: %v; want the merged report, interrupted", got.err)
	}
}
