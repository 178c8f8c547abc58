package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/replayctl/replayctl/forward"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// newMode is serve --mode new: the tape answers; its misses go to the
// upstream through a record.Forwarder, which journals them next to the
// tape; when serve stops the journal is merged into the tape. A journal
// left by a serve that did not stop cleanly is merged first. TAPE.journal.lock
// keeps a second serve --mode new of the same tape out while one runs.
func (a *app) newMode(ctx context.Context, path string, f serveFlags) error {
	if _, err := os.Stat(path); err != nil {
		return usageError("serve --mode new: %s: %v (new adds to a tape; record one first with --mode record or once)", path, err)
	}
	jpath := journalOf(path)
	// One serve adds to a tape at a time: a second would take the first's
	// live journal for a crash's leftover and merge it under its feet.
	release, err := lockFile(jpath + ".lock")
	switch {
	case errors.Is(err, errLocked):
		return usageError("serve --mode new: another serve --mode new is adding to %s (it holds %s.lock): stop it first, or serve the tape without --mode new", path, jpath)
	case err != nil:
		return usageError("serve --mode new: cannot lock %s.lock: %v", jpath, err)
	}
	defer release()
	if _, err := os.Stat(jpath); err == nil {
		n, added, err := mergeJournal(path, jpath, f.maxLine)
		if err != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("serve --mode new: a journal a previous serve left: %w", err)}
		}
		fmt.Fprintf(a.errOut, "new: merged %s, left by a serve that did not stop cleanly: %d messages in %d session(s) (%s) added to %s\n",
			jpath, n, len(added), strings.Join(added, ", "), path)
	}
	header, taken, err := tapeSessions(path, f.maxLine)
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("serve %s: %w", path, err)}
	}
	red, err := f.redaction()
	if err != nil {
		return err
	}
	jfile, err := os.OpenFile(jpath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return usageError("serve --mode new: cannot write the journal: %v", err)
	}
	jw, err := tape.NewWriter(jfile, header)
	if err != nil {
		jfile.Close()
		_ = os.Remove(jpath)
		return usageError("serve --mode new: cannot write the journal: %v", err)
	}
	tap := record.NewTap(jw, record.WithRedactor(red))
	fwd := forward.New(f.upstreamDialer(a), tap, sessionNamer(taken), a.log,
		forward.MaxUpstreams(f.maxUpstreams), forward.IdleTimeout(f.upstreamIdle), forward.AnswerTimeout(f.upstreamWait))
	stopped := false
	// At the stop the journal is merged first, then the upstream
	// connections are waited for (a server command has --stop-timeout
	// to exit): a second signal, which does not wait, finds the tape
	// complete.
	stop := func() error {
		stopped = true
		defer fwd.Close()
		closeErr := errors.Join(tap.Close(), jfile.Sync(), jfile.Close())
		if closeErr != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("serve --mode new: the journal %s: %w (serve --mode new merges what it holds at its next start)", jpath, closeErr)}
		}
		return a.mergeAtStop(path, jpath, f, fwd, red)
	}
	err = a.serveFrom(ctx, path, f, &serveMore{opts: []mock.ServerOption{mock.WithMissHandler(fwd)}, stop: stop})
	if !stopped { // refused before serving (a flag, the listen address): no journal left behind
		_ = fwd.Close()
		_ = errors.Join(tap.Close(), jfile.Close())
		if tap.Messages() == 0 {
			_ = os.Remove(jpath)
		}
	}
	return err
}

// mergeAtStop merges the journal into the tape and says what was added.
func (a *app) mergeAtStop(path, jpath string, f serveFlags, fwd *forward.Forwarder, red *tape.Redactor) error {
	if fwd.Forwarded() == 0 {
		fmt.Fprintf(a.errOut, "new: nothing was forwarded (%d miss(es) could not be); %s unchanged\n", fwd.Failed(), path)
		return os.Remove(jpath)
	}
	n, added, err := mergeJournal(path, jpath, f.maxLine)
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("serve --mode new: %w (%s is kept; the next serve --mode new merges it)", err, jpath)}
	}
	fmt.Fprintf(a.errOut, "new: %d miss(es) forwarded to the upstream and added to %s: %d messages in %d session(s) (%s)\n",
		fwd.Forwarded(), path, n, len(added), strings.Join(added, ", "))
	if k := fwd.Failed(); k > 0 {
		fmt.Fprintf(a.errOut, "new: %d miss(es) could not be forwarded (listed above as misses)\n", k)
	}
	if k := fwd.Refused(); k > 0 {
		fmt.Fprintf(a.errOut, "new: %d request(s) of the upstream came with no client request in flight and were answered with an error\n", k)
	}
	if c := red.Counts(); c.Total() > 0 {
		printCounts(a.errOut, path, c)
	}
	return nil
}

// upstreamDialer is the dialer of the modes' upstream: Streamable HTTP at
// --upstream, else the server command after --.
func (f serveFlags) upstreamDialer(a *app) transport.Dialer {
	if f.upstream != "" {
		return transport.HTTP{URL: f.upstream, Logger: a.log, MaxMessage: f.maxMessage}
	}
	return transport.Stdio{Command: f.argv, Logger: a.log, StopTimeout: f.stopTimeout, MaxMessage: f.maxMessage}
}
