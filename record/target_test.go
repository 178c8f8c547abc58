package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// TestAbandonDoesNotWaitForAWrite: a write that does not end (a disk
// that does not answer; here a pipe nobody reads) does not hold up
// Abandon, which says a write was under way. That write, once it can,
// ends with its whole line, after the lines before it; no write starts
// after Abandon.
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
	case <-time.After(time.Minute): // a hang's bound: abandon waits on nothing
		t.Fatal("abandon waited for the write under way")
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
