package main

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/internal/testleak"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// redactSecret has characters that JSON, URLs and base64 write otherwise.
const redactSecret = `sk-live/Ab+Cd="9876"<&>`

// quoted is s as JSON string content.
func quoted(s string) string {
	q := jsonscan.AppendString(nil, s)
	return string(q[1 : len(q)-1])
}

// secretTape writes a Streamable HTTP tape with the secret in request
// headers (Authorization, X-Api-Key, a Basic cookie), in tool arguments
// (plain, \/-escaped, under an api_key member, inside JSON text) and in
// the echoed answer.
func secretTape(t *testing.T) string {
	t.Helper()
	q := quoted(redactSecret)
	escaped := strings.ReplaceAll(q, "/", `\/`)
	inner := quoted(`{"token":"` + q + `"}`)
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + redactSecret))
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"streamable-http","server":{"url":"http://127.0.0.1:1/mcp?key=` + q + `"}}`,
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}},"http":{"headers":{"Authorization":["Bearer ` + q + `"],"X-Api-Key":["` + q + `"]}}}`,
		`{"type":"message","seq":1,"t_us":100,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}},"http":{"status":200,"headers":{"Mcp-Session-Id":["abc"],"Set-Cookie":["sid=` + basic + `"]}}}`,
		`{"type":"message","seq":2,"t_us":200,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"},"http":{"headers":{"Cookie":["auth=` + basic + `"]}}}`,
		`{"type":"message","seq":3,"t_us":300,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"use ` + q + `","alt":"` + escaped + `","api_key":"` + q + `","json":"` + inner + `","_meta":{"progressToken":7},"maxTokens":10}}},"http":{"headers":{"Authorization":["Bearer ` + q + `"]}}}`,
		`{"type":"message","seq":4,"t_us":400,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Echo: use ` + q + `"}]}},"http":{"status":200}}`,
		`{"type":"end","messages":5,"duration_us":400}`,
	}
	path := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRedactTapeCLI(t *testing.T) {
	t.Setenv("REDACT_TEST_SECRET", redactSecret)
	in := secretTape(t)
	raw, _ := os.ReadFile(in)
	if _, found := testleak.Find(string(raw), redactSecret); !found {
		t.Fatal("the fixture does not hold the secret")
	}
	out := filepath.Join(t.TempDir(), "clean.jsonl")
	res := replayctl(t, "redact", in, out, "--redact-env", "REDACT_TEST_SECRET")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if how, found := testleak.Find(string(got), redactSecret); found {
		t.Fatalf("the secret is still in the tape (%s):\n%s", how, got)
	}
	for _, s := range []string{redactSecret, quoted(redactSecret), base64.StdEncoding.EncodeToString([]byte(redactSecret)), "user:" + redactSecret} {
		if strings.Contains(string(got), s) {
			t.Errorf("the tape still holds %q", s)
		}
	}
	// What is kept: the rest of the messages byte for byte, the false
	// positives, the header listing the variable.
	for _, want := range []string{
		`"message":"use [redacted:env:REDACT_TEST_SECRET]"`,
		`"api_key":"[redacted:key:string]"`,
		`"_meta":{"progressToken":7},"maxTokens":10`,
		`"Authorization":["[redacted:header]"]`,
		`"Mcp-Session-Id":["abc"]`,
		`"redacted_env":"REDACT_TEST_SECRET"`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the redacted tape lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(res.stderr, redactSecret) || !strings.Contains(res.stderr, "values redacted") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	for _, want := range []string{"env    REDACT_TEST_SECRET", "key    api_key", "header Authorization", "header Cookie", "header Set-Cookie"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}

	// The redacted tape loads and replays against the built-in mock, the
	// variable set (its value put back) and unset (markers sent).
	for _, set := range []bool{true, false} {
		if !set {
			os.Unsetenv("REDACT_TEST_SECRET")
		}
		res = replayctl(t, "run", out, "--speed", "fast", "-o", "json")
		if res.code != 0 {
			t.Fatalf("set %v: run: exit %d\n%s\n%s", set, res.code, res.stdout, res.stderr)
		}
		r := decodeReport(t, res.stdout)
		if r.Validation.Checked != 2 || r.Validation.Failed != 0 {
			t.Errorf("set %v: checked %d failed %d, want 2 and 0", set, r.Validation.Checked, r.Validation.Failed)
		}
		if warned := strings.Contains(res.stdout, "there is none to put back"); warned == set {
			t.Errorf("set %v: warning about the unset variable: %v\n%s", set, warned, res.stdout)
		}
		if strings.Contains(res.stdout+res.stderr, redactSecret) {
			t.Errorf("set %v: the restored secret is in the output", set)
		}
	}
}

func TestRedactInPlaceAndBadInput(t *testing.T) {
	t.Setenv("REDACT_TEST_SECRET", redactSecret)
	in := secretTape(t)
	if res := replayctl(t, "redact", in, in, "--redact-env", "REDACT_TEST_SECRET"); res.code != 0 {
		t.Fatalf("in place: exit %d\n%s", res.code, res.stderr)
	}
	got, _ := os.ReadFile(in)
	if how, found := testleak.Find(string(got), redactSecret); found {
		t.Fatalf("in place: the secret is still there (%s)", how)
	}
	// Twice: nothing more to replace, the same bytes.
	res := replayctl(t, "redact", in, in, "--redact-env", "REDACT_TEST_SECRET")
	again, _ := os.ReadFile(in)
	if res.code != 0 || string(again) != string(got) || !strings.Contains(res.stderr, ": 0 values redacted") {
		t.Errorf("second redaction: exit %d, changed %v\n%s", res.code, string(again) != string(got), res.stderr)
	}

	out := filepath.Join(t.TempDir(), "out.jsonl")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"redact", in, out, "--redact-env", "REDACT_TEST_UNSET"}, "REDACT_TEST_UNSET: not set"},
		{[]string{"redact", in, out, "--redact-env", "BAD-NAME"}, "want a variable name"},
		{[]string{"redact", in, out, "--redact-key", "*"}, "every name"},
		{[]string{"redact", in, filepath.Join(t.TempDir(), "out.har")}, "only the native format"},
		{[]string{"redact", filepath.Join(t.TempDir(), "missing.jsonl"), out}, "missing.jsonl"},
		{[]string{"redact", in}, "want: replayctl redact"},
	} {
		res := replayctl(t, tt.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tt.args, res.code, tt.want, res.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed redaction left %s", out)
	}
}

// TestRedactRestoreAgainstRealServer records a session with the real
// server-everything whose echo tool is called with a secret, redacts the
// tape, and replays it against the server with the variable set: the
// server receives the secret again (read from what it was sent), the
// answer echoing it matches the recorded marker, and no output shows it.
func TestRedactRestoreAgainstRealServer(t *testing.T) {
	argv := testserver.Everything(t)
	args := `{"message":"token ` + quoted(redactSecret) + ` here"}`
	path := recordTape(t, transport.Stdio{Command: argv}, "stdio", script("echo", args, `{"message":"second"}`))
	recorded, _ := os.ReadFile(path)
	if !strings.Contains(string(recorded), "Echo: token "+quoted(redactSecret)) {
		t.Fatalf("the recording lacks the echoed secret:\n%s", recorded)
	}

	t.Setenv("REDACT_TEST_SECRET", redactSecret)
	out := filepath.Join(t.TempDir(), "clean.jsonl")
	if res := replayctl(t, "redact", path, out, "--redact-env", "REDACT_TEST_SECRET"); res.code != 0 {
		t.Fatalf("redact: exit %d\n%s", res.code, res.stderr)
	}
	clean, _ := os.ReadFile(out)
	if how, found := testleak.Find(string(clean), redactSecret); found {
		t.Fatalf("the secret is in the redacted tape (%s)", how)
	}
	h := readHeader(t, out)
	if names := tape.EnvNames(h); len(names) != 1 || names[0] != "REDACT_TEST_SECRET" {
		t.Fatalf("header env names %v", names)
	}

	recv := filepath.Join(t.TempDir(), "received.log")
	cmd := exec.Command(binary, "run", out, "--speed", "fast", "-o", "json", "--log-level", "debug",
		"--", "sh", "-c", `tee -a "$0" | exec "$@"`, recv, argv[0], argv[1])
	cmd.Dir = "../.."
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	r := decodeReport(t, stdout.String())
	if r.Validation.Checked != 5 || r.Validation.Failed != 0 {
		t.Errorf("checked %d failed %d, want 5 and 0\n%s", r.Validation.Checked, r.Validation.Failed, stdout.String())
	}
	sent, err := os.ReadFile(recv)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(sent), `"message":"token `+quoted(redactSecret)+` here"`); n != 1 {
		t.Errorf("the server received the secret %d times, want 1:\n%s", n, sent)
	}
	if strings.Contains(string(sent), "[redacted:") {
		t.Errorf("a marker was sent:\n%s", sent)
	}
	if how, found := testleak.Find(stdout.String()+stderr.String(), redactSecret); found {
		t.Errorf("the secret is in replayctl's output (%s)", how)
	}
}

func readHeader(t *testing.T, path string) tape.Header {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Header()
}

func TestRedactCountsNoun(t *testing.T) {
	for _, tc := range []struct {
		c    tape.Counts
		want string
	}{
		{tape.Counts{}, "wrote t.jsonl: 0 values redacted\n"},
		{tape.Counts{Keys: map[string]int{"api_key": 1}}, "wrote t.jsonl: 1 value redacted\n"},
		{tape.Counts{Keys: map[string]int{"api_key": 1}, Env: map[string]int{"X": 1}}, "wrote t.jsonl: 2 values redacted\n"},
	} {
		var b strings.Builder
		printCounts(&b, "t.jsonl", tc.c)
		if first, _, _ := strings.Cut(b.String(), "  "); first != tc.want {
			t.Errorf("%+v: %q, want it to start %q", tc.c, b.String(), tc.want)
		}
	}
}
