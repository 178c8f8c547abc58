package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testtape"
)

// A one-line cassette over 8 MiB is read by inspect and convert with the
// default limits; --max-line takes units as the other size flags do; a
// cassette over --max-document is refused, exit 2, naming the flag.
func TestOneLineCassetteLimits(t *testing.T) {
	vcr, _ := testtape.OneLineVCR(t, 9<<20)
	if res := replayctl(t, "inspect", vcr); res.code != 0 || !strings.Contains(res.stdout, "tools/call") {
		t.Errorf("inspect: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	out := filepath.Join(t.TempDir(), "big.jsonl")
	if res := replayctl(t, "convert", vcr, out, "--max-line", "64MiB"); res.code != 0 {
		t.Errorf("convert --max-line 64MiB: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res := replayctl(t, "inspect", "--max-document", "4MiB", vcr)
	if res.code != 2 || !strings.Contains(res.stderr, "--max-document") {
		t.Errorf("inspect --max-document 4MiB: exit %d, want 2 and an error naming --max-document\n%s", res.code, res.stderr)
	}
	// diff and redact read it by the default and take the flag too.
	if res := replayctl(t, "diff", vcr, vcr); res.code != 0 {
		t.Errorf("diff: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, args := range [][]string{
		{"diff", "--max-document", "4MiB", vcr, vcr},
		{"redact", "--max-document", "4MiB", vcr, filepath.Join(t.TempDir(), "r.jsonl")},
	} {
		if res := replayctl(t, args...); res.code != 2 || !strings.Contains(res.stderr, "longer than") || !strings.Contains(res.stderr, "--max-document") {
			t.Errorf("%s: exit %d, want 2 and the limit's error naming --max-document\n%s", strings.Join(args[:3], " "), res.code, res.stderr)
		}
	}
}
