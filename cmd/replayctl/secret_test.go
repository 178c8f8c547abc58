package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/transport"
)

// TestConfigOverridesFromEnvironment replays a tape recorded from the real
// server-everything with a config that sets the echo tool's argument from
// the environment and ignores the echoed text (volatile now): the server
// receives the value, the replay passes, and the value appears in no
// output of replayctl — stdout, stderr (debug logs on), report files.
func TestConfigOverridesFromEnvironment(t *testing.T) {
	const secret = "tok-3f9a<&>\"quoted\""
	argv := testserver.Everything(t)
	path := recordTape(t, transport.Stdio{Command: argv}, "stdio", script("echo", `{"message":"hello, replay"}`, `{"message":"second"}`))

	dir := t.TempDir()
	recv := filepath.Join(dir, "received.log")
	cfg := filepath.Join(dir, "replay.yaml")
	if err := os.WriteFile(cfg, []byte(`
transformations:
  - name: fresh token
    condition: { method_equals: tools/call }
    action:
      set_param: { path: "$.params.arguments.message", value: "${env.REPLAY_SECRET}" }
validation:
  ignore_fields: ["result.content[*].text"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonReport, htmlReport := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	cmd := exec.Command(binary, "run", path, "--speed", "fast", "--config", cfg, "--log-level", "debug",
		"--report", jsonReport, "--report", htmlReport, "-o", "json",
		"--", "sh", "-c", `tee -a "$0" | exec "$@"`, recv, argv[0], argv[1])
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "REPLAY_SECRET="+secret)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		t.Fatalf("replay: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	r := decodeReport(t, stdout.String())
	if r.Validation.Failed != 0 || r.Validation.Passed != 5 {
		t.Errorf("passed %d failed %d, want 5 and 0", r.Validation.Passed, r.Validation.Failed)
	}
	got, err := os.ReadFile(recv)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(got), `"message":"tok-3f9a<&>\"quoted\""`); n != 2 {
		t.Errorf("the server received the secret %d times, want 2 (both tools/call):\n%s", n, got)
	}
	outputs := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
	for _, p := range []string{jsonReport, htmlReport} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outputs[filepath.Base(p)] = string(b)
	}
	for name, out := range outputs {
		for _, form := range []string{"tok-3f9a", secret} {
			if strings.Contains(out, form) {
				t.Errorf("%s contains the secret (%q)", name, form)
			}
		}
	}
}

// Without the ignore, the echoed secret differs from the recording: the
// replay fails, and the differences that would show it are redacted.
func TestSecretRedactedFromDifferences(t *testing.T) {
	const secret = "tok-77e1"
	argv := testserver.Everything(t)
	path := recordTape(t, transport.Stdio{Command: argv}, "stdio", script("echo", `{"message":"hello, replay"}`, `{"message":"second"}`))
	cfg := filepath.Join(t.TempDir(), "replay.yaml")
	if err := os.WriteFile(cfg, []byte(`
transformations:
  - condition: { method_equals: tools/call }
    action:
      set_param: { path: "$.params.arguments.message", value: "${env.REPLAY_SECRET}" }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, append([]string{"run", path, "--speed", "fast", "--config", cfg, "-o", "json", "--"}, argv...)...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "REPLAY_SECRET="+secret)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the echoed text differs)\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Echo: [redacted]") {
		t.Errorf("the difference should show the echo with the secret redacted:\n%s", stdout.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Errorf("the secret appears in the output")
	}
}
