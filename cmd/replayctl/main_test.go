package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/internal/testserver"
)

// binary is the replayctl built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(heldWordsEnv) != "" { // the test binary as replayctl, its hooks set
		os.Unsetenv(heldWordsEnv) // not the server's it starts
		holdSecondSignalsWords()
		main()
	}
	if how := os.Getenv(fakeUpstreamEnv); how != "" { // the test binary as a stdio upstream
		os.Exit(fakeStdioUpstream(how))
	}
	if v := os.Getenv(sumServerEnv); v != "" { // the test binary as a go-sdk stdio server
		os.Exit(testserver.SumMain(v))
	}
	if out := os.Getenv(rssOutEnv); out != "" { // the test binary as the launcher of a measured command
		os.Exit(launchMeasured(out))
	}
	dir, err := os.MkdirTemp("", "replayctl-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "replayctl")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		return m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// result is what one run of the binary did.
type result struct {
	code           int
	stdout, stderr string
}

// replayctl runs the built binary from the repository root, with no input.
func replayctl(t *testing.T, args ...string) result {
	t.Helper()
	return replayctlIn(t, "", args...)
}

// jsonReport decodes the fields of the JSON report the tests look at.
type jsonReport struct {
	Summary struct {
		RunID         string  `json:"run_id"`
		Tape          string  `json:"tape"`
		Sessions      int     `json:"sessions"`
		TotalMessages int64   `json:"total_messages"`
		Sent          int64   `json:"sent"`
		Received      int64   `json:"received"`
		Skipped       int64   `json:"skipped"`
		SuccessRate   float64 `json:"success_rate"`
		Server        struct {
			Notifications    int64 `json:"notifications"`
			RequestsAnswered int64 `json:"requests_answered"`
			RequestsRefused  int64 `json:"requests_refused"`
		} `json:"server_initiated"`
	} `json:"summary"`
	Performance struct {
		LatencyMS map[string]float64 `json:"latency_ms"`
	} `json:"performance"`
	Validation struct {
		Checked  int64 `json:"checked"`
		Passed   int64 `json:"passed"`
		Failed   int64 `json:"failed"`
		Failures []struct {
			Seq         int64  `json:"seq"`
			Method      string `json:"method"`
			Differences []struct {
				Path     string          `json:"path"`
				Expected json.RawMessage `json:"expected"`
				Actual   json.RawMessage `json:"actual"`
				Kind     string          `json:"kind"`
			} `json:"differences"`
		} `json:"failures"`
	} `json:"validation"`
	Timeline []struct {
		Seq     int64  `json:"seq"`
		Verdict string `json:"verdict"`
	} `json:"timeline"`
}

func decodeReport(t *testing.T, s string) jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, s)
	}
	return r
}

func TestRunQuickstartAgainstMock(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	r := decodeReport(t, res.stdout)
	if r.Summary.TotalMessages != 18 {
		t.Errorf("total_messages = %d, want 18", r.Summary.TotalMessages)
	}
	// 8 requests, each answered and checked; the notification is sent too.
	if r.Validation.Checked != 8 || r.Validation.Passed != 8 || r.Validation.Failed != 0 {
		t.Errorf("validation checked/passed/failed = %d/%d/%d, want 8/8/0", r.Validation.Checked, r.Validation.Passed, r.Validation.Failed)
	}
	if r.Summary.Sent != 9 || r.Summary.Received != 8 {
		t.Errorf("sent/received = %d/%d, want 9/8", r.Summary.Sent, r.Summary.Received)
	}
	// The mock replays the recorded notifications/message before its answer.
	if r.Summary.Server.Notifications != 1 {
		t.Errorf("server notifications = %d, want 1", r.Summary.Server.Notifications)
	}
}

func TestRunTextSummary(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{"quickstart.jsonl", "8 passed", "p99"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
}

func TestRunWritesReportFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", path)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeReport(t, string(b))
	// One timeline entry per replayed message: a request's entry carries
	// its answer, so 18 recorded messages make 9 sent and 1 server
	// notification.
	if r.Validation.Passed != 8 || len(r.Timeline) != 10 {
		t.Errorf("report passed=%d timeline=%d, want 8 and 10", r.Validation.Passed, len(r.Timeline))
	}
	// The file and the text summary name the same run.
	if _, err := uuid.Parse(r.Summary.RunID); err != nil {
		t.Errorf("run_id %q: want a UUID (%v)", r.Summary.RunID, err)
	}
	if header, _, _ := strings.Cut(res.stdout, "\n"); !strings.Contains(header, "run "+r.Summary.RunID+")") {
		t.Errorf("summary header %q: want it to name run %s", header, r.Summary.RunID)
	}
}

// vcrFixtures holds the project's own Agent VCR cassettes, written by hand.
const vcrFixtures = "../../testdata/vcr/"

// vcrSamplesEnv names the folder of third-party Agent VCR cassettes, which
// the repository does not hold: the test that replays them runs only when
// it is set (REPLAYCTL_VCR_SAMPLES=/path/to/samples/agent-vcr).
const vcrSamplesEnv = "REPLAYCTL_VCR_SAMPLES"

func TestRunAgentVCRFixtures(t *testing.T) {
	tests := []struct {
		file    string
		checked int64 // the initialize request and each interaction's
	}{
		{"abacus-v1.vcr", 4},
		{"abacus-v2.vcr", 5},
		{"abacus-progress.vcr", 6}, // two of them answered with a JSON-RPC error
		// In the shape Agent VCR's recorder writes: "server_to_client" on
		// the client's requests, null for absent members.
		{"abacus-recorded.vcr", 4},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			abs, err := filepath.Abs(vcrFixtures + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			res := replayctl(t, "run", abs, "--speed", "fast", "-o", "json")
			if res.code != 0 {
				t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			r := decodeReport(t, res.stdout)
			if r.Validation.Checked != tt.checked || r.Validation.Passed != tt.checked || r.Validation.Failed != 0 {
				t.Errorf("checked/passed/failed %d/%d/%d, want %d/%d/0", r.Validation.Checked, r.Validation.Passed, r.Validation.Failed, tt.checked, tt.checked)
			}
			if res := replayctl(t, "inspect", abs); res.code != 0 || !strings.Contains(res.stdout, "initialize") {
				t.Errorf("inspect exit %d:\n%s%s", res.code, res.stdout, res.stderr)
			}
		})
	}
}

// TestRunAgentVCRFixtureNotifications: the mock sends the recorded server
// notifications (two progress, one log message) before its answer.
func TestRunAgentVCRFixtureNotifications(t *testing.T) {
	abs, err := filepath.Abs(vcrFixtures + "abacus-progress.vcr")
	if err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "run", abs, "--speed", "fast", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if r := decodeReport(t, res.stdout); r.Summary.Server.Notifications != 3 || r.Summary.TotalMessages != 16 {
		t.Errorf("server notifications %d of %d messages, want 3 of 16", r.Summary.Server.Notifications, r.Summary.TotalMessages)
	}
}

// TestRunAgentVCRSharedSamples replays the third-party Agent VCR samples,
// when REPLAYCTL_VCR_SAMPLES names their folder.
func TestRunAgentVCRSharedSamples(t *testing.T) {
	dir := os.Getenv(vcrSamplesEnv)
	if dir == "" {
		t.Skipf("%s is not set: the third-party Agent VCR samples are not part of the repository", vcrSamplesEnv)
	}
	samples, _ := filepath.Glob(filepath.Join(dir, "*.vcr"))
	if len(samples) != 3 {
		t.Fatalf("found %d Agent VCR samples in %s=%s, want 3", len(samples), vcrSamplesEnv, dir)
	}
	for _, s := range samples {
		t.Run(filepath.Base(s), func(t *testing.T) {
			abs, _ := filepath.Abs(s)
			res := replayctl(t, "run", abs, "--speed", "fast", "-o", "json")
			if res.code != 0 {
				t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			r := decodeReport(t, res.stdout)
			if r.Validation.Failed != 0 || r.Validation.Checked == 0 {
				t.Errorf("checked %d, failed %d; want some checked and none failed", r.Validation.Checked, r.Validation.Failed)
			}
			if res := replayctl(t, "inspect", abs); res.code != 0 || !strings.Contains(res.stdout, "initialize") {
				t.Errorf("inspect exit %d:\n%s%s", res.code, res.stdout, res.stderr)
			}
		})
	}
}

func TestConvertThenReplay(t *testing.T) {
	abs, err := filepath.Abs(vcrFixtures + "abacus-v2.vcr")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "v2.jsonl")
	if res := replayctl(t, "convert", abs, out); res.code != 0 {
		t.Fatalf("convert exit %d: %s", res.code, res.stderr)
	}
	res := replayctl(t, "run", out, "--speed", "fast", "-o", "json")
	if res.code != 0 {
		t.Fatalf("run exit %d: %s", res.code, res.stderr)
	}
	if r := decodeReport(t, res.stdout); r.Validation.Passed != 5 {
		t.Errorf("passed %d, want 5 (initialize and 4 interactions)", r.Validation.Passed)
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := `{"type":"header","format":"replayctl-tape","version":1}` + "\n"
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"missing tape", []string{"run", filepath.Join(dir, "nope.jsonl")}, []string{"nope.jsonl"}},
		{"empty tape", []string{"run", write("empty.jsonl", "")}, []string{"empty.jsonl", "empty"}},
		{"not json", []string{"run", write("text.jsonl", "hello world\n")}, []string{"text.jsonl", "line 1"}},
		{"wrong type", []string{"run", write("types.jsonl", header+`{"type":"message","seq":0,"t_us":"soon","session":"s1","dir":"c2s","msg":{}}`+"\n")}, []string{"types.jsonl", "line 2", "t_us"}},
		{"newer version", []string{"run", write("new.jsonl", `{"type":"header","format":"replayctl-tape","version":99}`+"\n")}, []string{"new.jsonl", "version"}},
		{"unknown flag", []string{"run", "examples/quickstart.jsonl", "--sped", "fast"}, []string{"--sped"}},
		{"bad speed", []string{"run", "examples/quickstart.jsonl", "--speed", "warp"}, []string{"warp"}},
		{"no tape", []string{"run"}, []string{"TAPE"}},
		{"convert to vcr", []string{"convert", "examples/quickstart.jsonl", filepath.Join(dir, "x.vcr")}, []string{".jsonl"}},
		// inspect and diff open the file without run's check: they said
		// "line 1: cannot read it (… is a directory): check the file and the disk".
		{"inspect a folder", []string{"inspect", dir}, []string{"it is a folder, not a tape"}},
		{"diff a folder", []string{"diff", "examples/quickstart.jsonl", dir}, []string{"it is a folder, not a tape"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctl(t, tt.args...)
			if res.code != 2 {
				t.Fatalf("exit %d, want 2\nstderr: %s", res.code, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, res.stderr)
				}
			}
		})
	}
}

func TestInspectListsEveryMessage(t *testing.T) {
	res := replayctl(t, "inspect", "examples/quickstart.jsonl")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := 0
	for _, l := range strings.Split(res.stdout, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(strings.TrimSpace(l), "SEQ") {
			lines++
		}
	}
	if lines != 18 {
		t.Errorf("inspect printed %d message lines, want 18:\n%s", lines, res.stdout)
	}
	for _, want := range []string{"tools/call", "notifications/initialized", "error"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("inspect output lacks %q", want)
		}
	}
}

func TestChangedAnswerFailsExactlyThatMessage(t *testing.T) {
	orig, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(orig), "Echo: hello, replay", "Echo: hello, REPLAY", 1)
	if changed == string(orig) {
		t.Fatal("the example tape no longer has the echo answer this test changes")
	}
	other := filepath.Join(t.TempDir(), "changed.jsonl")
	if err := os.WriteFile(other, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--mock-tape", other, "-o", "json")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	r := decodeReport(t, res.stdout)
	if r.Validation.Failed != 1 || r.Validation.Passed != 7 || len(r.Validation.Failures) != 1 {
		t.Fatalf("failed %d passed %d, want 1 and 7", r.Validation.Failed, r.Validation.Passed)
	}
	f := r.Validation.Failures[0]
	if f.Seq != 5 || f.Method != "tools/call" || len(f.Differences) != 1 {
		t.Fatalf("failure = %+v, want seq 5 tools/call with one difference", f)
	}
	d := f.Differences[0]
	if d.Path != "result.content[0].text" || string(d.Expected) != `"Echo: hello, replay"` || string(d.Actual) != `"Echo: hello, REPLAY"` || d.Kind != "changed" {
		t.Errorf("difference = %+v", d)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func TestOnErrorStop(t *testing.T) {
	orig, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "changed.jsonl")
	changed := strings.Replace(string(orig), "Echo: hello, replay", "Echo: changed", 1)
	if err := os.WriteFile(other, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--mock-tape", other, "--on-error", "stop", "-o", "json")
	if res.code != 1 || !strings.Contains(res.stderr, "seq 5") {
		t.Fatalf("exit %d, want 1 with the failing seq 5 named\n%s", res.code, res.stderr)
	}
	r := decodeReport(t, res.stdout)
	if r.Validation.Failed != 1 || r.Validation.Passed > 3 {
		t.Errorf("passed %d failed %d: want the replay to stop at the first failure", r.Validation.Passed, r.Validation.Failed)
	}
}

func TestValidateNotifications(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--validate-notifications", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if r := decodeReport(t, res.stdout); r.Validation.Passed != 9 {
		t.Errorf("passed %d, want 9 (8 answers and the notifications/message the mock replays)", r.Validation.Passed)
	}

	orig, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "changed.jsonl")
	if err := os.WriteFile(other, []byte(strings.Replace(string(orig), "adding 15 and 27", "adding 27 and 15", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res = replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--validate-notifications", "--mock-tape", other, "-o", "json")
	r := decodeReport(t, res.stdout)
	if res.code != 1 || r.Validation.Failed != 1 || r.Validation.Failures[0].Method != "notifications/message" || r.Validation.Failures[0].Differences[0].Path != "params.data" {
		t.Errorf("exit %d, failures %+v: want exactly the notification's params.data", res.code, r.Validation.Failures)
	}
	// Without the flag, notifications are only counted.
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--mock-tape", other); res.code != 0 {
		t.Errorf("without --validate-notifications: exit %d, want 0", res.code)
	}
}

func TestThresholdsAndReportFormats(t *testing.T) {
	dir := t.TempDir()
	xml, html := filepath.Join(dir, "out.xml"), filepath.Join(dir, "out.html")
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--threshold", "validation_failed==0", "--threshold", "error_rate<1%", "--report", xml, "--report", html)
	if res.code != 0 {
		t.Fatalf("passing thresholds: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, p := range []string{xml, html} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", p, err, len(b))
		}
	}
	if b, _ := os.ReadFile(xml); !strings.Contains(string(b), "<testsuite") {
		t.Errorf("JUnit report lacks a testsuite")
	}
	res = replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--threshold", "throughput>1000000000")
	if res.code != 1 || !strings.Contains(res.stdout, "threshold throughput>1000000000 failed") {
		t.Errorf("failing threshold: exit %d, want 1 and the threshold named\n%s", res.code, res.stdout)
	}
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--threshold", "p99 is small"); res.code != 2 {
		t.Errorf("bad threshold: exit %d, want 2", res.code)
	}
}

func writeString(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// A replay cut short never reads as a pass: not in the summary, not in the
// JSON report CI reads.
func TestStoppedEarlyIsNeverAPass(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "-o", "json", "--", "sh", "-c", "read l; echo 'dying' >&2; exit 7")
	if res.code != 3 {
		t.Fatalf("exit %d, want 3\n%s", res.code, res.stderr)
	}
	var r struct {
		Summary struct {
			Passed  bool   `json:"passed"`
			Aborted string `json:"aborted"`
		} `json:"summary"`
	}
	if err := jsonUnmarshal(res.stdout, &r); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Passed || !strings.Contains(r.Summary.Aborted, "status 7") {
		t.Errorf("summary %+v, want passed false and the reason", r.Summary)
	}
	text := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--", "sh", "-c", "exit 7")
	if !strings.Contains(text.stdout, "FAIL (stopped early") {
		t.Errorf("text summary of a dead target:\n%s", text.stdout)
	}
}

func TestBadArgumentsRefusedBeforeReplaying(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--report", filepath.Join(dir, "nope", "r.json")},
		{"--report", filepath.Join(dir, "d.json")},
		{"--target", "127.0.0.1:3000"},
		{"--target", "ftp://127.0.0.1/x"},
		{"--timeout", "0s"},
		{"--max-line", "0"},
		{"--cwd", filepath.Join(dir, "nope"), "--", "cat"},
		{"--follow-redirects"},   // only for an HTTP --target
		{"--http-client", "std"}, // the same
		{"--target", "http://127.0.0.1:1/mcp", "--http-client", "fast"},
		{"--http-spare", "2"}, // only for an HTTP --target
		{"--target", "http://127.0.0.1:1/mcp", "--http-spare", "17"},
		{"--target", "http://127.0.0.1:1/mcp", "--http-spare", "-1"},
	} {
		res := replayctl(t, append([]string{"run", "examples/quickstart.jsonl", "--speed", "fast"}, args...)...)
		if res.code != 2 || res.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing replayed\n%s", args, res.code, res.stdout, res.stderr)
		}
	}
}

// inspect names a tape's revision and era, and follows multi-round
// requests: each retry's round, and what each input_required answer asks.
func TestInspectStatelessTape(t *testing.T) {
	res := replayctl(t, "inspect", "examples/go-sdk-2026.jsonl")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{
		"protocol 2026-07-28 (stateless)",
		"server/discover",
		"input required: user_name",
		"input required: step2",
		"round 3",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, res.stdout)
		}
	}
	if res := replayctl(t, "inspect", "examples/go-sdk-2025.jsonl"); !strings.Contains(res.stdout, "protocol 2025-11-25 (session-based)") {
		t.Errorf("2025 tape: %s", res.stdout)
	}
}

// TestInspectHTTPStatus: a request refused over HTTP shows its status,
// on the client's message (what the recording proxy keeps of an answer
// without a JSON-RPC body) and on the server's error.
func TestInspectHTTPStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refused.jsonl")
	lines := `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"server/discover"},"http":{"status":400}}
{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no"}},"http":{"status":400}}
{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"},"http":{"status":429,"headers":{"Retry-After":["3"]}}}
{"type":"message","seq":3,"t_us":30,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"},"http":{"status":202}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "inspect", path)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got := strings.Count(res.stdout, "HTTP 400"); got != 2 || !strings.Contains(res.stdout, "HTTP 429") || strings.Contains(res.stdout, "HTTP 202") {
		t.Errorf("inspect output: %d × HTTP 400, want 2, and HTTP 429, no HTTP 202:\n%s", got, res.stdout)
	}
}
