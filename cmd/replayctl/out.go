package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/replay"
)

// outUsage is the --out flag's help, and what a bad value is told.
const outUsage = "write the replay's events: json=FILE (JSON Lines, one event a line, appended to FILE as they happen; json=- for stdout), trace=FILE (the run as a Chrome/Perfetto trace, written whole at the end; open it in ui.perfetto.dev) (repeatable)"

func addOutFlag(fl *pflag.FlagSet, outs *[]string, buffer *int) {
	fl.StringArrayVar(outs, "out", nil, outUsage)
	fl.IntVar(buffer, "out-buffer", event.DefaultBuffer, "events an --out destination may be behind before the replay waits for it")
}

// eventOuts are the --out destinations of a replay, open.
type eventOuts struct {
	files  []*os.File
	traces []traceOut
	stdout bool // json=-: the summary goes to stderr
	mu     sync.Mutex
	err    error // the first write that failed
}

// openOuts reads the --out values and opens their files (created if
// need be, appended to), each with a buffer of buffer events. A bad
// value, or a file that cannot be opened, is bad usage. stdoutOK says
// whether json=- is allowed (not in debug, whose stdout is the
// debugger's).
func (a *app) openOuts(specs []string, buffer int, stdoutOK bool) (*eventOuts, []replay.Option, error) {
	if buffer <= 0 {
		return nil, nil, usageError("--out-buffer %d: want a number of events above 0 (default %d)", buffer, event.DefaultBuffer)
	}
	o := &eventOuts{}
	var opts []replay.Option
	for _, spec := range specs {
		kind, path, ok := strings.Cut(spec, "=")
		if !ok || (kind != "json" && kind != "trace") || path == "" {
			o.close()
			return nil, nil, usageError("--out %q: want json=FILE (the events as JSON Lines, appended to FILE; json=- for stdout) or trace=FILE (a Chrome/Perfetto trace)", spec)
		}
		if kind == "trace" {
			opt, err := o.openTrace(spec, path, buffer)
			if err != nil {
				o.close()
				return nil, nil, err
			}
			opts = append(opts, opt)
			continue
		}
		var w io.Writer
		if path == "-" {
			if !stdoutOK {
				o.close()
				return nil, nil, usageError("--out %q: stdout is the debugger's here: give a file, json=FILE", spec)
			}
			if o.stdout {
				o.close()
				return nil, nil, usageError("--out %q: stdout given twice", spec)
			}
			o.stdout, w = true, a.out
		} else {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				o.close()
				return nil, nil, usageError("--out %q: %w (give a file that can be written)", spec, err)
			}
			o.files = append(o.files, f)
			w = f
		}
		write := event.JSONLines(w)
		opts = append(opts, replay.Events(event.Consumer{Name: "--out " + spec, Buffer: buffer, Handle: func(batch []event.Event) error {
			if err := write(batch); err != nil {
				o.fail(fmt.Errorf("--out %s: %w", spec, err))
				return err
			}
			return nil
		}}))
	}
	return o, opts, nil
}

func (o *eventOuts) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
	}
}

// close closes the files and returns the first error writing to any of
// them. The replay has ended: nothing writes to them any more.
func (o *eventOuts) close() error {
	if o == nil {
		return nil
	}
	var errs []error
	for _, f := range o.files {
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--out %s: %w", f.Name(), err))
		}
	}
	o.files = nil
	for _, t := range o.traces {
		if err := t.write(); err != nil {
			errs = append(errs, err)
		}
	}
	o.traces = nil
	o.mu.Lock()
	defer o.mu.Unlock()
	return errors.Join(append([]error{o.err}, errs...)...)
}
