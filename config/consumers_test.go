package config_test

import (
	"slices"
	"testing"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
)

// TestFaultKindsMatchChaos keeps config's copy of the fault names equal
// to the chaos package's. (That the example files compile through the
// translation into the stage packages' types is tested in package
// replay, which does the translation.)
func TestFaultKindsMatchChaos(t *testing.T) {
	var want []string
	for _, k := range chaos.Kinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(config.FaultKinds, want) {
		t.Errorf("got fault kinds %v, want chaos.Kinds() %v", config.FaultKinds, want)
	}
}
