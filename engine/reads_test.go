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

// TestMockTapeReadOnce: a replay against the built-in mock answering
// from the replayed tape reads that tape once: the mock's index reads it
// and hands its messages to the replay, which does not open it again;
// where each session ends comes from the mock's index too (issue 24).
// Sessions still end at their last message: every answer is judged, and
// the run ends. With several copies of each session the tape is read
// once too.
func TestMockTapeReadOnce(t *testing.T) {
	const n = 5000 // 10,003 messages: more than one chunk of the mock's
	path := writeTape(t, t.TempDir(), n, 1000, nil)
	var opens atomic.Int64
	src := tape.Share(countedFile{File: tape.File(path), opens: &opens})
	rep, err := replay(t, Config{Source: src, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop(),
		Dialer: mock.FromSource(src), Target: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Validation.Passed != n+1 || rep.Validation.Failed != 0 {
		t.Fatalf("passed %d failed %d, want %d and 0", rep.Validation.Passed, rep.Validation.Failed, n+1)
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("the tape was opened %d times, want 1 (the mock's index, which the replay reads from)", n)
	}

	opens.Store(0)
	src = tape.Share(countedFile{File: tape.File(path), opens: &opens})
	rep, err = replay(t, Config{Source: src, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop(),
		Dialer: mock.FromSource(src), Target: "mock", Sessions: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Validation.Passed != 3*(n+1) || rep.Validation.Failed != 0 {
		t.Fatalf("3 copies: passed %d failed %d, want %d and 0", rep.Validation.Passed, rep.Validation.Failed, 3*(n+1))
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("3 copies: the tape was opened %d times, want 1", n)
	}
}
