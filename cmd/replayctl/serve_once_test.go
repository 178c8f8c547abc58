package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeModeOnceWithoutTape: serve --mode once that has to record
// (TAPE does not exist) fails at once, leaving no TAPE behind (which
// the next run would replay, missing everything), when its upstream is
// unreachable (exit 3, naming it) or a flag --mode record refuses is
// given (exit 2, naming the flag).
func TestServeModeOnceWithoutTape(t *testing.T) {
	dead := deadURL(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"http upstream down", []string{"--listen", "127.0.0.1:0", "--upstream", dead}, exitTarget, dead},
		{"stdio command missing", []string{"--", filepath.Join(t.TempDir(), "no-such-server")}, exitTarget, "no-such-server"},
		{"--strict", []string{"--strict", "--listen", "127.0.0.1:0", "--upstream", dead}, exitBadInput, "--strict"},
		{"--chaos", []string{"--chaos", "delay=0.1", "--", "true"}, exitBadInput, "--chaos"},
		{"--strategy", []string{"--strategy", "exact", "--", "true"}, exitBadInput, "--strategy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "once.jsonl")
			// Bounded: a serve that does not refuse serves until killed.
			ctx, cancel := context.WithTimeout(t.Context(), serveWait)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, append([]string{"serve", path, "--mode", "once"}, tc.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("serve --mode once: %v, stderr:\n%s\nwant exit %d naming %s", err, clip(stderr.String(), 3000), tc.code, tc.want)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s was left behind", path)
			}
		})
	}
}
