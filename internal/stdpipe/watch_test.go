package stdpipe

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWatch: a watched reader says when its input ended, and is as
// Interruptible as what it wraps (Ends' copy of a pipe is; a reader without
// Close is not), with that reader's Close.
func TestWatch(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	pipe, _ := Ends(pr, nil)
	defer pipe.(io.Closer).Close()
	for _, tc := range []struct {
		name          string
		in            io.Reader
		interruptible bool
	}{
		{"Ends' copy of a pipe", pipe, Interruptible(pipe)},
		{"an io.Pipe", func() io.Reader { r, _ := io.Pipe(); return r }(), true},
		{"a reader without Close", strings.NewReader("x"), false},
		{"a closer of no known kind", io.NopCloser(strings.NewReader("x")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Watch(tc.in, func() {})
			if got := Interruptible(w); got != tc.interruptible {
				t.Errorf("Interruptible %v, want %v", got, tc.interruptible)
			}
			_, isCloser := w.(io.Closer)
			_, wasCloser := tc.in.(io.Closer)
			if isCloser != wasCloser {
				t.Errorf("io.Closer %v, want %v (as what it wraps)", isCloser, wasCloser)
			}
		})
	}

	ended := 0
	w := Watch(pipe, func() { ended++ })
	if _, err := pw.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	b, err := io.ReadAll(w)
	if string(b) != "line\n" || err != nil || ended != 1 {
		t.Errorf("read %q (%v), ended %d times; want the line, then its end once", b, err, ended)
	}
	// Close ends a read in progress: the pipe's Close is the watched one's.
	pr2, pw2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr2.Close()
	defer pw2.Close() // a read Close failed to end ends then, with EOF
	in2, _ := Ends(pr2, nil)
	w2 := Watch(in2, func() {})
	read := make(chan error, 1)
	go func() {
		_, err := w2.Read(make([]byte, 1))
		read <- err
	}()
	waitParked(t, "stdpipe.(*watched).Read", "IO wait")
	if err := w2.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-read:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("a read in progress ended with %v at Close, want os.ErrClosed", err)
		}
	case <-time.After(time.Minute): // a hang's bound
		t.Fatal("a read in progress did not end at Close")
	}
}

// waitParked returns once a goroutine whose stack holds fn is parked,
// its state starting with one of states ("IO wait": in Go's poller,
// waiting for its descriptor; "syscall": in a system call); it fails t
// after a minute. It looks at every goroutine's stack until then
// (runtime.Stack), yielding in between.
func waitParked(t *testing.T, fn string, states ...string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(time.Minute) // a hang's bound
	for {
		all := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(all, "\n\n") {
			header, _, _ := strings.Cut(g, "\n")
			for _, state := range states {
				if strings.Contains(header, "["+state) && strings.Contains(g, fn) {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine in %s parked in %q after a minute; the goroutines:\n%s", fn, states, all)
		}
		runtime.Gosched()
	}
}
