package debug

import (
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// The debugger's journal reads the event stream, losslessly, and catchUp
// waits until it holds as many verdicts on gated messages (client
// messages of the tape) as the controller has judged.
func TestJournalReadsTheStream(t *testing.T) {
	j := newJournal()
	c := j.consumer()
	if c.Live {
		t.Fatal("the debugger's consumer is live: want lossless (it must show every verdict)")
	}
	s := event.New(time.Now(), []event.Consumer{c})
	results := []report.Result{
		{Seq: 3, Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Passed, Answer: []byte(`{}`)},
		{Seq: 4, Dir: report.DirS2C, Kind: report.KindNotification, Verdict: report.Passed}, // not gated
		{Seq: -1, Dir: report.DirC2S, Kind: report.KindRequest, Verdict: report.Passed},     // injected: not gated
		{Seq: 6, Dir: report.DirC2S, Kind: report.KindResponse, Verdict: report.Sent},       // an answer to the server
		{Seq: 7, Dir: report.DirC2S, Kind: report.KindNotification, Verdict: report.Sent},
	}
	for i := range results {
		s.Emit(time.Now(), event.Event{Type: event.Sent, Seq: results[i].Seq})
		s.Emit(time.Now(), event.Event{Type: event.Judged, Seq: results[i].Seq, Result: &results[i]})
	}
	if err := j.catchUp(t.Context(), 2, time.Minute); err != nil { // seq 3 and 7; within a flush
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := j.take()
	if len(got) != len(results) || string(got[0].Answer) != `{}` {
		t.Errorf("the journal holds %d results (first answer %q), want all %d with their bytes", len(got), got[0].Answer, len(results))
	}
	if j.paced != 2 {
		t.Errorf("gated verdicts %d, want 2 (seq 3 and 7)", j.paced)
	}
}
