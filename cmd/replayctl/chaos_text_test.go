package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/transport"
)

// TestChaosCountsAgree: the faults injected, the faults each session's
// verdict counts and the faults listed are the same, those acting on the
// answers (timeout) too; the text has the counts and one line per session,
// the faults behind -v.
func TestChaosCountsAgree(t *testing.T) {
	args := []string{"run", "examples/quickstart.jsonl", "--speed", "fast", "--sessions", "3", "--timeout", "1s",
		"--chaos", "malformed=0.3,timeout=0.2,drop=0.2", "--seed", "3"}
	res := replayctl(t, append(args, "-o", "json")...)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	r := decodeChaos(t, res.stdout)
	listed := map[string]int{}
	for _, f := range r.Chaos.Faults {
		listed[f.Session]++
	}
	total := 0
	for _, sv := range r.Chaos.Survival {
		if sv.Faults != listed[sv.Session] {
			t.Errorf("session %s: verdict counts %d faults, the report lists %d", sv.Session, sv.Faults, listed[sv.Session])
		}
		total += sv.Faults
	}
	if len(r.Chaos.Survival) != 3 || total != r.Chaos.Injected || total != len(r.Chaos.Faults) {
		t.Fatalf("%d verdicts counting %d faults, %d injected, %d listed: want 3 verdicts and the same counts",
			len(r.Chaos.Survival), total, r.Chaos.Injected, len(r.Chaos.Faults))
	}

	text := replayctl(t, args...)
	want := []string{fmt.Sprintf("chaos       %d faults injected (seed 3): 3 sessions survived, 0 did not\n", total), "run -v"}
	for _, sv := range r.Chaos.Survival {
		want = append(want, fmt.Sprintf("%s  survived         %d faults (", sv.Session, sv.Faults))
	}
	for _, w := range want {
		if !strings.Contains(text.stdout, w) {
			t.Errorf("text lacks %q:\n%s", w, text.stdout)
		}
	}
	if strings.Contains(text.stdout, "    seq ") {
		t.Errorf("text lists faults without -v:\n%s", text.stdout)
	}
	verbose := replayctl(t, append(args, "-v")...)
	if got := strings.Count(verbose.stdout, "    seq "); got != total {
		t.Errorf("-v lists %d faults, want %d:\n%s", got, total, verbose.stdout)
	}
	if strings.Contains(verbose.stdout, "#p=") || strings.Contains(verbose.stdout, "run -v") {
		t.Errorf("-v shows the param or the hint:\n%s", verbose.stdout)
	}
}

// TestChaosTextBroken: a server that dies of a malformed message: its
// session's line says it did not survive and which fault broke it.
func TestChaosTextBroken(t *testing.T) {
	argv := testserver.Crashy(t)
	path := recordTape(t, transport.Stdio{Command: argv}, "stdio", many("add", `{"a":1}`, 30))
	res := replayctl(t, append([]string{"run", path, "--speed", "fast", "--chaos", "malformed=0.2", "--seed", "7", "--"}, argv...)...)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, w := range []string{"0 sessions survived, 1 did not", "did NOT survive", ": broken by seq ", " malformed ("} {
		if !strings.Contains(res.stdout, w) {
			t.Errorf("text lacks %q:\n%s", w, res.stdout)
		}
	}
}
