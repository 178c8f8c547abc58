package ui

import (
	"bufio"
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
)

// A viewer given the run's verdict has the run's last events: Finish
// seals them before it sets the verdict, and snap reads the verdict
// before the frames, so the feed sends the verdict after them. Each
// trial races a reader, as a viewer woken by the clock, against Finish
// (on two processors or more: on one the race seldom shows).
func TestVerdictAfterTheLastEvents(t *testing.T) {
	const trials = 2000
	early := 0
	for range trials {
		s := New()
		s.j.add([]event.Event{{Type: event.RunEnded, Seq: -1}})
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Finish(nil)
		}()
		for n := 1; ; n++ {
			v := s.snap(0)
			if v.result == nil { // Finish has not set it yet
				if n%1024 == 0 {
					runtime.Gosched() // on one processor, let it
				}
				continue
			}
			if len(v.frames) == 0 {
				early++
			}
			break
		}
		<-done
	}
	if early > 0 {
		t.Errorf("%d of %d viewers were given the run's verdict before its last events, want none", early, trials)
	}
}

// A viewer who opens the page after Finish is sent the verdict after the
// run's frames, as one who watched the run is, not in the hello before
// them: the page draws what it has between events, and drew the verdict
// over a run it had not yet read (the hello carried it).
func TestLateViewerGetsTheVerdictAfterTheFrames(t *testing.T) {
	s := New()
	s.j.add([]event.Event{{Type: event.Dialled, Seq: -1, Session: "s1"}})
	s.j.seal()
	s.j.add([]event.Event{{Type: event.RunEnded, Seq: -1}})
	s.Finish(nil)
	page := serve(t, s)
	feed := strings.Replace(page, "/?token=", "/events?token=", 1)
	// A bound only for a feed that never sends the verdict (as before
	// the fix): a correct one sends it in the write of the frames.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, feed, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var got []string // the events in order: hello, frame ids, result
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "data: ") && len(got) == 0:
			if !strings.Contains(l, `"result":null`) {
				t.Errorf("hello %s: want no verdict in it (it comes after the frames)", l)
			}
			got = append(got, "hello")
		case strings.HasPrefix(l, "id: "):
			got = append(got, "frame")
		case l == "event: result":
			got = append(got, "result")
		}
		if len(got) > 0 && got[len(got)-1] == "result" {
			break
		}
	}
	if want := "hello frame frame result"; strings.Join(got, " ") != want {
		t.Errorf("a late viewer was sent %q, want %q", strings.Join(got, " "), want)
	}
}
