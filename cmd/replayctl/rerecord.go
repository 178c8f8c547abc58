package main

// run --rerecord OUT: the live exchange written as a new tape.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/serve"
	"github.com/replayctl/replayctl/tape"
)

// rerecordFlags are run's flags of a re-recording.
type rerecordFlags struct {
	out   string
	force bool
	// redact gives the redaction flags' options (addRedactOptions).
	redact func() ([]tape.RedactOption, *tape.Redactor, error)
	// unlock releases OUT.journal.lock, taken by option with --force.
	unlock func()
}

// rerecordOnly are the flags that mean something only with --rerecord.
var rerecordOnly = []string{"force", "redact-env", "redact-key", "redact-header", "keep-defaults"}

// addRerecordFlags adds --rerecord, --force and the redaction flags to
// run.
func addRerecordFlags(cmd *cobra.Command, f *rerecordFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.out, "rerecord", "", "write the live exchange as a new tape OUT.jsonl: the same sessions and order, the target's answers and times, secrets redacted as record does (--redact-*); written once the replay reaches the end of the tape, whether the answers matched or not; OUT may be TAPE itself; refused if it exists, unless --force")
	fl.BoolVar(&f.force, "force", false, "with --rerecord: overwrite OUT if it exists")
	f.redact = addRedactOptions(cmd)
}

// option checks the re-recording's flags and returns its replay option;
// nil without --rerecord. With --force over an existing OUT it takes the
// lock a serve --mode new of OUT holds (release with done).
func (f *rerecordFlags) option(cmd *cobra.Command, local bool) (replay.Option, error) {
	if f.out == "" {
		for _, name := range rerecordOnly {
			if cmd.Flags().Changed(name) {
				return nil, usageError("--%s is a flag of --rerecord (the tape it writes): give --rerecord OUT.jsonl too, or leave it out", name)
			}
		}
		return nil, nil
	}
	out := f.out
	switch {
	case filepath.Ext(out) != ".jsonl":
		return nil, usageError("--rerecord %s: a re-recording is a native tape: name it .jsonl, e.g. --rerecord %s.jsonl", out, strings.TrimSuffix(out, filepath.Ext(out)))
	case local:
		return nil, usageError("--rerecord writes the whole run's tape: leave out --local-shards")
	case cmd.Flags().Changed("shard"):
		return nil, usageError("--rerecord writes the whole run's tape: leave out --shard")
	case cmd.Flags().Changed("shards") || cmd.Flags().Changed("coordinator"):
		return nil, usageError("--rerecord writes the whole run's tape: leave out --shards and --coordinator")
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return nil, usageError("--rerecord %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	if st, err := os.Stat(out); err == nil {
		if st.IsDir() {
			return nil, usageError("--rerecord %s is a folder; give a file name", out)
		}
		if !f.force {
			return nil, usageError("--rerecord %s exists; pass --force to overwrite it, or choose another name", out)
		}
		lock := serve.Journal(out) + ".lock"
		release, err := serve.LockTape(out)
		switch {
		case errors.Is(err, serve.ErrTapeBusy):
			return nil, usageError("--rerecord %s --force: a serve --mode new is adding to it (it holds %s): stop it first, or re-record to another name", out, lock)
		case err != nil:
			return nil, usageError("--rerecord %s --force: cannot lock %s: %v", out, lock, err)
		}
		f.unlock = release
	}
	opts, _, err := f.redact()
	if err != nil {
		f.done()
		return nil, err
	}
	return replay.Rerecord(out, opts...), nil
}

// done releases what option took.
func (f *rerecordFlags) done() {
	if f.unlock != nil {
		f.unlock()
		f.unlock = nil
	}
}

// rerecordSummary says on stderr what the re-recording wrote, and what
// its redaction replaced (counts by kind and name, never values).
func (a *app) rerecordSummary(r *replay.Replay, f *rerecordFlags, quiet bool) {
	written, n, counts := r.Rerecorded()
	if !written || quiet {
		return
	}
	noun := "messages"
	if n == 1 {
		noun = "message"
	}
	fmt.Fprintf(a.errOut, "rerecord: wrote %s: %d %s\n", f.out, n, noun)
	if counts.Total() > 0 {
		printCounts(a.errOut, f.out, counts)
	}
}
