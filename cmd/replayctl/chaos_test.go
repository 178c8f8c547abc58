package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/transport"
)

// chaosReport is the part of the report the chaos tests read.
type chaosReport struct {
	Chaos struct {
		Seed     *int64 `json:"seed"`
		Injected int    `json:"injected"`
		Faults   []struct {
			Seq     int64  `json:"seq"`
			Session string `json:"session"`
			Kind    string `json:"kind"`
			Detail  string `json:"detail"`
		} `json:"faults"`
		Survival []struct {
			Session  string `json:"session"`
			Survived bool   `json:"survived"`
			Faults   int    `json:"faults"`
			BrokenBy *struct {
				Seq  int64  `json:"seq"`
				Kind string `json:"kind"`
			} `json:"broken_by"`
			Notes []string `json:"notes"`
		} `json:"survival"`
	} `json:"chaos"`
}

func decodeChaos(t *testing.T, s string) chaosReport {
	t.Helper()
	var r chaosReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, s)
	}
	return r
}

// many is a conversation of n tools/call requests after the handshake.
func many(tool, args string, n int) [][]byte {
	msgs := script(tool, args, args)[:2]
	for i := 1; i <= n; i++ {
		msgs = append(msgs, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, tool, args))
	}
	return msgs
}

// TestChaosFindsTheFaultThatKillsTheServer: a server of ours that dies on
// input that is not JSON is reported as not surviving, at the first
// malformed message; exit 1.
func TestChaosFindsTheFaultThatKillsTheServer(t *testing.T) {
	argv := testserver.Crashy(t)
	path := recordTape(t, transport.Stdio{Command: argv}, "stdio", many("add", `{"a":1}`, 30))
	res := replayctl(t, append([]string{"run", path, "--speed", "fast", "--chaos", "malformed=0.2", "--seed", "7", "-o", "json", "--"}, argv...)...)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	r := decodeChaos(t, res.stdout)
	if len(r.Chaos.Faults) == 0 || len(r.Chaos.Survival) != 1 {
		t.Fatalf("faults %d, survival %+v: want faults and one verdict", len(r.Chaos.Faults), r.Chaos.Survival)
	}
	first := r.Chaos.Faults[0]
	sv := r.Chaos.Survival[0]
	if sv.Survived || sv.BrokenBy == nil || sv.BrokenBy.Kind != "malformed" || sv.BrokenBy.Seq != first.Seq {
		t.Errorf("survival %+v, want not survived, broken by the first fault (seq %d malformed)", sv, first.Seq)
	}
	// The same seed again: the same faults.
	again := decodeChaos(t, replayctl(t, append([]string{"run", path, "--speed", "fast", "--chaos", "malformed=0.2", "--seed", "7", "-o", "json", "--"}, argv...)...).stdout)
	if fmt.Sprint(again.Chaos.Faults) != fmt.Sprint(r.Chaos.Faults) {
		t.Errorf("seed 7 twice gave different faults:\n%v\n%v", r.Chaos.Faults, again.Chaos.Faults)
	}
}

// TestChaosAgainstRealServers replays with faults against both real
// servers over stdio and HTTP: the report lists every fault and a verdict
// per session, and replayctl ends with 0 (survived) or 1 (did not), never
// with a bad-input or dead-target status; --chaos-from repeats the faults.
func TestChaosAgainstRealServers(t *testing.T) {
	for _, tg := range realTargets() {
		t.Run(tg.name, func(t *testing.T) {
			d, targetArgs := tg.dialer(t)
			path := recordTape(t, d, tg.transport, many(tg.tool, tg.args[0], 40))
			args := append([]string{"run", path, "--speed", "fast", "--seed", "42", "-o", "json",
				"--chaos", "malformed=0.06,invalid=0.06,unknown-method=0.06,bad-params=0.06,duplicate=0.05,cancel=0.05,timeout=0.05,error-response=0.05,reorder=0.05,slow-write=0.05,disconnect=0.04"}, targetArgs...)
			res := replayctl(t, args...)
			if res.code != 0 && res.code != 1 {
				t.Fatalf("exit %d, want 0 or 1\n%s", res.code, res.stderr)
			}
			r := decodeChaos(t, res.stdout)
			if r.Chaos.Seed == nil || *r.Chaos.Seed != 42 || len(r.Chaos.Faults) == 0 || len(r.Chaos.Survival) != 1 {
				t.Fatalf("chaos section %+v: want seed 42, faults, one verdict", r.Chaos)
			}
			sv := r.Chaos.Survival[0]
			if sv.Survived != (res.code == 0) || (!sv.Survived && sv.BrokenBy == nil) {
				t.Errorf("exit %d with survival %+v: want exit 0 when it survived, else 1 and the fault that broke it", res.code, sv)
			}
			t.Logf("%s: %d faults, survived %v, broken by %+v", tg.name, len(r.Chaos.Faults), sv.Survived, sv.BrokenBy)

			// --chaos-from replays exactly those faults.
			prev := t.TempDir() + "/prev.json"
			if err := writeString(prev, res.stdout); err != nil {
				t.Fatal(err)
			}
			again := replayctl(t, append([]string{"run", path, "--speed", "fast", "-o", "json", "--chaos-from", prev}, targetArgs...)...)
			if got := decodeChaos(t, again.stdout); fmt.Sprint(got.Chaos.Faults) != fmt.Sprint(r.Chaos.Faults) {
				t.Errorf("--chaos-from gave other faults:\n%v\nwant\n%v\nits exit %d, stderr:\n%s", got.Chaos.Faults, r.Chaos.Faults, again.code, again.stderr)
			}
		})
	}
}
