package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContractCommand draws a contract from the example tapes, and from a
// tape of a real server (the test binary as a go-sdk server, version 3):
// run --contract passes against that server and fails against version 4,
// whose get-sum gives the sum as a string, exactly at
// result.structuredContent.sum of each get-sum answer; diff of the two
// versions' contracts says so, breaking.
func TestContractCommand(t *testing.T) {
	res := replayctl(t, "contract", "examples/everything.jsonl", "examples/go-sdk-2025.jsonl", "examples/go-sdk-2026.jsonl", "examples/quickstart.jsonl")
	var drawn struct {
		Format string
		Tapes  []string
		Tools  map[string]struct{ Samples, Errors int }
	}
	if err := json.Unmarshal([]byte(res.stdout), &drawn); res.code != 0 || err != nil || drawn.Format != "replayctl-contract" || len(drawn.Tapes) != 4 ||
		drawn.Tools["echo"].Samples != 13 || drawn.Tools["get-sum"].Samples != 12 || drawn.Tools["divide"].Errors != 1 {
		t.Fatalf("contract of the examples: exit %d, %v, %+v (stderr %q)", res.code, err, drawn, res.stderr)
	}
	if !strings.Contains(res.stderr, "contract: 43 tools (9 with an output schema), 3 resources, 9 prompts from 4 tapes") {
		t.Errorf("stderr %q: want the count of what was drawn", res.stderr)
	}

	dir := t.TempDir()
	v3, v4 := filepath.Join(dir, "v3.jsonl"), filepath.Join(dir, "v4.jsonl")
	res = replayctl(t, append([]string{"run", "examples/everything.jsonl", "--speed", "fast", "-q", "--rerecord", v3,
		"--ignore", "error", "--ignore", "result", "--"}, sumCommand(t, 3)...)...)
	if res.code != 0 {
		t.Fatalf("record of version 3: exit %d, stderr %q", res.code, res.stderr)
	}
	contract3 := filepath.Join(dir, "v3.contract.json")
	res = replayctl(t, "contract", v3)
	if res.code != 0 || os.WriteFile(contract3, []byte(res.stdout), 0o644) != nil {
		t.Fatalf("contract %s: exit %d, stderr %q", v3, res.code, res.stderr)
	}
	res = replayctl(t, append([]string{"run", v3, "--speed", "fast", "-o", "json", "--contract", contract3, "--"}, sumCommand(t, 3)...)...)
	if rep := decodeReport(t, res.stdout); res.code != 0 || rep.Validation.Checked != 28 || rep.Validation.Failed != 0 {
		t.Errorf("run --contract against version 3: exit %d, %+v; want 28 checked, none failed (stderr %q)", res.code, rep.Validation, res.stderr)
	}
	res = replayctl(t, append([]string{"run", v3, "--speed", "fast", "-o", "json", "--contract", contract3, "--rerecord", v4, "--"}, sumCommand(t, 4)...)...)
	rep := decodeReport(t, res.stdout)
	if res.code != 1 || rep.Validation.Failed != 12 || len(rep.Validation.Failures) != 12 {
		t.Fatalf("run --contract against version 4: exit %d, %+v; want 1 and the 12 get-sum answers failed (stderr %q)", res.code, rep.Validation, res.stderr)
	}
	for _, f := range rep.Validation.Failures {
		if len(f.Differences) != 1 {
			t.Errorf("seq %d: %d differences, want 1: %+v", f.Seq, len(f.Differences), f.Differences)
			continue
		}
		d := f.Differences[0]
		if f.Method != "tools/call" || d.Path != "result.structuredContent.sum" || d.Kind != "type" || string(d.Expected) != `"integer"` || !strings.HasPrefix(string(d.Actual), `"`) {
			t.Errorf("seq %d %s: %s %s, expected %s, actual %s; want result.structuredContent.sum, a type: \"integer\", a string", f.Seq, f.Method, d.Path, d.Kind, d.Expected, d.Actual)
		}
	}

	contract4 := filepath.Join(dir, "v4.contract.json")
	res = replayctl(t, "contract", v4)
	if res.code != 0 || os.WriteFile(contract4, []byte(res.stdout), 0o644) != nil {
		t.Fatalf("contract %s: exit %d, stderr %q", v4, res.code, res.stderr)
	}
	res = replayctl(t, "diff", "--fail-on-breaking", contract3, contract4)
	want := `  breaking tool get-sum output result.structuredContent.sum: type "integer" → "string"`
	if res.code != 1 || !strings.Contains(res.stdout, want) || !strings.HasPrefix(res.stdout, "Contracts "+contract3+" → "+contract4+": ") {
		t.Errorf("diff of the contracts: exit %d, stdout:\n%s\nwant 1 and %q", res.code, res.stdout, want)
	}
	if res := replayctl(t, "diff", contract3, contract3); res.code != 0 || !strings.Contains(res.stdout, ": 0 changes, 0 breaking") {
		t.Errorf("diff of a contract with itself: exit %d, stdout %q", res.code, res.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "examples/quickstart.jsonl", "--contract", filepath.Join(dir, "none.json")}, "--contract " + filepath.Join(dir, "none.json") + ": open"},
		{[]string{"run", "examples/quickstart.jsonl", "--contract", "examples/quickstart.jsonl"}, "not a replayctl contract"},
		{[]string{"run", "examples/quickstart.jsonl", "--contract", contract3, "--validation", "exact"}, "leave out --validation exact"},
		{[]string{"run", "examples/quickstart.jsonl", "--validation", "contract"}, "mode contract needs a contract"},
		{[]string{"diff", contract3, "examples/quickstart.jsonl"}, "is a contract and examples/quickstart.jsonl is not"},
		{[]string{"contract"}, "want: replayctl contract TAPE..."},
		{[]string{"contract", filepath.Join(dir, "none.jsonl")}, "none.jsonl"},
	} {
		res := replayctl(t, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
}
