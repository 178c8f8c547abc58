package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// prompt is the debugger's prompt, and the prefix of each command echoed
// when the commands come from a pipe.
const prompt = "(replayctl) "

// lineReader reads the debugger's commands one line at a time, only when
// asked: on a terminal through x/term's Terminal (line editing, history;
// raw mode only while a line is read), from a pipe plainly, echoing each
// line after the prompt so that a transcript reads as a session.
type lineReader struct {
	terminal bool
	out      io.Writer
	fd       int
	t        *term.Terminal
	br       *bufio.Reader

	start sync.Once
	asks  chan struct{}
	lines chan lineResult

	mu  sync.Mutex  // guards raw: the reading goroutine sets it, close restores it
	raw *term.State // the state to restore while in raw mode
}

type lineResult struct {
	line string
	err  error
}

func newLineReader(in io.Reader, out io.Writer) *lineReader {
	r := &lineReader{out: out, asks: make(chan struct{}), lines: make(chan lineResult)}
	fin, okIn := in.(*os.File)
	fout, okOut := out.(*os.File)
	if okIn && okOut && isatty.IsTerminal(fin.Fd()) && isatty.IsTerminal(fout.Fd()) {
		r.terminal = true
		r.fd = int(fin.Fd())
		r.t = term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{ctrlC{fin}, fout}, prompt)
		return r
	}
	r.br = bufio.NewReaderSize(in, 64<<10)
	return r
}

// writer is where the debugger prints.
func (r *lineReader) writer() io.Writer { return r.out }

// readLine reads the next line. It returns io.EOF at the end of input
// (Ctrl-D on a terminal), or ctx.Err(); the line being read then is lost.
func (r *lineReader) readLine(ctx context.Context) (string, error) {
	r.start.Do(func() {
		go r.serve() // a blocked read cannot be cancelled: it lives as long as the input
	})
	select {
	case r.asks <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case res := <-r.lines:
		return res.line, res.err
	case <-ctx.Done():
		r.restore()
		return "", ctx.Err()
	}
}

// serve reads one line per ask, until the end of the input.
func (r *lineReader) serve() {
	for range r.asks {
		line, err := r.read()
		r.lines <- lineResult{line, err} // readLine waits for it, or the process is ending
		if err != nil {
			return
		}
	}
}

func (r *lineReader) read() (string, error) {
	if r.terminal {
		state, err := term.MakeRaw(r.fd)
		if err != nil {
			return "", fmt.Errorf("terminal: %w", err)
		}
		r.mu.Lock()
		r.raw = state
		r.mu.Unlock()
		if w, h, err := term.GetSize(r.fd); err == nil && w > 0 && h > 0 {
			_ = r.t.SetSize(w, h)
		}
		line, err := r.t.ReadLine()
		r.restore()
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(r.out) // Ctrl-D: end the prompt's line
		}
		return line, err
	}
	line, err := r.br.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		return "", err
	}
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	fmt.Fprintf(r.out, "%s%s\n", prompt, line)
	return line, nil
}

// restore leaves raw mode, if the terminal is in it.
func (r *lineReader) restore() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.raw != nil {
		_ = term.Restore(r.fd, r.raw)
		r.raw = nil
	}
}

// close restores the terminal.
func (r *lineReader) close() { r.restore() }

// ctrlC is the terminal's input with Ctrl-C made Ctrl-U (erase the line):
// x/term's Terminal ends the input on Ctrl-C as on Ctrl-D, and at the
// prompt Ctrl-C should only drop what was typed (Ctrl-D or quit end the
// session).
type ctrlC struct{ r io.Reader }

func (c ctrlC) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == 0x03 {
			p[i] = 0x15
		}
	}
	return n, err
}
