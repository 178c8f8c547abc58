package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// heldWriter is a file whose writes wait until the test releases them.
type heldWriter struct {
	release chan struct{} // closed: the writes go on
	once    sync.Once
	buf     bytes.Buffer
}

// newHeldWriter is a heldWriter released when t ends at the latest (a
// write left held would keep t's bubble from ending).
func newHeldWriter(t *testing.T) *heldWriter {
	h := &heldWriter{release: make(chan struct{})}
	t.Cleanup(h.free)
	return h
}

// free releases the writes held and those to come.
func (h *heldWriter) free() { h.once.Do(func() { close(h.release) }) }

func (h *heldWriter) Write(p []byte) (int, error) {
	<-h.release
	return h.buf.Write(p)
}

// startHeldWrite starts writing line through w, whose file is held up,
// and returns once that write is under way (held); the write's error
// comes on the channel returned once the file is released.
func startHeldWrite(w *targetWriter, line string) <-chan error {
	wrote := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte(line))
		wrote <- err
	}()
	synctest.Wait()
	return wrote
}

// TestAbandonWaitsForAnOrdinaryWrite: a write under way when Abandon
// comes (steady traffic, or a stop writing its end line), on a disk
// that answers, is waited for: it ends with its whole line, and abandon
// then says no write is under way (nothing more comes), without waiting
// for its bound.
func TestAbandonWaitsForAnOrdinaryWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := &target{path: "t.jsonl", file: "t.jsonl"}
		hw := newHeldWriter(t)
		w := &targetWriter{t: tg, f: hw}
		wrote := startHeldWrite(w, "line 1\n")

		type abandoned struct {
			file    string
			writing bool
		}
		start := time.Now()
		done := make(chan abandoned, 1)
		go func() {
			file, writing := tg.abandon()
			done <- abandoned{file, writing}
		}()
		synctest.Wait() // abandon waits for the write
		select {
		case a := <-done:
			t.Fatalf("abandon returned (file %q, writing %v) while an ordinary write was under way, want it to wait for that write", a.file, a.writing)
		default:
		}
		hw.free() // the disk answers
		a := <-done
		if a.file != "t.jsonl" || a.writing {
			t.Errorf("abandon: file %q, writing %v; want t.jsonl, false", a.file, a.writing)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("abandon waited %v of the bubble's clock, want 0 (until the write ended, not its bound %v)", waited, stuckAfter)
		}
		if err := <-wrote; err != nil {
			t.Errorf("the write under way: %v", err)
		}
		if _, err := w.Write([]byte("line 2\n")); !errors.Is(err, errAbandoned) {
			t.Errorf("a write after abandon: %v, want errAbandoned", err)
		}
		if got := hw.buf.String(); got != "line 1\n" {
			t.Errorf("the file holds %q, want the line under way whole, and nothing after", got)
		}
	})
}

// TestAbandonCallsAHeldWriteStuck: a write that does not end (a disk
// that does not answer) holds abandon up stuckAfter and no longer; it
// says the write is under way. Released later, that write ends whole.
func TestAbandonCallsAHeldWriteStuck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := &target{path: "t.jsonl", file: "t.jsonl"}
		hw := newHeldWriter(t)
		w := &targetWriter{t: tg, f: hw}
		wrote := startHeldWrite(w, "line 1\n")

		start := time.Now()
		file, writing := tg.abandon()
		if file != "t.jsonl" || !writing {
			t.Errorf("abandon: file %q, writing %v; want t.jsonl, true", file, writing)
		}
		if waited := time.Since(start); waited != stuckAfter {
			t.Errorf("abandon waited %v of the bubble's clock, want its bound %v", waited, stuckAfter)
		}
		// A second abandon (a third Ctrl-C) waits for the same write.
		if _, writing := tg.abandon(); !writing {
			t.Error("a second abandon: writing false, want true (the write is still held)")
		}

		hw.free()
		if err := <-wrote; err != nil {
			t.Errorf("the write under way: %v", err)
		}
		if got := hw.buf.String(); got != "line 1\n" {
			t.Errorf("the file holds %q, want the held line whole", got)
		}
		if _, writing := tg.abandon(); writing {
			t.Error("abandon once the write has ended: writing true, want false")
		}
	})
}

// TestAbandonDoesNotWaitForAWrite: a write that does not end (a disk
// that does not answer; here a real pipe nobody reads) holds up Abandon
// no longer than its bound, and Abandon says a write is under way. That
// write, once it can, ends with its whole line, after the lines before
// it; no write starts after Abandon.
func TestAbandonDoesNotWaitForAWrite(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	tg := &target{path: "t.jsonl", file: "t.jsonl"}
	w := tg.writer(pw)
	first := []byte("line 1\n")
	// Longer than a pipe holds (64 KiB on Linux, less elsewhere): its
	// write waits for a reader.
	stuck := append(bytes.Repeat([]byte("x"), 1<<20), '\n')

	if _, err := w.Write(first); err != nil {
		t.Fatal(err)
	}
	if file, writing := tg.abandonPeek(); file != "t.jsonl" || writing {
		t.Fatalf("before the write: file %q, writing %v; want t.jsonl, false", file, writing)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := w.Write(stuck)
		wrote <- err
	}()
	// The write is under way once the reader sees its first byte (the
	// first line is read before it).
	got := make([]byte, len(first)+1)
	if _, err := io.ReadFull(pr, got); err != nil {
		t.Fatal(err)
	}

	type abandoned struct {
		file    string
		writing bool
	}
	done := make(chan abandoned, 1)
	go func() {
		file, writing := tg.abandon()
		done <- abandoned{file, writing}
	}()
	var a abandoned
	select {
	case a = <-done:
	case <-time.After(time.Minute): // a hang's bound: abandon waits stuckAfter at most
		t.Fatal("abandon waited for the write under way past its bound")
	}
	if a.file != "t.jsonl" || !a.writing {
		t.Errorf("abandon: file %q, writing %v; want t.jsonl, true", a.file, a.writing)
	}

	// The reader comes back: the write under way ends whole, in order;
	// the next one is refused and writes nothing.
	rest := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(pr)
		rest <- b
	}()
	if err := <-wrote; err != nil {
		t.Errorf("the write under way: %v", err)
	}
	if _, err := w.Write([]byte("line 3\n")); !errors.Is(err, errAbandoned) {
		t.Errorf("a write after abandon: %v, want errAbandoned", err)
	}
	pw.Close()
	all := append(got, <-rest...)
	if want := append(append([]byte{}, first...), stuck...); !bytes.Equal(all, want) {
		t.Errorf("the pipe got %d bytes, want %d: the first line, then the stuck one whole, and nothing after", len(all), len(want))
	}
}

// abandonPeek is what abandon would return, without abandoning.
func (t *target) abandonPeek() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.file, t.writing
}
