package replay_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// OnEvent sees every event, in order: each session dialled before its
// first send and ended after its last answer, one judged event per
// result with the result's verdict, and run_ended last.
func TestOnEvent(t *testing.T) {
	var events []event.Event // OnEvent's goroutine only, until Run returns
	var results []report.Result
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(3),
		replay.OnEvent(func(e event.Event) { events = append(events, e) }),
		replay.OnResult(func(r report.Result) { results = append(results, r) }))
	if err != nil || !rep.Passed() {
		t.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
	}
	if len(events) == 0 || events[len(events)-1].Type != event.RunEnded {
		t.Fatalf("got %d events, want them to end with run_ended", len(events))
	}
	judged := map[string]string{}
	state := map[string]string{} // per session: "", "dialled", "ended"
	for i, e := range events {
		switch e.Type {
		case event.Dialled:
			if state[e.Session] != "" {
				t.Errorf("event %d: %s dialled twice", i, e.Session)
			}
			state[e.Session] = "dialled"
		case event.Sent, event.Answered, event.Due:
			if state[e.Session] != "dialled" {
				t.Errorf("event %d: %s of %s seq %d while the session is %q, want dialled", i, e.Type, e.Session, e.Seq, state[e.Session])
			}
		case event.SessionEnded:
			state[e.Session] = "ended"
		case event.Judged:
			judged[fmt.Sprint(e.Session, " ", e.Seq)] = e.Verdict
		}
	}
	if len(state) != 3 {
		t.Errorf("sessions seen: %v, want 3", state)
	}
	for s, st := range state {
		if st != "ended" {
			t.Errorf("session %s: %q, want ended", s, st)
		}
	}
	if len(judged) != len(results) {
		t.Errorf("%d judged events, %d results: want one each", len(judged), len(results))
	}
	for _, r := range results {
		if v := judged[fmt.Sprint(r.Session, " ", r.Seq)]; v != string(r.Verdict) {
			t.Errorf("%s seq %d: judged %q, result %q", r.Session, r.Seq, v, r.Verdict)
		}
	}
}

// A live viewer stuck in its Handle does not hold the replay up: it loses
// its oldest events, and the report says how many.
func TestLiveViewerNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	var seen []event.Event
	viewer := event.Consumer{Name: "viewer", Live: true, Buffer: 2, Handle: func(batch []event.Event) error {
		<-release // stuck until the session has ended
		seen = append(seen, batch...)
		return nil
	}}
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Events(viewer),
		replay.OnSessionEnd(func(replay.SessionEnd) { once.Do(func() { close(release) }) }))
	if err != nil || !rep.Passed() {
		t.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
	}
	var warned bool
	for _, w := range rep.Summary.Warnings {
		warned = warned || strings.Contains(w, "viewer (a live view) lost")
	}
	if !warned {
		t.Errorf("warnings %q, want one saying the viewer lost events", rep.Summary.Warnings)
	}
	if len(seen) == 0 || seen[len(seen)-1].Type != event.RunEnded {
		t.Errorf("the viewer saw %d events, want the newest, run_ended last", len(seen))
	}
}

// Chaos shows in the stream: a fault event where a disconnect is
// injected, then the session's reconnect.
func TestEventsOfChaos(t *testing.T) {
	var events []event.Event
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(4),
		replay.Chaos("disconnect=0.3"), replay.Seed(7),
		replay.OnEvent(func(e event.Event) { events = append(events, e) }))
	if rep == nil {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Chaos.Faults) == 0 {
		t.Fatalf("no faults injected with seed 7: choose another seed")
	}
	pending := map[string]int{} // disconnect faults not yet followed by a reconnect, per session
	faults := 0
	for _, e := range events {
		switch e.Type {
		case event.Fault:
			if e.Reason == "disconnect" {
				faults++
				pending[e.Session]++
			}
		case event.Reconnect:
			if pending[e.Session] == 0 {
				t.Errorf("%s: a reconnect before any disconnect fault", e.Session)
			}
			pending[e.Session]--
		}
	}
	if faults != len(rep.Chaos.Faults) {
		t.Errorf("%d disconnect fault events, the report lists %d faults", faults, len(rep.Chaos.Faults))
	}
	for s, n := range pending {
		if n != 0 {
			t.Errorf("%s: %d disconnects without a reconnect event", s, n)
		}
	}
}

// A request the target asks to have again (HTTP 503) shows as a retry
// event, attempt 1, between its sent and its answered.
func TestEventsOfRetry(t *testing.T) {
	srv, err := mock.NewServer(tape.File(quickstart))
	if err != nil {
		t.Fatal(err)
	}
	inner := transport.NewStreamableHandler(srv)
	var refused atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/list"`)) && refused.CompareAndSwap(false, true) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	})
	var events []event.Event
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Against(replay.Handler(h)),
		replay.RetryDelay(time.Millisecond), replay.Ignore("result.serverInfo"),
		replay.OnEvent(func(e event.Event) { events = append(events, e) }))
	if rep == nil {
		t.Fatalf("Run: %v", err)
	}
	if !refused.Load() {
		t.Fatal("the handler refused nothing")
	}
	var trail []string
	for _, e := range events {
		if e.Method == "tools/list" && e.Type != event.Due {
			trail = append(trail, fmt.Sprintf("%s:%d:%s", e.Type, e.Attempt, e.Reason))
		}
	}
	want := "[sent:0: retry:1:http_status answered:0: judged:0:]"
	if got := fmt.Sprint(trail); got != want {
		t.Errorf("tools/list events %s, want %s", got, want)
	}
}
