package replay_test

import (
	"context"
	"errors"
	"testing"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// TestChaosFaults: the faults given are injected, exactly those; with a
// chaos spec or ChaosFrom too, or with a fault of no kind, the replay is
// refused naming ChaosFaults.
func TestChaosFaults(t *testing.T) {
	fault := report.Fault{Seq: 3, Session: "s1", Kind: "error-response", Detail: "-32603 internal error"}
	rep, err := replay.Run(context.Background(), quickstart, replay.WithSpeed(replay.Fast()), replay.ChaosFaults(42, []report.Fault{fault}))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Chaos.Faults) != 1 || rep.Chaos.Faults[0].Seq != 3 || rep.Chaos.Faults[0].Kind != "error-response" || rep.Chaos.Seed == nil || *rep.Chaos.Seed != 42 {
		t.Errorf("chaos %+v, want the one fault at seq 3 and seed 42", rep.Chaos)
	}
	if rep, err := replay.Run(context.Background(), quickstart, replay.WithSpeed(replay.Fast()), replay.ChaosFaults(42, nil)); err != nil || rep.Chaos.Injected != 0 {
		t.Errorf("no faults: %v, %d injected; want none", err, rep.Chaos.Injected)
	}
	for name, opts := range map[string][]replay.Option{
		"with a spec":      {replay.ChaosFaults(1, []report.Fault{fault}), replay.Chaos("drop=0.1")},
		"with ChaosFrom":   {replay.ChaosFaults(1, []report.Fault{fault}), replay.ChaosFrom("r.json")},
		"an unknown kind":  {replay.ChaosFaults(1, []report.Fault{{Seq: 3, Session: "s1", Kind: "gremlins"}})},
		"twice at one seq": {replay.ChaosFaults(1, []report.Fault{fault, fault})},
	} {
		_, err := replay.Run(context.Background(), quickstart, opts...)
		var oe *replay.OptionError
		if !errors.As(err, &oe) || oe.Option != "ChaosFaults" {
			t.Errorf("%s: %v, want an *OptionError naming ChaosFaults", name, err)
		}
	}
}
