package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// readCounted is a tape file that counts the bytes read from it.
type readCounted struct {
	tape.File
	read *atomic.Int64
}

func (f readCounted) Open() (io.ReadSeekCloser, error) {
	r, err := f.File.Open()
	if err != nil {
		return nil, err
	}
	return countingReader{r, f.read}, nil
}

type countingReader struct {
	io.ReadSeekCloser
	read *atomic.Int64
}

func (r countingReader) Read(p []byte) (int, error) {
	n, err := r.ReadSeekCloser.Read(p)
	r.read.Add(int64(n))
	return n, err
}

// The count of a stopped run's tape keeps to its bound whatever the size
// of the tape's messages: once the time is up it reads no further than
// the message it is at (and its reader's buffer), where it read on to
// the next thousand messages (a tape of large answers, an image or a
// file's contents, is read for seconds past the bound).
func TestCountTapeStopsAtItsBound(t *testing.T) {
	const n, size = 600, 8 << 10 // 1,203 messages, 5 MB
	big := strings.Repeat("x", size)
	path := writeTape(t, t.TempDir(), n, 1000, func(int) string { return big })
	var read atomic.Int64
	src := readCounted{File: tape.File(path), read: &read}
	e, err := New(withMock(Config{Source: src, Logger: zerolog.Nop()}))
	if err != nil {
		t.Fatal(err)
	}
	if got, _, ok := e.countTape(time.Hour); !ok || got != 2*n+3 {
		t.Fatalf("within an hour: %d messages, ok %v; want %d, true", got, ok, 2*n+3)
	}
	read.Store(0)
	if got, _, ok := e.countTape(0); ok {
		t.Fatalf("with no time: %d messages, ok; want not ok", got)
	}
	if got, most := read.Load(), int64(1<<20); got > most {
		t.Errorf("with no time: read %d bytes of the tape, want at most %d (a message and a buffer)", got, most)
	}
}

// TestInterruptedRunCountsFromMock: a run stopped early reports the
// tape's count (its "on tape" figure) from what already has it, here the
// built-in mock's read of the tape, done before the replay started
// (a Shared source: read whole at once), without reading the tape again
// (the bounded re-count took up to 2 s after Ctrl-C). Reads are counted
// as opens of the tape.
func TestInterruptedRunCountsFromMock(t *testing.T) {
	const n = 5000 // 10,003 messages, 1 ms apart: 10 s at the recorded speed
	path := writeTape(t, t.TempDir(), n, 1000, nil)
	var opens atomic.Int64
	src := tape.Share(countedFile{File: tape.File(path), opens: &opens})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := New(Config{Source: src, Logger: zerolog.Nop(), Dialer: mock.FromSource(src), Target: "mock",
		Hooks: Hooks{OnResult: func(report.Result) { cancel() }}}) // stopped at the first answer judged
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want it stopped (context canceled)", err)
	}
	if rep.Summary.TotalMessages != 2*n+3 || rep.Summary.SessionsAsked != 1 {
		t.Errorf("on tape: %d messages, %d sessions asked; want %d and 1", rep.Summary.TotalMessages, rep.Summary.SessionsAsked, 2*n+3)
	}
	if got := opens.Load(); got != 1 {
		t.Errorf("the tape was opened %d times, want 1 (the mock's read, which has the count)", got)
	}
}

// TestInterruptedRunCountsFromMockStream: the same when the mock streams
// the tape to the replay (a tape file): once the mock's read has met the
// tape's end, a run stopped while its loader is far from it reports the
// tape's count from that read. The tape file is removed before the stop,
// so that a count read again could not be had (it would be the loader's
// partial one).
//
// The loader is held (holdLoad), not raced: at message heldAt until the
// mock has read the tape through, then at message stopAt until the run
// is stopped. The stop comes at the first answer judged once the mock's
// read has ended, which the calls between the two holds guarantee; the
// loader is then far from the tape's end by construction, and after the
// stop it must not take the end of the mock's halted read for the
// tape's (the 1-in-20 failure under load was that: mock's
// TestStreamTapeEndedEarlyIsNoEOF).
func TestInterruptedRunCountsFromMockStream(t *testing.T) {
	const (
		n      = 20000 // 40,003 messages, 1 ms apart: 40 s at the recorded speed
		heldAt = 100   // the loader waits here for the mock's read to end
		stopAt = 200   // and here for the run's stop
	)
	path := writeTape(t, t.TempDir(), n, 1000, nil)
	src := tape.File(path)
	m := mock.FromSource(src)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var readThrough, removed atomic.Bool
	e, err := New(Config{Source: src, Logger: zerolog.Nop(), Dialer: m, Target: "mock",
		Hooks: Hooks{OnResult: func(report.Result) {
			// Stopped at the first answer judged once the mock has read
			// the tape through.
			if !readThrough.Load() {
				return
			}
			if _, _, ok := m.TapeCount(src); !ok {
				t.Error("the mock's read had ended, but it has no count of the tape")
			}
			if !removed.Swap(true) {
				if err := os.Remove(path); err != nil {
					t.Error(err)
				}
				cancel()
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	e.holdLoad = func(runCtx context.Context, s source) source {
		return &heldSource{source: s, at: map[int64]func(){
			heldAt: func() {
				if _, ok := m.LastSeqs(runCtx, src); ok { // waits for the read's end
					readThrough.Store(true)
				}
			},
			stopAt: func() { <-runCtx.Done() },
		}}
	}
	rep, err := e.Run(ctx)
	if !errors.Is(err, context.Canceled) || !removed.Load() {
		t.Fatalf("run: %v (stopped by the test: %v), want it stopped once the mock read the tape", err, removed.Load())
	}
	if e.counters.loadedAll.Load() {
		t.Fatal("the loader counted the whole tape, held far from its end until the stop")
	}
	if rep.Summary.TotalMessages != 2*n+3 || rep.Summary.SessionsAsked != 1 {
		t.Errorf("on tape: %d messages, %d sessions asked; want %d and 1", rep.Summary.TotalMessages, rep.Summary.SessionsAsked, 2*n+3)
	}
}

// heldSource is what the loader reads, held before it gives message k
// (from 0) until at[k] returns (see Engine.holdLoad).
type heldSource struct {
	source
	at   map[int64]func()
	read int64
}

func (h *heldSource) Next() (tape.Message, error) {
	if hold := h.at[h.read]; hold != nil {
		hold()
	}
	h.read++
	return h.source.Next()
}
