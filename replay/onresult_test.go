package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// OnResult sees every result the report counts (issue 23: its doc said
// "each judged message"): the checked ones, a client notification sent
// with nothing to check (verdict sent) and a skipped message (verdict
// skipped) — the report's timeline, entry for entry, and the event
// stream's judged events.
func TestOnResultSeesWhatTheReportCounts(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "replayctl.yaml")
	rules := "validation:\n  rules:\n    - scope: {method: tools/call}\n      on_failure: skip\n"
	if err := os.WriteFile(cfg, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	var results []report.Result
	judged := 0
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.ConfigFile(cfg),
		replay.BeforeSend(func(m *replay.Message) bool { // its recorded answer no longer fits: skipped by the rule
			if m.Seq == 5 {
				m.Raw = []byte(strings.Replace(string(m.Raw), "hello, replay", "edited", 1))
			}
			return true
		}),
		replay.OnResult(func(r report.Result) { results = append(results, r) }),
		replay.OnEvent(func(e event.Event) {
			if e.Type == event.Judged {
				judged++
			}
		}))
	if rep == nil {
		t.Fatal(err)
	}
	key := func(seq int64, session string, v report.Verdict) string {
		return fmt.Sprintf("%s/%d/%s", session, seq, v)
	}
	var got, want []string
	verdicts := map[int64]report.Verdict{}
	for _, r := range results {
		got = append(got, key(r.Seq, r.Session, r.Verdict))
		verdicts[r.Seq] = r.Verdict
	}
	for _, e := range rep.Timeline {
		want = append(want, key(e.Seq, e.Session, e.Verdict))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || rep.TimelineOmitted != 0 {
		t.Errorf("OnResult saw\n %v\nthe report's timeline holds\n %v", got, want)
	}
	if judged != len(results) {
		t.Errorf("the stream has %d judged events, OnResult saw %d results: want one each", judged, len(results))
	}
	if verdicts[2] != report.Sent || verdicts[5] != report.Skipped || verdicts[3] != report.Passed {
		t.Errorf("verdicts of seq 2, 5, 3: %s %s %s; want sent (a client notification), skipped (the rule), passed",
			verdicts[2], verdicts[5], verdicts[3])
	}
}

// TestOnStepOnlyWhenStepped: OnStep sees each result, with the bytes
// sent, in a stepped replay, and is never called at another speed; the
// results OnSessionEnd counts (without their bytes) are the same in both.
func TestOnStepOnlyWhenStepped(t *testing.T) {
	var stepped, fast []report.Result
	var ends []replay.SessionEnd
	steps := make(chan struct{})
	go func() { // releases every message; the replay stops reading when done
		for {
			select {
			case steps <- struct{}{}:
			case <-t.Context().Done():
				return
			}
		}
	}()
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Stepped()), replay.Steps(steps),
		replay.OnStep(func(r report.Result) { stepped = append(stepped, r) }),
		replay.OnSessionEnd(func(e replay.SessionEnd) { ends = append(ends, e) }))
	if err != nil {
		t.Fatal(err)
	}
	if len(stepped) == 0 || len(stepped) != len(rep.Timeline) {
		t.Fatalf("stepped: OnStep saw %d results, want the timeline's %d", len(stepped), len(rep.Timeline))
	}
	for _, r := range stepped {
		if r.Dir == report.DirC2S && len(r.Out) == 0 {
			t.Errorf("stepped: seq %d: no bytes sent, want them", r.Seq)
		}
	}
	if len(ends) != 1 || ends[0].Results != len(stepped) {
		t.Errorf("stepped: session ends %+v, want one of %d results", ends, len(stepped))
	}
	ends = nil
	if _, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()),
		replay.OnStep(func(r report.Result) { fast = append(fast, r) }),
		replay.OnSessionEnd(func(e replay.SessionEnd) { ends = append(ends, e) })); err != nil {
		t.Fatal(err)
	}
	if len(fast) != 0 {
		t.Errorf("fast: OnStep saw %d results, want none", len(fast))
	}
	if len(ends) != 1 || ends[0].Results != len(stepped) {
		t.Errorf("fast: session ends %+v, want one of %d results", ends, len(stepped))
	}
}
