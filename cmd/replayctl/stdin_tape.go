package main

import (
	"context"
	"fmt"

	"github.com/replayctl/replayctl/tape"
)

// stdinTape is the name a tape read from stdin ("-") goes by in errors
// and reports.
const stdinTape = "stdin"

// loadTapeArg is loadTape for a command's TAPE argument: "-" is the tape
// on stdin, read whole into memory first (up to tape.MaxInMemory), as a
// replay opens its tape more than once; given up when ctx is done.
func (a *app) loadTapeArg(ctx context.Context, path string) (tape.Source, error) {
	if path != "-" {
		return loadTape(ctx, path)
	}
	type loaded struct {
		src tape.Source
		err error
	}
	done := make(chan loaded, 1)
	go func() { // a blocked read cannot be cancelled
		src, err := tape.ReadSource(stdinTape, a.stdin)
		done <- loaded{src, err}
	}()
	select {
	case l := <-done:
		return l.src, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("tape on stdin: interrupted while reading it (it is read whole before anything else; has its writer finished?): %w", ctx.Err())
	}
}

// openTapeArg is openTape for a command's TAPE argument, "-" being the
// tape on stdin (loadTapeArg).
func (a *app) openTapeArg(ctx context.Context, path string, opts ...tape.Option) (*tape.Reader, error) {
	if path != "-" {
		return openTape(ctx, path, opts...)
	}
	src, err := a.loadTapeArg(ctx, path)
	if err != nil {
		return nil, err
	}
	return tape.OpenSource(src, opts...)
}

// refuseStdinTape refuses "-" as the tape of a command that reads
// something else on stdin (why).
func refuseStdinTape(command, path, why string) error {
	if path == "-" {
		return usageError("%s: the tape cannot come from stdin (-) here: %s; give it as a file", command, why)
	}
	return nil
}
