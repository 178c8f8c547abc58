package record_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/record"
)

// TestRecorderOverwriteKeepIf: with Overwrite a stdio recording is
// written beside the existing tape (KeepIf sees that file, not the
// tape) and renamed over it only when KeepIf keeps it; refused, it is
// removed and the old tape is as it was, with nothing left beside it.
func TestRecorderOverwriteKeepIf(t *testing.T) {
	const old = `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}` + "\n"
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	answer := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"new","version":"0"}}}`
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "refused", true: "kept"}[keep], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			var seen string
			r, err := record.New(path, record.Overwrite(),
				record.Command("sh", "-c", "read l; echo '"+answer+"'"),
				record.Client(io.NopCloser(strings.NewReader(initialize+"\n")), io.Discard),
				record.KeepIf(func(res record.Result, err error) bool {
					seen = res.Path
					return keep
				}))
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(t.Context())
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if seen == path || filepath.Dir(seen) != filepath.Dir(path) || !strings.HasPrefix(filepath.Base(seen), "t.recording-") || filepath.Ext(seen) != ".jsonl" {
				t.Errorf("KeepIf saw %s; want a new file beside %s (t.recording-*.jsonl)", seen, path)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !keep && (string(got) != old || !res.Discarded || res.Created):
				t.Errorf("refused: the tape is %q, result %+v; want it as it was, discarded", got, res)
			case keep && (!strings.Contains(string(got), `"name":"new"`) || res.Discarded || !res.Created || res.Path != path):
				t.Errorf("kept: the tape is %q, result %+v; want the new recording at %s", got, res, path)
			}
			if names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(names) != 1 {
				t.Errorf("the folder holds %q; want the tape only", names)
			}
		})
	}
}
