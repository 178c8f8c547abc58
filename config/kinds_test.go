package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/chaos"
)

// documentedFaults is the fault names the example config documents for
// chaos.faults (the comment above it in Example, "Sent to the target:
// malformed (not JSON) | … On the answer: timeout | …"): the list users
// write from, read from its text, where the check reads chaos.Kinds().
func documentedFaults(t *testing.T) []string {
	t.Helper()
	ex := Example()
	start := strings.Index(ex, "# Sent to the target:")
	end := strings.Index(ex, "\n  faults:")
	if start < 0 || end < start {
		t.Fatal(`the example config has no "# Sent to the target: …" list before chaos.faults`)
	}
	text := ex[start+len("# Sent to the target:") : end]
	text = strings.NewReplacer("#", " ", "\n", " ", "On the answer:", "|", ".", " ").Replace(text)
	text = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(text, " ")
	var names []string
	for _, f := range strings.Split(text, "|") {
		names = append(names, strings.TrimSpace(f))
	}
	return names
}

// TestChaosKindsKnown: every fault kind the example config documents is
// one the config file takes, as a fault and as a target's fault, in
// either spelling ("-" or "_"); and the documented kinds are package
// chaos's, all of them.
func TestChaosKindsKnown(t *testing.T) {
	documented := documentedFaults(t)
	for _, k := range documented {
		for _, name := range []string{k, strings.ReplaceAll(k, "-", "_")} {
			doc := fmt.Sprintf("chaos:\n  faults: {%q: 0.1}\n  targets:\n    - {method: tools/call, nth: 1, fault: %q}\n", name, name)
			if _, err := Parse("kinds.yaml", []byte(doc)); err != nil {
				t.Errorf("fault %s: %v", name, err)
			}
		}
	}
	var kinds []string
	for _, k := range chaos.Kinds() {
		kinds = append(kinds, string(k))
	}
	documented, kinds = slices.Sorted(slices.Values(documented)), slices.Sorted(slices.Values(kinds))
	if !slices.Equal(documented, kinds) {
		t.Errorf("the example config documents the faults\n%q\nwant chaos.Kinds(), the same names:\n%q", documented, kinds)
	}
}
