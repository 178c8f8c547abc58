package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestTargetsThatSendTooMuch: each way a target can send more than a
// message should be — a stdout line without end, an HTTP body without
// end, a gzip bomb, an SSE data line without end, a 100 MB answer — fails
// the target (exit 3) with an error that names the limit and the flag,
// and the replayer's memory stays far below what was sent.
func TestTargetsThatSendTooMuch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	tp := callTape(t, 1)
	cases := []struct {
		name string
		args []string
	}{
		{"stdio line without end", append([]string{"--"}, testserver.Slow(t, "-hang", "endless")...)},
		{"stdio answer of 100 MB", append([]string{"--"}, testserver.Slow(t, "-size", "100000000")...)},
		{"HTTP body without end", []string{"--target", testserver.SlowHTTP(t, "-hang", "endless")}},
		{"HTTP gzip bomb", []string{"--target", testserver.SlowHTTP(t, "-hang", "gzip-bomb")}},
		{"SSE data line without end", []string{"--target", testserver.SlowHTTP(t, "-hang", "sse-endless")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, rss := measured(t, append([]string{"run", tp, "--speed", "fast"}, tc.args...)...)
			if res.code != 3 {
				t.Errorf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			for _, want := range []string{"longer than the limit", "16 MiB", "--max-message"} {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
				}
			}
			t.Logf("peak RSS %d MB", rss>>20)
			if rss > 256<<20 {
				t.Errorf("peak RSS %d MB, want under 256 MB: the message was read past the limit", rss>>20)
			}
		})
	}
}

// TestHugeAnswerUnderARaisedLimit: --max-message lets a 100 MB answer in;
// it differs from the recorded one, and stdout and the report files keep
// an excerpt of it with its size, not the answer.
func TestHugeAnswerUnderARaisedLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	tp := callTape(t, 1)
	dir := t.TempDir()
	jsonPath, htmlPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	res, rss := measured(t, append([]string{"run", tp, "--speed", "fast", "--max-message", "128MiB", "-o", "json", "--report", jsonPath, "--report", htmlPath, "--"},
		testserver.Slow(t, "-size", "100000000")...)...)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (the answer differs)\nstderr:\n%s", res.code, res.stderr)
	}
	r := decodeReport(t, res.stdout)
	if len(res.stdout) > 64<<10 || r.Validation.Failed != 1 {
		t.Errorf("stdout: %d bytes, %d failed; want a report of a few KB with the one failure", len(res.stdout), r.Validation.Failed)
	}
	d := r.Validation.Failures[0].Differences[0]
	var s string
	if err := json.Unmarshal(d.Actual, &s); err != nil || !strings.HasPrefix(s, "xxx") || !strings.HasSuffix(s, "… (100000002 bytes)") {
		t.Errorf("actual: got %.60s…, want an excerpt that says its size", d.Actual)
	}
	for _, p := range []string{jsonPath, htmlPath} {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 64<<10 {
			t.Errorf("%s: %v, want a report of a few KB", p, err)
		}
	}
	// Before the limit and the excerpts, this replay took 815 MB: the
	// answer was copied whole into stdout and the report.
	t.Logf("peak RSS %d MB", rss>>20)
	if rss > 640<<20 {
		t.Errorf("peak RSS %d MB, want under 640 MB for a 100 MB answer", rss>>20)
	}
}

func TestMaxMessageFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "examples/quickstart.jsonl", "--speed", "fast", "--max-message", "0"}, 2, "at least 1 byte"},
		{[]string{"run", "examples/quickstart.jsonl", "--speed", "fast", "--max-message", "12x"}, 2, "not a size"},
		{[]string{"debug", "examples/quickstart.jsonl", "--max-message", "-5"}, 2, "at least 1 byte"},
		{[]string{"run", "examples/quickstart.jsonl", "--speed", "fast", "--max-message", "64KiB"}, 0, "PASS"},
	} {
		res := replayctl(t, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stdout+res.stderr, tc.want) {
			t.Errorf("replayctl %s: exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), res.code, tc.code, tc.want, res.stdout, res.stderr)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"16777216", 16 << 20}, {"16MiB", 16 << 20}, {"16 mib", 16 << 20}, {"512KiB", 512 << 10},
		{"1GiB", 1 << 30}, {"20MB", 20_000_000}, {"500kB", 500_000}, {"7B", 7},
		{"", -1}, {"0", -1}, {"-1MiB", -1}, {"1.5MiB", -1}, {"MiB", -1}, {"9999999999999GiB", -1},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != (tc.want < 0) || (err == nil && got != tc.want) {
			t.Errorf("parseSize(%q): got %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in    string
		least int64
		want  string
	}{{"0", 1, "want at least 1 byte"}, {"-1", 0, "want at least 0 bytes"}} {
		if _, err := parseSizeFrom(tc.in, tc.least); err == nil || err.Error() != tc.want {
			t.Errorf("parseSizeFrom(%q, %d): %v, want %q", tc.in, tc.least, err, tc.want)
		}
	}
	b := byteSize(16 << 20)
	if s := b.String(); s != "16MiB" {
		t.Errorf("String: got %q, want 16MiB", s)
	}
}
