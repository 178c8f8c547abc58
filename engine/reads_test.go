package engine

import (
	"io"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// countedFile is a tape file that counts its opens.
type countedFile struct {
	tape.File
	opens *atomic.Int64
}

func (f countedFile) Open() (io.ReadSeekCloser, error) {
	f.opens.Add(1)
	return f.File.Open()
}

// TestMockTapeReadTwice: a replay against the built-in mock answering
// from the replayed tape reads that tape twice, the replay's reader and
// the mock's index; where each session ends comes from the mock's index,
// not from a third read (issue 24). Sessions still end at their last
// message: every answer is judged, and the run ends.
func TestMockTapeReadTwice(t *testing.T) {
	path := writeTape(t, t.TempDir(), 50, 1000, nil)
	var opens atomic.Int64
	src := tape.Share(countedFile{File: tape.File(path), opens: &opens})
	rep, err := replay(t, Config{Source: src, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop(),
		Dialer: mock.FromSource(src), Target: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Validation.Passed != 51 || rep.Validation.Failed != 0 {
		t.Fatalf("passed %d failed %d, want 51 and 0", rep.Validation.Passed, rep.Validation.Failed)
	}
	if n := opens.Load(); n != 2 {
		t.Errorf("the tape was opened %d times, want 2 (the replay, the mock's index)", n)
	}
}
