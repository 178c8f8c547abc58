package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// onTerminal runs the binary on a pseudo-terminal (util-linux script:
// stdout and stderr both go to it) with env added, and returns what the
// terminal showed. It skips the test where script is not installed.
func onTerminal(t *testing.T, env []string, args ...string) string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give the binary a terminal")
	}
	quoted := []string{binary}
	for _, a := range args {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	cmd := exec.Command(script, "-qec", strings.Join(quoted, " "), "/dev/null")
	cmd.Dir = "../.."
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "NO_COLOR=") }), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestNoColor: on a terminal the summary and the logs are coloured;
// NO_COLOR set to any non-empty value leaves them plain, and an empty
// NO_COLOR does not count. (debug's: TestNoColorDebug.)
// sgr matches a colour escape.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func TestNoColor(t *testing.T) {
	// A recorded answer that is not JSON-RPC: a warning in the logs.
	b, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tapePath := t.TempDir() + "/odd.jsonl"
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[len(lines)-1] = `{"type":"message","seq":18,"t_us":1900000,"session":"s1","dir":"s2c","msg":{"odd":true}}` // for the end line
	odd := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(tapePath, []byte(odd), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", tapePath, "--speed", "fast"}
	for _, tc := range []struct {
		env       []string
		wantColor bool
	}{
		{nil, true},
		{[]string{"NO_COLOR="}, true},
		{[]string{"NO_COLOR=1"}, false},
		{[]string{"NO_COLOR=false"}, false},
	} {
		t.Run(strings.Join(tc.env, ","), func(t *testing.T) {
			out := onTerminal(t, tc.env, args...)
			if !strings.Contains(out, "PASS") || !strings.Contains(out, "not valid JSON-RPC") {
				t.Fatalf("no summary or warning on the terminal:\n%s", out)
			}
			// Colour is an SGR sequence (ESC [ … m); the progress line's
			// erase-to-end (ESC [ K) is not colour.
			if got := sgr.MatchString(out); got != tc.wantColor {
				t.Errorf("colour on the terminal: got %v, want %v\n%q", got, tc.wantColor, out)
			}
		})
	}
}
