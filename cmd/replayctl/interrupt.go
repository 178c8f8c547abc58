package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/replayctl/replayctl/tape"
)

// openTape opens the tape at path for a command that reads it through
// (inspect, convert): when ctx is done (Ctrl-C, SIGTERM) the file is
// closed, so that a read waiting on a pipe or FIFO returns at once
// instead of waiting for input that may never come.
func openTape(ctx context.Context, path string, opts ...tape.Option) (*tape.Reader, error) {
	return tape.OpenSource(closedOnDone{ctx: ctx, File: tape.File(path)}, opts...)
}

// closedOnDone is a tape file closed when ctx is done.
type closedOnDone struct {
	ctx context.Context
	tape.File
}

func (s closedOnDone) Open() (io.ReadSeekCloser, error) {
	f, err := os.Open(string(s.File))
	if err != nil {
		return nil, err
	}
	// An *os.File may be closed while another goroutine reads it: the
	// read returns os.ErrClosed.
	stop := context.AfterFunc(s.ctx, func() { _ = f.Close() })
	return stoppingFile{f, stop}, nil
}

// stoppingFile is a file whose Close also forgets the AfterFunc.
type stoppingFile struct {
	*os.File
	stop func() bool
}

func (f stoppingFile) Close() error {
	f.stop()
	err := f.File.Close()
	if errors.Is(err, os.ErrClosed) { // closed when ctx ended
		return nil
	}
	return err
}

// interrupted is the error of a command stopped by a signal: exit 130.
// what says what was left undone, or is empty.
func interrupted(what string) error {
	msg := "interrupted"
	if what != "" {
		msg += "; " + what
	}
	return &exitError{code: exitInterrupted, err: errors.New(msg)}
}
