package replay_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/replay"
)

// TestValidationMode: the Validation option is the default mode, as the
// config's validation.mode is: a given option overrides the file, one
// given through Defaults does not.
func TestValidationMode(t *testing.T) {
	b, err := os.ReadFile(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	// The mock answers from a tape whose sum says 43: a string still, so
	// it fails exact and passes structural.
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte(strings.Replace(string(b), "27 is 42.", "27 is 43.", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(mode string) replay.Option {
		f, err := config.Parse("v.yaml", []byte("validation:\n  mode: "+mode+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		return replay.Config(f)
	}
	for _, tc := range []struct {
		name       string
		opts       []replay.Option
		wantPassed bool
	}{
		{"default exact", nil, false},
		{"structural", []replay.Option{replay.Validation("structural")}, true},
		{"schema", []replay.Option{replay.Validation("schema")}, true},
		{"exact", []replay.Option{replay.Validation("exact")}, false},
		{"the file's structural", []replay.Option{file("structural")}, true},
		{"option over the file", []replay.Option{file("structural"), replay.Validation("exact")}, false},
		{"option over the file, either way", []replay.Option{file("exact"), replay.Validation("structural")}, true},
		{"a default under the file", []replay.Option{replay.Defaults(replay.Validation("structural")), file("exact")}, false},
		{"a default without a file", []replay.Option{replay.Defaults(replay.Validation("structural"))}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]replay.Option{replay.WithSpeed(replay.Fast()), replay.Against(replay.MockTape(other))}, tc.opts...)
			rep, err := replay.Run(t.Context(), quickstart, opts...)
			if rep == nil {
				t.Fatal(err)
			}
			if rep.Passed() != tc.wantPassed {
				t.Errorf("passed %v (%d failed), want %v", rep.Passed(), rep.Validation.Failed, tc.wantPassed)
			}
		})
	}
}
