package shrink_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// TestShrinkFlaky: the a-b-c crash that comes one run in three (seeded
// draws) still shrinks to the handshake and the three calls, with a
// baseline and k-of-n runs per candidate. The tries run one at a time,
// so the draws, and the test, repeat exactly. The parameters are left
// as recorded: every simplification that does not hold would cost 12
// runs, and TestShrinkPlantedABC covers them.
func TestShrinkFlaky(t *testing.T) {
	t.Parallel()
	argv := append(testserver.Planted(t), "-abc", "boom", "-flaky", filepath.Join(t.TempDir(), "draws"), "-seed", "5")
	target := replay.Against(replay.Command(argv[0], argv[1:]...))
	src := tape.Bytes("flaky.jsonl", plantedTape(t, abcSessions(3, 8, 1, 11, [3]int{2, 5, 8})))
	ctx, cancel := untilDeadline(t)
	defer cancel()
	res, err := shrink.Shrink(ctx, src, shrink.Replay(target), shrink.Parallel(1), shrink.Baseline(9), shrink.Runs(12), shrink.Need(1), shrink.NoSimplify())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	_ = res.WriteText(&out)
	t.Logf("\n%s", out.String())
	if res.Baseline.Failed == 0 || res.Baseline.Failed == res.Baseline.Runs || res.Deterministic {
		t.Fatalf("baseline %d of %d: the test wants a flaky failure", res.Baseline.Failed, res.Baseline.Runs)
	}
	var calls []string
	for _, u := range res.Units {
		if !u.Handshake {
			calls = append(calls, u.Method+" "+u.Name)
		}
	}
	if want := []string{"tools/call a", "tools/call b", "tools/call c"}; !slices.Equal(calls, want) || res.After.Sessions != 1 {
		t.Errorf("kept calls %q in %d sessions, want %q in 1", calls, res.After.Sessions, want)
	}
	if res.RunsPerTry != 12 || res.Need != 1 {
		t.Errorf("%d of %d runs per try, want 1 of 12", res.Need, res.RunsPerTry)
	}
	if !res.ProofHolds || res.Proof.Failed == 0 {
		t.Errorf("proof %d of %d: want at least one", res.Proof.Failed, res.Proof.Runs)
	}
}
