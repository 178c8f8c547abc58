package compare_test

import (
	"testing"

	"github.com/replayctl/replayctl/compare"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replay"
)

// TestConformanceServerAgainstItself: the go-sdk conformance server,
// replayed with a client session that uses every feature (tools,
// resources, prompts, sampling, elicitation, progress, logging), against
// itself reports no change, its progress notifications compared too.
func TestConformanceServerAgainstItself(t *testing.T) {
	url := testserver.GoSDKHTTP(t)
	tp := testtape.RecordClient(t, testtape.HTTP(url), "2025-11-25", testtape.ScriptAll)
	rep := run(t, tp, replay.HTTP(url), replay.HTTP(url))
	if len(rep.Changed) != 0 {
		t.Errorf("changed: got %+v, want none", rep.Changed)
	}
	if rep.Summary.Compared < 10 {
		t.Errorf("compared: got %d answers, want the script's (10 or more)", rep.Summary.Compared)
	}
	notes := 0
	for _, e := range rep.Endpoints {
		if e.Method == "notifications/progress" {
			notes = e.Total
		}
	}
	if notes == 0 {
		t.Errorf("endpoints: got %+v, want the progress notifications compared too", rep.Endpoints)
	}
	off := run(t, tp, replay.HTTP(url), replay.HTTP(url), compare.Notifications(false))
	if got, want := off.Summary.Compared, rep.Summary.Compared-notes; got != want {
		t.Errorf("Notifications(false): compared %d, want %d (the answers alone)", got, want)
	}
	t.Logf("compared %d answers; noise paths %d", rep.Summary.Compared, rep.Summary.Noise)
	for _, p := range rep.Paths {
		t.Logf("noise: %s %s %s raw %d noise %d of %d", p.Method, p.Name, p.Path, p.Raw, p.Noise, p.Total)
	}
}
