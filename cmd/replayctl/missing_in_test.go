package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImportMissingInput: a missing IN of import, convert and redact is
// said as a missing tape is, "cannot open it (…): check the path"; it was
// "import: IN nosuch.har: no such file or directory".
func TestImportMissingInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "nosuch.har")
	for _, command := range []string{"import", "convert", "redact"} {
		res := replayctl(t, command, in, filepath.Join(dir, "out.jsonl"))
		want := command + ": IN " + in + ": cannot open it (no such file or directory): check the path"
		if res.code != 2 || !strings.Contains(res.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", command, res.code, res.stderr, want)
		}
	}
}
