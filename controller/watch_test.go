package controller

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	stream "github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// A watcher that does not read loses the oldest events, counted; the
// stream's consumer (Watch) never waits for it.
func TestWatchEventsDropOldest(t *testing.T) {
	c := New(&fakeEngine{})
	consumer := c.Watch(time.Now())
	if !consumer.Live {
		t.Fatal("the controller's consumer is lossless: want live (it must never slow the replay)")
	}
	w := c.WatchEvents(3)
	var batch []stream.Event
	for i := range int64(10) {
		batch = append(batch, stream.Event{Type: stream.Sent, Seq: i})
	}
	if err := consumer.Handle(batch); err != nil { // returns at once: a wait would hang the test
		t.Fatal(err)
	}
	var got []int64
	for range 3 {
		got = append(got, (<-w.C).Seq)
	}
	if fmt.Sprint(got) != "[7 8 9]" || w.Lost() != 7 {
		t.Errorf("got seqs %v, lost %d; want the newest [7 8 9] and 7 lost", got, w.Lost())
	}
	w.Close()
	w.Close() // twice: no panic
	if _, ok := <-w.C; ok {
		t.Error("C is open after Close")
	}
}

// A control client that sends watch gets the replay's events, a judged
// one with its result in the one wire shape (report.TimelineEntry), its
// times counted from the replay's start.
func TestServeUnixWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	e := &fakeEngine{tape: newTape(3, 0), speed: scheduler.Speed{Mode: scheduler.Fast}, fails: map[int64]report.Verdict{}}
	c := New(e)
	e.c = c
	wg.Go(func() { _ = c.Run(ctx) })
	start := time.Now()
	consumer := c.Watch(start)

	path := filepath.Join(t.TempDir(), "c.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = Serve(ctx, c, ln) })
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := &client{t: t, conn: conn, r: bufio.NewReader(conn)}
	if r := cl.call(`{"id":1,"cmd":"watch"}`); r["ok"] != true {
		t.Fatalf("watch: got %v, want ok", r)
	}

	r := report.Result{Seq: 4, Session: "s1", Method: "tools/call", Dir: report.DirC2S, Kind: report.KindRequest,
		Due: start.Add(time.Millisecond), Sent: start.Add(2 * time.Millisecond), Answered: start.Add(5 * time.Millisecond),
		Verdict: report.Failed, Differences: []report.Difference{{Path: "$.result.x", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`2`), Kind: "changed"}}}
	if err := consumer.Handle([]stream.Event{
		{Type: stream.Sent, TUS: 2000, Session: "s1", Seq: 4, Method: "tools/call"},
		{Type: stream.Judged, TUS: 5100, Session: "s1", Seq: 4, Method: "tools/call", Verdict: "failed", Result: &r},
	}); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for len(lines) < 2 {
		b, err := cl.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v (after %d stream lines)", err, len(lines))
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("line %q: %v", b, err)
		}
		if m["event"] == "stream" {
			lines = append(lines, m)
		}
	}
	if ev := lines[0]["stream"].(map[string]any); ev["type"] != "sent" || ev["t_us"] != 2000.0 || lines[0]["result"] != nil {
		t.Errorf("first line %v, want the sent event, with no result", lines[0])
	}
	got, _ := json.Marshal(lines[1]["result"])
	want := `{"answered_ms":5,"differences":[{"actual":2,"expected":1,"kind":"changed","path":"$.result.x"}],"dir":"c2s","due_ms":1,"kind":"request","latency_ms":3,"method":"tools/call","sent_ms":2,"seq":4,"session":"s1","verdict":"failed"}`
	if string(got) != want {
		t.Errorf("judged result\n got %s\nwant %s", got, want)
	}
	if ev := lines[1]["stream"].(map[string]any); ev["type"] != "judged" || ev["verdict"] != "failed" {
		t.Errorf("second line %v, want the judged event", lines[1])
	}
}
