package engine

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// TestMockTapeErrorMidway: a replay against the built-in mock of a tape
// with a bad line in its middle (the mock streams the tape to the
// replay, see openTape) fails with the tape's own error, its file and
// line, as a plain reader of the tape finds it, after the messages
// before it.
func TestMockTapeErrorMidway(t *testing.T) {
	path := writeTape(t, t.TempDir(), 2000, 10, nil)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const bad = 3001
	lines := strings.SplitAfter(string(body), "\n")
	lines = slices.Insert(lines, bad-1, "{\"type\":\"message\",\"seq\":\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := tape.OpenSource(tape.File(path))
	if err != nil {
		t.Fatal(err)
	}
	var want error
	for want == nil {
		_, want = r.Next()
	}
	r.Close()

	_, err = replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}})
	var te *tape.Error
	if !errors.As(err, &te) || te.Path != path || te.Line != bad || err.Error() != want.Error() {
		t.Errorf("replay: %v, want the tape's error at %s line %d: %v", err, path, bad, want)
	}
}
