package replay

import (
	"slices"

	"github.com/replayctl/replayctl/report"
)

// fixedFaults is what ChaosFaults set.
type fixedFaults struct {
	seed   int64
	faults []report.Fault
}

// ChaosFaults replays exactly faults (as a JSON report's chaos.faults
// lists them: placed by session and seq, each with its kind and detail)
// and no other, reporting seed as the chaos seed: ChaosFrom without a
// report file, for callers that build the list themselves (package
// shrink drops faults from it). An empty list injects nothing. It cannot
// be given with Chaos or ChaosFrom.
func ChaosFaults(seed int64, faults []report.Fault) Option {
	return func(s *settings) {
		s.chaosFaults = &fixedFaults{seed: seed, faults: slices.Clone(faults)}
		s.given("ChaosFaults")
	}
}
