package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/validator"
)

// sumServerEnv, set to a version, makes the test binary a stdio go-sdk
// server of that version (testserver.SumMain).
const sumServerEnv = "REPLAYCTL_TEST_SUM_SERVER"

// sumCommand is the test binary as testserver.Sum of version v.
func sumCommand(t *testing.T, v int) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"env", sumServerEnv + "=" + strconv.Itoa(v), exe}
}

// tapeMessages reads the tape at path, failing the test on a bad line.
func tapeMessages(t *testing.T, path string) []tape.Message {
	t.Helper()
	_, msgs, end, _ := readAll(t, path)
	if end == nil {
		t.Errorf("%s has no end line", path)
	}
	return msgs
}

// TestRunRerecordEverything re-records the example tape against
// server-everything with run --rerecord: the new tape has the old one's
// client messages in order, replays against the server clean, and is
// refused as an output without --force, untouched; with --force a tape
// is re-recorded over itself.
func TestRunRerecordEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server-everything")
	}
	testserver.NeedEverything(t)
	server := testserver.Everything(t)
	out := filepath.Join(t.TempDir(), "refreshed.jsonl")
	run := func(args ...string) result {
		return replayctl(t, append(append([]string{"run", "--speed", "fast"}, args...), append([]string{"--"}, server...)...)...)
	}
	res := run("examples/everything.jsonl", "--rerecord", out)
	if res.code != 0 || !strings.Contains(res.stderr, "rerecord: wrote "+out+": 58 messages") {
		t.Fatalf("run --rerecord: exit %d, stderr %q; want 0 and the tape written", res.code, res.stderr)
	}
	old, fresh := tapeMessages(t, filepath.Join(testserver.Root(t), "examples", "everything.jsonl")), tapeMessages(t, out)
	if got, want := byDir(t, fresh, tape.C2S), byDir(t, old, tape.C2S); len(got) != len(want) {
		t.Errorf("%d client messages re-recorded, want %d", len(got), len(want))
	}
	res = run(out, "-o", "json")
	if rep := decodeReport(t, res.stdout); res.code != 0 || rep.Validation.Checked != 28 || rep.Validation.Failed != 0 {
		t.Errorf("replay of the new tape: exit %d, %+v; want 28 checked, none failed (stderr %q)", res.code, rep.Validation, res.stderr)
	}

	before, _ := os.ReadFile(out)
	res = replayctl(t, "run", "examples/everything.jsonl", "--rerecord", out)
	if res.code != 2 || !strings.Contains(res.stderr, "--rerecord "+out+" exists; pass --force") {
		t.Errorf("run --rerecord over an existing tape: exit %d, stderr %q; want 2 and --force named", res.code, res.stderr)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Errorf("a refused --rerecord changed %s", out)
	}
	res = run(out, "--rerecord", out, "--force", "-q")
	if res.code != 0 {
		t.Fatalf("run TAPE --rerecord TAPE --force: exit %d, stderr %q", res.code, res.stderr)
	}
	if after := tapeMessages(t, out); len(after) != 58 || string(after[0].Msg) == "" {
		t.Errorf("re-recorded over itself: %d messages, want 58", len(after))
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".replayctl-tmp-") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

// TestRunRerecordChangedServer re-records a tape of version 1 of a server
// (a real process) against version 2, whose get-sum answers differently
// over 10: run --rerecord fails those 8 answers and writes them as
// version 2 gave them — the new tape differs from the old exactly there
// — and the new tape replays against version 2 clean.
func TestRunRerecordChangedServer(t *testing.T) {
	dir := t.TempDir()
	v1, v2 := filepath.Join(dir, "v1.jsonl"), filepath.Join(dir, "v2.jsonl")
	// The example tape was recorded from the Node server, which answers
	// more than this one: it is only the client's side here.
	res := replayctl(t, append([]string{"run", "examples/everything.jsonl", "--speed", "fast", "-q", "--rerecord", v1,
		"--ignore", "error", "--ignore", "result", "--"}, sumCommand(t, 1)...)...)
	if res.code != 0 {
		t.Fatalf("record of version 1: exit %d, stderr %q", res.code, res.stderr)
	}
	res = replayctl(t, append([]string{"run", v1, "--speed", "fast", "-o", "json", "--rerecord", v2, "--"}, sumCommand(t, 2)...)...)
	if rep := decodeReport(t, res.stdout); res.code != 1 || rep.Validation.Failed != 8 {
		t.Fatalf("re-record against version 2: exit %d, %+v; want 1 and the 8 sums over 10 failed (stderr %q)", res.code, rep.Validation, res.stderr)
	}
	old, fresh := tapeMessages(t, v1), tapeMessages(t, v2)
	if len(old) != len(fresh) {
		t.Fatalf("%d messages re-recorded, want %d", len(fresh), len(old))
	}
	v, err := validator.New()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range old {
		diffs, err := v.Compare(old[i].Msg, fresh[i].Msg)
		if err != nil {
			t.Fatalf("seq %d: %v", i, err)
		}
		for _, d := range diffs {
			got = append(got, fmt.Sprintf("%s: %s → %s", d.Path, d.Expected, d.Actual))
		}
	}
	var want []string
	for a := 4; a <= 11; a++ {
		want = append(want, fmt.Sprintf(`result.content[0].text: "The sum of %d and %d is %d." → "The sum of %d and %d is %d."`, a, 2*a, 3*a, a, 2*a, 3*a+1))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the new tape differs from the old in:\n%s\nwant exactly the sums over 10:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	res = replayctl(t, append([]string{"run", v2, "--speed", "fast", "-o", "json", "--"}, sumCommand(t, 2)...)...)
	if rep := decodeReport(t, res.stdout); res.code != 0 || rep.Validation.Failed != 0 || rep.Validation.Checked != 28 {
		t.Errorf("the new tape against version 2: exit %d, %+v; want 28 checked, none failed (stderr %q)", res.code, rep.Validation, res.stderr)
	}
}

// TestRunRerecordRefusals: each mistake exits 2 saying what to do, and
// writes nothing.
func TestRunRerecordRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rerecord", filepath.Join(dir, "out.har")}, "a re-recording is a native tape: name it .jsonl"},
		{[]string{"--rerecord", filepath.Join(dir, "none", "out.jsonl")}, "does not exist"},
		{[]string{"--rerecord", out, "--chaos", "drop=0.1"}, "--rerecord " + out + ": a chaos replay's faults would be on the new tape"},
		{[]string{"--rerecord", out, "--shard", "0/2"}, "leave out --shard"},
		{[]string{"--rerecord", out, "--shards", "2"}, "leave out --shards and --coordinator"},
		{[]string{"--rerecord", out, "--local-shards", "2"}, "leave out --local-shards"},
		{[]string{"--force"}, "--force is a flag of --rerecord"},
		{[]string{"--redact-key", "pin"}, "--redact-key is a flag of --rerecord"},
		{[]string{"--rerecord", out, "--redact-key", "*"}, "a glob that matches every name"},
	} {
		res := replayctl(t, append([]string{"run", "examples/quickstart.jsonl", "--speed", "fast"}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused runs left %v", entries)
	}
}
