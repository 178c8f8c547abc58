package replay_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/replay"
)

// A live viewer stuck for the whole replay never slows it: the replay
// goes to its end while the viewer's Handle waits, the report has every
// result (the collector reads the same stream, losslessly), and the
// viewer's loss is counted: what it was handed plus what it lost is every
// event of the stream, and the report's warnings say how many it lost.
func TestStuckLiveViewerLosesCountedAndReportHasAll(t *testing.T) {
	release := make(chan struct{})
	var all, judged, seen atomic.Int64
	viewer := event.Consumer{Name: "stuck viewer", Live: true, Buffer: 16, Handle: func(batch []event.Event) error {
		<-release // stuck until the run has ended
		seen.Add(int64(len(batch)))
		return nil
	}}
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(50),
		replay.Events(viewer),
		replay.OnEvent(func(e event.Event) {
			all.Add(1)
			switch e.Type {
			case event.Judged:
				judged.Add(1)
			case event.RunEnded: // the replay is over: let the viewer go
				close(release)
			}
		}))
	if err != nil || rep == nil || !rep.Passed() {
		t.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
	}
	results := int64(len(rep.Timeline)) + rep.TimelineOmitted
	if results == 0 || results != judged.Load() {
		t.Errorf("the report has %d results, the stream %d judged events: want them equal", results, judged.Load())
	}
	var lost int64 = -1
	for _, w := range rep.Summary.Warnings {
		if strings.HasPrefix(w, "events: stuck viewer (a live view) lost ") {
			fmt.Sscanf(strings.TrimPrefix(w, "events: stuck viewer (a live view) lost "), "%d", &lost)
		}
	}
	if lost <= 0 {
		t.Fatalf("no warning of the viewer's loss (want one with a count > 0); warnings: %q", rep.Summary.Warnings)
	}
	if seen.Load()+lost != all.Load() {
		t.Errorf("the viewer was handed %d events and lost %d: %d, want every event of the stream, %d",
			seen.Load(), lost, seen.Load()+lost, all.Load())
	}
	if seen.Load() > 2*16 {
		t.Errorf("the stuck viewer was handed %d events, want at most the batch it was stuck on and its buffer (2×16)", seen.Load())
	}
}
