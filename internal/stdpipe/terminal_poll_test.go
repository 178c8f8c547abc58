//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package stdpipe

import (
	"bufio"
	"errors"
	"io"
	"os"
	"testing"
)

// TestEndsTerminal: Ends reads a terminal (blocking, as stdin) through a
// reader that passes its lines and that Close interrupts mid-read; the
// terminal itself stays open.
func TestEndsTerminal(t *testing.T) {
	term, ptmx := terminal(t)
	if term == nil {
		t.Skip("no pseudo-terminal")
	}
	in, _ := Ends(term, io.Discard)
	rc, ok := in.(io.ReadCloser)
	if !ok || in == io.Reader(term) || !Interruptible(in) {
		t.Fatalf("got %T (interruptible %v), want a reader Close interrupts", in, Interruptible(in))
	}
	if _, err := io.WriteString(ptmx, "hello\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(rc).ReadString('\n')
	if err != nil || line != "hello\n" {
		t.Fatalf("got %q, %v; want the line written", line, err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := rc.Read(make([]byte, 10))
		read <- err
	}()
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-read; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("a read in progress at Close got %v, want os.ErrClosed", err)
	}
	if _, err := term.Stat(); err != nil {
		t.Errorf("the terminal was closed with the reader: %v", err)
	}
}
