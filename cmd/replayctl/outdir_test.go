package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFolders: a folder a flag names itself (--history DIR,
// --shard-reports DIR) is made when missing, and run says so; the folder
// it goes in must exist, as --report FILE's folder must: a mistyped path
// is refused before the replay (exit 2) and nothing is made. (--history
// went on, exit 0, with the run not kept: a mistake found only after the
// replay, where --report's is found before.)
func TestOutputFolders(t *testing.T) {
	for _, tc := range []struct {
		flag  string
		extra []string
		code  int // of the run under a missing folder
		want  string
	}{
		{"--history", nil, 2, "--history"},
		{"--shard-reports", []string{"--local-shards", "2"}, 2, "--shard-reports"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			base := t.TempDir()
			missing := filepath.Join(base, "no-such-folder", "out")
			args := append([]string{"run", "examples/quickstart.jsonl", "--speed", "fast", "-q", tc.flag, missing}, tc.extra...)
			res := replayctl(t, args...)
			if res.code != tc.code || !strings.Contains(res.stderr, tc.want) || !strings.Contains(res.stderr, filepath.Join(base, "no-such-folder")+" does not exist") {
				t.Errorf("%s under a missing folder: exit %d, want %d, %q and the missing folder named:\n%s", tc.flag, res.code, tc.code, tc.want, res.stderr)
			}
			if strings.Contains(res.stderr, "run not kept") || strings.Contains(res.stderr, "makes out in it") {
				t.Errorf("%s under a missing folder: refused after the replay, or said oddly:\n%s", tc.flag, res.stderr)
			}
			if _, err := os.Stat(filepath.Join(base, "no-such-folder")); err == nil {
				t.Errorf("%s made the missing folder above the one it names", tc.flag)
			}
			made := filepath.Join(base, "out")
			args = append([]string{"run", "examples/quickstart.jsonl", "--speed", "fast", "-q", tc.flag, made}, tc.extra...)
			res = replayctl(t, args...)
			if res.code != 0 || !strings.Contains(res.stderr, "created the folder "+made) {
				t.Errorf("%s DIR in an existing folder: exit %d, want 0 and a note that it made DIR:\n%s", tc.flag, res.code, res.stderr)
			}
			if fi, err := os.Stat(made); err != nil || !fi.IsDir() {
				t.Errorf("%s did not make %s: %v", tc.flag, made, err)
			}
		})
	}
}
