package main

// Faithful verdicts on real recordings, end to end against real servers.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestRunAgentVCRRecorderShapeAgainstServer replays a cassette in the
// shape Agent VCR's recorder writes ("server_to_client" on the client's
// requests; "params": null, "error": null, "result": null, "data": null)
// against the server it was recorded from: the requests go to the server
// and every answer is checked. It used to send the recorded results into
// the server and report PASS with nothing checked.
func TestRunAgentVCRRecorderShapeAgainstServer(t *testing.T) {
	argv := testserver.Everything(t)
	abs, err := filepath.Abs(vcrFixtures + "everything-recorded.vcr")
	if err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, append([]string{"run", abs, "--speed", "fast", "-o", "json", "--"}, argv...)...)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", res.code, res.stdout, res.stderr)
	}
	r := decodeReport(t, res.stdout)
	// initialize, ping (params null), two sums, a call answered isError,
	// a prompts/get answered with a JSON-RPC error.
	if r.Validation.Checked != 6 || r.Validation.Passed != 6 {
		t.Errorf("checked %d passed %d, want 6 and 6", r.Validation.Checked, r.Validation.Passed)
	}
	if strings.Contains(res.stderr, "not valid JSON-RPC") {
		t.Errorf("the importer left messages that are not JSON-RPC:\n%s", res.stderr)
	}

	// A changed recorded answer fails there: the answers are compared.
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "changed.vcr")
	if err := os.WriteFile(changed, []byte(strings.Replace(string(b), "Echo: hello from a cassette", "Echo: hello from elsewhere", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res = replayctl(t, append([]string{"run", changed, "--speed", "fast", "-o", "json", "--"}, argv...)...)
	if r := decodeReport(t, res.stdout); res.code != 1 || r.Validation.Failed != 1 || len(r.Validation.Failures) != 1 || r.Validation.Failures[0].Method != "tools/call" {
		t.Errorf("exit %d, failed %d %+v: want exit 1 and the echo call failed", res.code, r.Validation.Failed, r.Validation.Failures)
	}
}

// TestRunThatChecksNothingFails: a tape of the client's side only (no
// recorded answers) replayed against a real server sends its requests and
// can judge no answer: the run fails, exit 1, saying why in the text
// summary and the JSON report.
func TestRunThatChecksNothingFails(t *testing.T) {
	argv := testserver.Slow(t)
	tp := writeTapeFile(t, "client-only.jsonl", `{"type":"header","format":"replayctl-tape","version":1}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}
{"type":"message","seq":1,"t_us":100,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":2,"t_us":200,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}
`)
	res := replayctl(t, append([]string{"run", tp, "--speed", "fast", "--"}, argv...)...)
	if res.code != 1 || !strings.Contains(res.stdout, "FAIL (nothing checked: 2 requests sent and no answer checked") {
		t.Errorf("exit %d, want 1 and a FAIL saying nothing was checked:\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = replayctl(t, append([]string{"run", tp, "--speed", "fast", "-o", "json", "--"}, argv...)...)
	if res.code != 1 || !strings.Contains(res.stdout, `"nothing_checked": "2 requests sent`) || !strings.Contains(res.stdout, `"passed": false`) {
		t.Errorf("exit %d, want 1 and summary.nothing_checked in the report:\n%s", res.code, res.stdout)
	}
}

func writeTapeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestChaosFromKeepsTheSeed: --chaos-from repeats a run's faults and says,
// on stderr, in the text summary and in the JSON report, the seed of the
// run it repeats (it said seed 0); a report of another tape is warned
// about, since its faults are placed by seq.
func TestChaosFromKeepsTheSeed(t *testing.T) {
	argv := testserver.Everything(t)
	tp, err := filepath.Abs("../../examples/everything.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	prev := filepath.Join(t.TempDir(), "chaos.json")
	run := append([]string{"run", tp, "--speed", "fast", "--chaos", "malformed=0.1,unknown-method=0.1", "--seed", "42", "--report", prev, "--"}, argv...)
	if res := replayctl(t, run...); res.code != 0 && res.code != 1 {
		t.Fatalf("chaos run: exit %d\n%s", res.code, res.stderr)
	}
	again := replayctl(t, append([]string{"run", tp, "--speed", "fast", "--chaos-from", prev, "--"}, argv...)...)
	if !strings.Contains(again.stderr, "chaos: the faults of "+prev+", seed 42") || !strings.Contains(again.stdout, "injected (seed 42)") {
		t.Errorf("want seed 42 on stderr and in the summary:\nstdout:\n%s\nstderr:\n%s", again.stdout, again.stderr)
	}
	res := replayctl(t, append([]string{"run", tp, "--speed", "fast", "--chaos-from", prev, "-o", "json", "--"}, argv...)...)
	if r := decodeChaos(t, res.stdout); r.Chaos.Seed == nil || *r.Chaos.Seed != 42 || r.Chaos.Injected == 0 {
		t.Errorf("chaos.seed %v, %d injected: want 42 and the faults", r.Chaos.Seed, r.Chaos.Injected)
	}
	if strings.Contains(res.stderr, "is of tape") {
		t.Errorf("a warning about another tape for the same tape:\n%s", res.stderr)
	}

	// The same session under another name: warned, in the log and the report.
	b, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res = replayctl(t, append([]string{"run", other, "--speed", "fast", "--chaos-from", prev, "-o", "json", "--"}, argv...)...)
	want := "is of tape " + tp + ", not " + other
	if !strings.Contains(res.stderr, want) || !strings.Contains(res.stdout, want) {
		t.Errorf("want the warning %q on stderr and in the report:\nstdout:\n%s\nstderr:\n%s", want, res.stdout, res.stderr)
	}
}

// TestNormalizeInsideText: a date (JavaScript's Date.toString) and a
// duration inside a text result change from run to run. With the
// timestamp normaliser and a regex normaliser of the config, those values
// are tolerated and the rest of the text is still compared: a real change
// beside them fails. (Until now the only tools were to ignore the whole
// text, which also hid that change.) The second recording is served by the
// mock (--mock-tape) as a server answering at another time.
func TestNormalizeInsideText(t *testing.T) {
	session := func(date, took, rows string) string {
		text := "Report of " + date + ": " + rows + " rows, took " + took
		return `{"type":"header","format":"replayctl-tape","version":1}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report","arguments":{}}}}
{"type":"message","seq":1,"t_us":100,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + text + `"}]}}}
`
	}
	recorded := writeTapeFile(t, "recorded.jsonl", session("Mon Nov 23 2026 10:00:00 GMT+0000 (Coordinated Universal Time)", "12 ms", "3"))
	later := writeTapeFile(t, "later.jsonl", session("Tue Nov 24 2026 08:12:45 GMT+0100 (Central European Standard Time)", "480 ms", "3"))
	changed := writeTapeFile(t, "changed.jsonl", session("Tue Nov 24 2026 08:12:45 GMT+0100 (Central European Standard Time)", "480 ms", "4"))
	config := writeTapeFile(t, "replay.yaml", "validation:\n  normalize:\n    - timestamp\n    - regex: 'took \\d+ ms'\n      placeholder: took <n> ms\n")
	if res := replayctl(t, "config", "check", config); res.code != 0 {
		t.Fatalf("config check: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		failed int64
	}{
		{"without normalisers the values differ", []string{"--mock-tape", later}, 1, 1},
		{"with them they are tolerated", []string{"--mock-tape", later, "--config", config}, 0, 0},
		{"a real change beside them still fails", []string{"--mock-tape", changed, "--config", config}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctl(t, append([]string{"run", recorded, "--speed", "fast", "-o", "json"}, tt.args...)...)
			r := decodeReport(t, res.stdout)
			if res.code != tt.code || r.Validation.Failed != tt.failed || r.Validation.Checked != 1 {
				t.Errorf("exit %d, failed %d, checked %d: want exit %d, %d failed, 1 checked\n%s", res.code, r.Validation.Failed, r.Validation.Checked, tt.code, tt.failed, res.stderr)
			}
		})
	}
}
