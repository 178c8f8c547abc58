package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"sync"
	"syscall"

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

// rewriteTape reads the tape in (a file, or "-"/a pipe read into memory
// first) and has write turn it into the tape out, stopping on ctx: a file
// being read is closed when ctx ends, so that a signal stops a read in
// progress, and an interrupted rewrite is exit 130 saying out was not
// written (write must write out atomically). It returns the reader, for
// its format and warnings; the caller closes it.
func (a *app) rewriteTape(ctx context.Context, in, out string, tapeOpts []tape.Option, write func(context.Context, *tape.Reader) error) (*tape.Reader, error) {
	notWritten := func(err error) error {
		if ctx.Err() != nil {
			return interrupted(out + " was not written")
		}
		return err
	}
	src, err := a.loadTapeArg(ctx, in)
	if err != nil {
		return nil, notWritten(err)
	}
	if f, ok := src.(tape.File); ok {
		src = closedOnDone{ctx: ctx, File: f}
	}
	r, err := tape.OpenSource(src, tapeOpts...)
	if err != nil {
		return nil, notWritten(err)
	}
	if err := write(ctx, r); err != nil {
		r.Close()
		return nil, notWritten(err)
	}
	return r, nil
}

// refuseExisting keeps a file the user has: out, the output name names
// (OUT, or the flag that gives it), is written only when it does not
// exist yet, or with --force; never over a directory.
func refuseExisting(command, name, out string, force bool) error {
	fi, err := os.Stat(out)
	if err == nil && fi.IsDir() {
		return usageError("%s: %s %s is a directory: give a file name", command, name, out)
	}
	if force {
		return nil
	}
	if _, err := os.Lstat(out); err == nil {
		return usageError("%s: %s %s exists; pass --force to overwrite it, or choose another %s", command, name, out, name)
	}
	return nil
}

// sameFile reports whether the paths a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// swappedArgs is err, the failure to read the input in, or, when OUT
// is a tape replayctl can read, a usage error that says the arguments
// look swapped.
func swappedArgs(command, in, out string, err error) error {
	if out == "-" || in == out {
		return err
	}
	r, oerr := tape.Open(out)
	if oerr != nil {
		return err
	}
	r.Close()
	return usageError("%v; %s is a tape: the arguments look swapped: %s takes the tape first, OUT second", err, out, command)
}

// inputMissing is the usage error of command's input in that os.Stat
// failed with err, said as a missing tape is ("cannot open it (no such
// file or directory): check the path").
func inputMissing(command, in string, err error) error {
	why := err
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		why = pe.Err // the path is said once
	}
	return usageError("%s: IN %s: cannot open it (%v): check the path", command, in, why)
}

// forceOnSecondSignal arranges, for a command that may take a while to
// stop (serve, record), that once ctx is done (the first SIGINT or
// SIGTERM) a second one ends the process at once with exit 130, saying
// so and what it leaves undone (the text left returns then). It returns
// the function to call once the command has stopped. Only the process's
// own app does this (see app.isMain).
func (a *app) forceOnSecondSignal(ctx context.Context, left func() string) (stopped func()) {
	return a.forceOnSecondSignalSaying(ctx, nil, left)
}

// forceOnSecondSignalSaying is forceOnSecondSignal with what is said at
// the first signal: first's text when it returns one ("the client
// ended"), else "stopping".
func (a *app) forceOnSecondSignalSaying(ctx context.Context, first, left func() string) (stopped func()) {
	if !a.isMain {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		what := "stopping (a second Ctrl-C or SIGTERM stops at once)"
		if first != nil {
			if w := first(); w != "" {
				what = w + " (another signal stops at once)"
			}
		}
		fmt.Fprintln(a.errOut, what)
		select {
		case <-done:
		case s := <-sig:
			msg := fmt.Sprintf("replayctl: %s again: stopped at once, without finishing", s)
			if l := left(); l != "" {
				msg += "; " + l
			}
			fmt.Fprintln(a.errOut, msg+" (exit 130)")
			os.Exit(exitInterrupted)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
