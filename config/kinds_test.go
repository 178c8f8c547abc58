package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/chaos"
)

// TestChaosKindsKnown: every fault kind of package chaos, the one list, is
// one the config file takes, as a fault and as a target's fault, in either
// spelling ("-" or "_").
func TestChaosKindsKnown(t *testing.T) {
	for _, k := range chaos.Kinds() {
		for _, name := range []string{string(k), strings.ReplaceAll(string(k), "-", "_")} {
			doc := fmt.Sprintf("chaos:\n  faults: {%q: 0.1}\n  targets:\n    - {method: tools/call, nth: 1, fault: %q}\n", name, name)
			if _, err := Parse("kinds.yaml", []byte(doc)); err != nil {
				t.Errorf("fault %s: %v", name, err)
			}
		}
	}
}
