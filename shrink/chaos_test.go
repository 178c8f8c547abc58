package shrink_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// chaosSpec is the chaos of the failing run: many faults, of which only
// a duplicate of a call of tool pay breaks the planted -dup server. (No
// slow-write: it is slow by design, seconds a run, and the test is kept
// short.)
const chaosSpec = "duplicate=0.1,cancel=0.05,burst=0.05,reorder=0.05"

// TestShrinkChaosFault: a server that fails only under one chaos fault (a
// tool call of pay sent twice: the double charge) shrinks, from a run
// with many faults over several sessions, to that fault alone and the
// call it hit.
func TestShrinkChaosFault(t *testing.T) {
	t.Parallel()
	argv := append(testserver.Planted(t), "-dup", "pay")
	target := replay.Against(replay.Command(argv[0], argv[1:]...))
	src := tape.Bytes("pay.jsonl", plantedTape(t, paySessions()))
	ctx, cancel := untilDeadline(t)
	defer cancel()
	if rep, err := replay.RunSource(ctx, src, target, replay.WithSpeed(replay.Fast())); err != nil || !rep.Passed() {
		t.Fatalf("without chaos the tape should pass: %v", err)
	}
	// The failing run: the first seed (a pure function of the tape and
	// the spec) whose faults crash the server.
	var seed int64
	var faults []report.Fault
	for s := int64(1); s <= 40 && faults == nil; s++ {
		rep, _ := replay.RunSource(ctx, src, target, replay.WithSpeed(replay.Fast()), replay.Chaos(chaosSpec), replay.Seed(s))
		if rep == nil {
			t.Fatal("chaos run refused")
		}
		if !rep.Passed() {
			if len(rep.Chaos.Faults) > 2 {
				seed, faults = s, rep.Chaos.Faults
			}
		}
	}
	if faults == nil {
		t.Fatalf("no seed of 40 gave a failing chaos run with %s", chaosSpec)
	}
	t.Logf("seed %d: %d faults", seed, len(faults))
	res, err := shrink.Shrink(ctx, src, shrink.Replay(target), shrink.Faults(seed, faults), shrink.Logger(zerolog.New(zerolog.NewTestWriter(t))))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = res.WriteText(&out)
	t.Logf("\n%s", out.String())
	if len(res.Faults) != 1 {
		t.Fatalf("kept %d faults, want 1", len(res.Faults))
	}
	f := res.Faults[0]
	// The call of pay the fault hit, and at most one call after it: the
	// server dies after it has answered pay, so a replay sees the crash
	// only at a message it sends after it (the failure's message).
	var calls []shrink.Unit
	for _, u := range res.Units {
		if !u.Handshake {
			calls = append(calls, u)
		}
	}
	if len(calls) == 0 || calls[0].Name != "pay" || !slices.Contains(calls[0].Seqs, f.Seq) || f.Kind != "duplicate" && f.Kind != "duplicate-id" {
		t.Fatalf("kept %+v with fault %+v, want a call of pay first and a duplicate on it", calls, f)
	}
	if len(calls) > 2 || len(calls) == 2 && !slices.Contains(calls[1].Seqs, res.Failure.Seq) {
		t.Errorf("kept %+v: want pay and at most the call that saw the crash (seq %d)", calls, res.Failure.Seq)
	}
	if res.Failure.Kind != shrink.KindCrash || !res.ProofHolds || res.Proof.Failed != res.Proof.Runs {
		t.Errorf("failure %s, proof %d of %d: want a crash, every proof run", res.Failure, res.Proof.Failed, res.Proof.Runs)
	}
	if res.Before.Faults <= 1 || res.Before.Sessions < 2 {
		t.Errorf("before: %s: the test wants several faults and sessions to shrink", res.Before)
	}
	// Without its fault the small tape passes: the fault is the cause.
	min := tape.Bytes("min.jsonl", res.Tape)
	if rep, err := replay.RunSource(ctx, min, target, replay.WithSpeed(replay.Fast())); err != nil || !rep.Passed() {
		t.Errorf("the shrunk tape without its fault should pass: %v", err)
	}
}
