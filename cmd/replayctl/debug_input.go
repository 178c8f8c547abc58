package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/peterh/liner"

	"github.com/replayctl/replayctl/debug"
)

// prompt is the debugger's prompt, and the prefix of each command echoed
// when the commands come from a pipe.
const prompt = "(replayctl) "

// lineReader reads the debugger's commands one line at a time, only when
// asked: on a terminal through liner (line editing, history, Tab
// completion of commands and their arguments, Ctrl-C drops the line,
// Ctrl-D ends the input), from a pipe plainly, echoing each line after the
// prompt so that a transcript reads as a session.
//
// Between prompts the terminal does not echo and Ctrl-C is a signal
// (interrupts turns it into an interrupt of the running command); while a
// line is read Ctrl-C is a key. liner reads os.Stdin and writes
// os.Stdout: the terminal path is taken only when in and out are
// terminals.
type lineReader struct {
	terminal bool
	out      io.Writer
	ln       *liner.State
	br       *bufio.Reader

	start sync.Once
	asks  chan struct{}
	lines chan lineResult

	closeOnce sync.Once
}

type lineResult struct {
	line string
	err  error
}

func newLineReader(in io.Reader, out io.Writer) *lineReader {
	r := &lineReader{out: out, asks: make(chan struct{}), lines: make(chan lineResult)}
	_, ttyIn := terminalFile(in)
	_, ttyOut := terminalFile(out)
	if ttyIn && ttyOut {
		r.terminal = true
		r.ln = liner.NewLiner()
		r.ln.SetTabCompletionStyle(liner.TabCircular) // Tab again: the next candidate
		r.ln.SetWordCompleter(func(line string, pos int) (string, []string, string) {
			return debug.Complete(line, pos, nil)
		})
		return r
	}
	r.br = bufio.NewReaderSize(in, 64<<10)
	return r
}

// completeWith sets where the completion of break's and seek's argument
// takes its method names from. Call it before the first readLine.
func (r *lineReader) completeWith(methods func() []string) {
	if r.ln == nil {
		return
	}
	r.ln.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		return debug.Complete(line, pos, methods)
	})
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
		r.close()
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
		line, err := r.ln.Prompt(prompt)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(r.out) // Ctrl-D: end the prompt's line
		}
		if err != nil {
			return "", err
		}
		if line != "" {
			r.ln.AppendHistory(line) // liner skips a repeat of the last entry
		}
		return line, nil
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

// close gives the terminal back as it was. It may be called more than
// once.
func (r *lineReader) close() {
	if r.ln != nil {
		r.closeOnce.Do(func() { _ = r.ln.Close() })
	}
}
