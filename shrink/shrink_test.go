package shrink_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// TestShrinkPlantedABC: a server that crashes when one session calls
// tools a, then b, then c with mode "boom", among 500 other calls over 20
// sessions, shrinks to that session's handshake and those three calls,
// 1-minimal, and the result re-fails 10 of 10.
func TestShrinkPlantedABC(t *testing.T) {
	t.Parallel()
	sessions, per := 20, 25
	if testing.Short() {
		sessions, per = 6, 25
	}
	argv := append(testserver.Planted(t), "-abc", "boom")
	src := tape.Bytes("planted.jsonl", plantedTape(t, abcSessions(sessions, per, 6%sessions, 7, fixtureABC)))
	ctx, cancel := untilDeadline(t)
	defer cancel()
	target := replay.Against(replay.Command(argv[0], argv[1:]...))
	var steps []shrink.Step
	res, err := shrink.Shrink(ctx, src, shrink.Replay(target), shrink.Logger(zerolog.New(zerolog.NewTestWriter(t))),
		shrink.OnStep(func(s shrink.Step) { steps = append(steps, s) }))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = res.WriteText(&out)
	t.Logf("\n%s", out.String())
	if res.Failure.Kind != shrink.KindCrash {
		t.Fatalf("failure %s: want a crash", res.Failure)
	}
	// Each step smaller than the one before, the first the sessions.
	if len(steps) < 2 || steps[0].Phase != "sessions" || steps[0].Size.Sessions != 1 {
		t.Errorf("steps %+v: want the sessions phase first, down to one session", steps)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Size.Bytes >= steps[i-1].Size.Bytes || steps[i].Runs <= steps[i-1].Runs {
			t.Errorf("step %d %+v after %+v: want fewer bytes, more runs", i, steps[i], steps[i-1])
		}
	}
	var calls []string
	handshakes := 0
	for _, u := range res.Units {
		if u.Handshake {
			handshakes++
			continue
		}
		calls = append(calls, u.Method+" "+u.Name)
	}
	if want := []string{"tools/call a", "tools/call b", "tools/call c"}; !slices.Equal(calls, want) {
		t.Errorf("kept calls %q, want %q", calls, want)
	}
	if res.After.Sessions != 1 || handshakes != 2 {
		t.Errorf("kept %d sessions and %d handshake units, want 1 and 2 (initialize, notifications/initialized)", res.After.Sessions, handshakes)
	}
	if res.Proof.Runs != 10 || res.Proof.Failed != 10 || !res.ProofHolds {
		t.Errorf("proof %d of %d (holds %v), want 10 of 10", res.Proof.Failed, res.Proof.Runs, res.ProofHolds)
	}
	// 1-minimal, checked apart from the shrinker: the written tape
	// crashes the server at the same message, and without any one of
	// its calls it does not.
	path := filepath.Join(t.TempDir(), "min.jsonl")
	if err := res.WriteTape(path); err != nil {
		t.Fatal(err)
	}
	min, err := shrink.Load(tape.File(path))
	if err != nil {
		t.Fatal(err)
	}
	if !crashesAt(t, ctx, tape.File(path), target, res.Failure) {
		t.Fatalf("the written tape does not fail with %s", res.Failure)
	}
	for i, u := range min.Units {
		if u.Handshake {
			continue
		}
		c := shrink.Candidate{}
		for j := range min.Units {
			if j != i {
				c.Units = append(c.Units, j)
			}
		}
		b, err := min.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		if crashesAt(t, ctx, tape.Bytes("less.jsonl", b), target, res.Failure) {
			t.Errorf("without %s %s (seq %v) the tape still fails: not 1-minimal", u.Method, u.Name, u.Seqs)
		}
	}
	_ = os.Remove(path)
}

// crashesAt replays src once and reports whether it fails as want.
func crashesAt(t *testing.T, ctx context.Context, src tape.Source, target replay.Option, want shrink.Failure) bool {
	t.Helper()
	var got []shrink.Failure
	rep, err := replay.RunSource(ctx, src, target, replay.WithSpeed(replay.Fast()), replay.OnResult(func(r report.Result) {
		if f, ok := shrink.FailureOf(r); ok {
			got = append(got, f)
		}
	}))
	if rep == nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(got, want.Same)
}

// TestShrinkBudget: at MaxRuns the search stops, and what it found so
// far is proved and returned, marked Exhausted; bad options are refused.
func TestShrinkBudget(t *testing.T) {
	t.Parallel()
	argv := append(testserver.Planted(t), "-abc", "boom")
	target := replay.Against(replay.Command(argv[0], argv[1:]...))
	src := tape.Bytes("planted.jsonl", plantedTape(t, abcSessions(4, 25, 1, 7, fixtureABC)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := shrink.Shrink(ctx, src, shrink.Replay(target), shrink.MaxRuns(12), shrink.Proof(3))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted || res.Runs != 12+3 || res.Proof != (shrink.Rate{Runs: 3, Failed: 3}) {
		t.Errorf("exhausted %v, %d runs, proof %+v: want exhausted after 12 runs, then 3 proof runs all failing", res.Exhausted, res.Runs, res.Proof)
	}
	if res.After.Messages >= res.Before.Messages || res.After.Messages <= 9 {
		t.Errorf("after %s: want smaller than before (%s), not yet minimal", res.After, res.Before)
	}
	for _, opts := range [][]shrink.Option{
		{shrink.Parallel(0)}, {shrink.Baseline(0)}, {shrink.Runs(-1)}, {shrink.Runs(2), shrink.Need(3)}, {shrink.Proof(-1)}, {shrink.MaxRuns(0)},
	} {
		if res, err := shrink.Shrink(ctx, src, append(opts, shrink.Replay(target))...); err == nil || res != nil {
			t.Errorf("%d options: got no error", len(opts))
		}
	}
}

// TestShrinkTimeout: a call the server never answers shrinks to itself:
// the same timeout at the same message, not another failure.
func TestShrinkTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { // the timeouts on the bubble's clock: see hanging
		calls := []call{{"a", "x"}, {"d", "x"}, {"b", "x"}, {"d", "slow"}, {"e", "x"}, {"d", "x"}, {"a", "y"}, {"d", "slow"}}
		src := tape.Bytes("hang.jsonl", plantedTape(t, [][]call{calls, calls[:3]}))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := shrink.Shrink(ctx, src, shrink.Replay(hanging("d"), replay.Timeout(400*time.Millisecond)), shrink.Baseline(2), shrink.Proof(3))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure.Kind != shrink.KindTimeout || res.Failure.Name != "d" {
			t.Fatalf("failure %s, want a timeout of d", res.Failure)
		}
		var kept []shrink.Unit
		for _, u := range res.Units {
			if !u.Handshake {
				kept = append(kept, u)
			}
		}
		// The first call of d with mode slow; its "slow" stays, the rest of
		// its arguments go.
		if len(kept) != 1 || !slices.Contains(kept[0].Seqs, res.Failure.Seq) || res.Proof.Failed != 3 {
			t.Fatalf("kept %+v, proof %+v: want the call that timed out alone, 3 of 3", kept, res.Proof)
		}
		if !bytes.Contains(res.Tape, []byte(`"arguments":{"mode":"slow"}`)) || bytes.Contains(res.Tape, []byte(`"note"`)) {
			t.Errorf("tape:\n%s\nwant the call's arguments simplified to mode slow", res.Tape)
		}
	})
}

// TestShrinkAt: of two calls that time out, At picks the second; a
// message with no failure is refused naming the failures seen.
func TestShrinkAt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { // the timeouts on the bubble's clock: see hanging
		calls := []call{{"a", "x"}, {"d", "slow"}, {"b", "x"}, {"d", "slow"}, {"e", "x"}}
		b := plantedTape(t, [][]call{calls})
		tp, err := shrink.Load(tape.Bytes("at.jsonl", b))
		if err != nil {
			t.Fatal(err)
		}
		var second int64 = -1 // the seq of the second call of d
		n := 0
		for _, u := range tp.Units {
			if u.Name == "d" {
				if n++; n == 2 {
					second = u.Seqs[0]
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		opts := []shrink.Option{shrink.Replay(hanging("d"), replay.Timeout(200*time.Millisecond)), shrink.Baseline(1), shrink.Proof(2)}
		res, err := shrink.Shrink(ctx, tape.Bytes("at.jsonl", b), append(opts, shrink.At("s1", second))...)
		if err != nil {
			t.Fatal(err)
		}
		var kept []int64 // the first seq of each unit kept
		for _, u := range res.Units {
			if !u.Handshake {
				kept = append(kept, u.Seqs[0])
			}
		}
		if res.Failure.Kind != shrink.KindTimeout || res.Failure.Seq != second || len(kept) != 1 || kept[0] != second {
			t.Errorf("failure %s, kept seqs %v: want the timeout at seq %d alone", res.Failure, kept, second)
		}
		_, err = shrink.Shrink(ctx, tape.Bytes("at.jsonl", b), append(opts, shrink.At("s1", 1))...)
		if !errors.Is(err, shrink.ErrNoFailure) || !strings.Contains(err.Error(), "timeout at s1 seq") {
			t.Errorf("At a message that does not fail: %v, want ErrNoFailure naming the timeout seen", err)
		}
	})
}
