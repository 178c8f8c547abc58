package engine

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/scheduler"
)

// maxAllocsPerRequest bounds what replaying one more request (a
// tools/call and its answer, fast, against the built-in mock, every
// answer validated) allocates, the mock's share included: the cost per
// request of BenchmarkPipeline, as a count (issue 24): 21.0 when
// it was written; 17.1 once the mock's index took no key and no slice
// per request and its answer no parse (one allocation left: the answer
// with the live id), so that one allocation more per request fails it.
const maxAllocsPerRequest = 18

func TestPipelineAllocsPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 3,000 requests")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	dir := t.TempDir()
	allocs := func(n int) float64 {
		path := writeTape(t, dir, n, 1000, nil)
		return testing.AllocsPerRun(1, func() {
			rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop()})
			if err != nil || rep.Validation.Passed != int64(n+1) {
				t.Fatalf("passed %d of %d: %v", rep.Validation.Passed, n+1, err)
			}
		})
	}
	small, large := allocs(1000), allocs(2000)
	per := (large - small) / 1000
	t.Logf("%.1f allocations per request (%.0f for 1,000 requests, %.0f for 2,000)", per, small, large)
	if per > maxAllocsPerRequest {
		t.Errorf("%.1f allocations per request, want at most %d", per, maxAllocsPerRequest)
	}
}
