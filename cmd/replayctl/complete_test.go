package main

import (
	"slices"
	"strings"
	"testing"
)

// completions runs the shell's completion request (`replayctl __complete
// ARGS…`, as the completion scripts send it) and returns the values
// offered, descriptions cut off, and the directive line.
func completions(t *testing.T, args ...string) (values []string, directive string) {
	t.Helper()
	r := replayctl(t, append([]string{"__complete"}, args...)...)
	if r.code != 0 {
		t.Fatalf("__complete %q: exit %d\n%s", args, r.code, r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		v, _, _ := strings.Cut(line, "\t")
		values = append(values, v)
	}
	return values, directive
}

// TestCompleteFlagValues: the shell completes the values of the flags
// that take a word, and no file names for them.
func TestCompleteFlagValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--speed", ""}, []string{"realtime", "fast", "stepped", "10x", "fixed:50ms", "rps:100"}},
		{[]string{"run", "--order", ""}, []string{"causal", "sequential", "none", "random"}},
		{[]string{"run", "-o", ""}, []string{"text", "json"}},
		{[]string{"run", "--on-error", ""}, []string{"continue", "stop", "retry"}},
		{[]string{"run", "--validation", ""}, []string{"exact", "structural", "partial", "schema", "contract"}}, // contract with --contract FILE
		{[]string{"run", "--log-level", ""}, []string{"debug", "info", "warn", "error"}},
		{[]string{"--log-format", ""}, []string{"console", "json"}},
		{[]string{"debug", "x.jsonl", "--speed", ""}, []string{"fast", "realtime", "10x", "fixed:50ms", "rps:5"}},
		{[]string{"debug", "--order", ""}, []string{"causal", "sequential", "none"}},
		{[]string{"debug", "--on-error", ""}, []string{"pause", "continue"}},
		{[]string{"debug", "--validation", ""}, []string{"exact", "structural", "partial", "schema"}},
		{[]string{"shrink", "--validation", ""}, []string{"exact", "structural", "partial", "schema"}}, // no --contract to check against
		{[]string{"inspect", "-o", ""}, []string{"text", "json"}},
		{[]string{"config", "check", "-o", ""}, []string{"text", "json"}},
		{[]string{"config", "check", "--for", ""}, []string{"run", "debug"}},
		{[]string{"version", "-o", ""}, []string{"text", "json"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, directive := completions(t, tc.args...)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if directive != ":4" { // ShellCompDirectiveNoFileComp
				t.Errorf("directive %s, want :4 (no file names)", directive)
			}
		})
	}
}

// TestCompleteChaos: --chaos completes the fault kinds after the last
// comma, each with its "=" and no space, leaving out those given.
func TestCompleteChaos(t *testing.T) {
	all, directive := completions(t, "run", "--chaos", "")
	if len(all) != 16 || all[0] != "malformed=" || directive != ":6" { // NoSpace | NoFileComp
		t.Errorf("got %q %s, want the 16 kinds, malformed= first, with :6", all, directive)
	}
	got, _ := completions(t, "run", "--chaos", "drop=0.1,malformed=0.05,d")
	pre := "drop=0.1,malformed=0.05,"
	if want := []string{pre + "duplicate-id=", pre + "duplicate=", pre + "disconnect="}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, _ := completions(t, "run", "--chaos", "drop=0."); len(got) != 0 {
		t.Errorf("offered %q for a probability, want nothing", got)
	}
}

// TestCompletionCommand: cobra's completion command writes the scripts.
func TestCompletionCommand(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := replayctl(t, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, "replayctl") || !strings.Contains(r.stdout, "__complete") {
			t.Errorf("completion %s: exit %d, %d bytes; want a script that calls __complete", shell, r.code, len(r.stdout))
		}
	}
}
