package record_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/replayctl/replayctl/record"
)

// TestRecorderFileGoneOnceRemoved: File names the file a recording
// writes only while it is on disk. An HTTP recording whose listener
// fails removes the file it created, and one KeepIf refuses is removed
// once it has ended; File is then "", so that a second Ctrl-C, which
// says what File names and may remove it (replayctl record), neither
// reports a file that is gone nor touches another process's tape made
// at the same path since.
func TestRecorderFileGoneOnceRemoved(t *testing.T) {
	refused := errors.New("no listener")
	for _, tc := range []struct {
		name      string
		overwrite bool
		listen    bool // else the listener fails
	}{
		{name: "listener fails", listen: false},
		{name: "listener fails, overwrite", overwrite: true, listen: false},
		{name: "refused by KeepIf", listen: true},
		{name: "refused by KeepIf, overwrite", overwrite: true, listen: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			const old = "the old tape\n"
			if tc.overwrite {
				if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var r *record.Recorder
			var during string // File while the recording runs
			opts := []record.RecorderOption{
				record.Upstream("http://127.0.0.1:1/mcp"),
				record.KeepIf(func(record.Result, error) bool { return false }),
				record.WithListener(func() (net.Listener, error) {
					during = r.File()
					if !tc.listen {
						return nil, refused
					}
					return net.Listen("tcp", "127.0.0.1:0")
				}),
				record.OnListening(func(net.Addr, string) { cancel() }),
			}
			if tc.overwrite {
				opts = append(opts, record.Overwrite())
			}
			r, err := record.New(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Run(ctx)
			if !tc.listen && !errors.Is(err, refused) {
				t.Fatalf("Run: %v, want the listener's error", err)
			}
			if during == "" {
				t.Fatal("File was \"\" while the recording ran, want its file")
			}
			if _, serr := os.Stat(during); !errors.Is(serr, os.ErrNotExist) {
				t.Fatalf("the recording's file %s is still there (%v), want it removed", during, serr)
			}
			if got := r.File(); got != "" {
				t.Errorf("File() = %q once its file was removed, want \"\"", got)
			}
			if tc.overwrite {
				if b, _ := os.ReadFile(path); string(b) != old {
					t.Errorf("the old tape holds %q, want it as it was", b)
				}
			}
		})
	}
}
