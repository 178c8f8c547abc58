package main

import (
	"fmt"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tracefile"
)

// traceOut is --out trace=FILE: the run's events kept in memory and
// written as a trace when the replay has ended, atomically (a reader
// never sees half a file, and FILE is untouched when nothing ran).
type traceOut struct {
	spec string
	f    *atomicfile.File
	t    *tracefile.Trace
}

// openTrace starts --out trace=FILE: the temporary file is created now,
// so that a folder that cannot be written is bad usage before the
// replay.
func (o *eventOuts) openTrace(spec, path string, buffer int) (replay.Option, error) {
	if path == "-" {
		return nil, usageError("--out %q: a trace is written whole at the end of the run: give a file, trace=FILE", spec)
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, usageError("--out %q: %w (give a file in a folder that can be written)", spec, err)
	}
	t := traceOut{spec: spec, f: f, t: tracefile.New()}
	o.traces = append(o.traces, t)
	return replay.Events(t.t.Consumer("--out "+spec, buffer)), nil
}

// write writes the trace and puts it in place; when the replay saw no
// event (it never started), FILE is left as it was.
func (t traceOut) write() error {
	if t.t.Events() == 0 {
		t.f.Abort()
		return nil
	}
	if _, err := t.t.WriteTo(t.f); err != nil {
		t.f.Abort()
		return fmt.Errorf("--out %s: %w", t.spec, err)
	}
	if err := t.f.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", t.spec, err)
	}
	return nil
}
