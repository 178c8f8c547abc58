package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestVersion: `version` and `--version` print the same line from the
// build info; -o json the same fields as an object.
func TestVersion(t *testing.T) {
	text := replayctl(t, "version")
	flag := replayctl(t, "--version")
	if text.code != 0 || flag.code != 0 {
		t.Fatalf("exit %d and %d, want 0\n%s%s", text.code, flag.code, text.stderr, flag.stderr)
	}
	if !strings.HasPrefix(text.stdout, "replayctl ") || text.stdout != flag.stdout {
		t.Errorf("version printed %q and --version %q, want the same line starting replayctl", text.stdout, flag.stdout)
	}
	res := replayctl(t, "version", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	var v buildVersion
	if err := json.Unmarshal([]byte(res.stdout), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, res.stdout)
	}
	if v.Module != "github.com/replayctl/replayctl" || v.Version == "" || !strings.HasPrefix(v.GoVersion, "go") {
		t.Errorf("got %+v, want the module, a version and the Go version", v)
	}
	if v.Commit != "" && !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(v.Commit) {
		t.Errorf("commit %q, want 40 hex digits", v.Commit)
	}
	if !strings.Contains(text.stdout, v.Version) {
		t.Errorf("text %q does not name version %q", text.stdout, v.Version)
	}
	if res := replayctl(t, "version", "-o", "yaml"); res.code != 2 {
		t.Errorf("-o yaml: exit %d, want 2", res.code)
	}
}

func TestVersionString(t *testing.T) {
	for _, tc := range []struct {
		v    buildVersion
		want string
	}{
		{buildVersion{Version: "v1.2.0", GoVersion: "go1.26.8"}, "v1.2.0 go1.26.8"},
		{buildVersion{Version: "(devel)", Commit: "abc", Time: "2026-01-02T03:04:05Z", Modified: true, GoVersion: "go1.26.8"},
			"(devel) (commit abc, 2026-01-02T03:04:05Z, modified) go1.26.8"},
		{buildVersion{Version: "v0.0.0-2026-abc", Commit: "abc"}, "v0.0.0-2026-abc (commit abc)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
