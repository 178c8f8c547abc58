package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/replayctl/replayctl/forward"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
)

// addNew is mode New: the tape answers; its misses go to the upstream
// through a forward.Forwarder, which journals them next to the tape; when
// the clients are gone the journal is merged into the tape. A journal
// left by a Run that did not stop cleanly is merged first.
// Journal(path)+".lock" keeps a second Run in mode New of the same tape
// out while one runs.
func (sv *Server) addNew(ctx context.Context) (*Result, error) {
	path := sv.path
	if _, err := os.Stat(path); err != nil {
		return nil, inputError("serve --mode new: %s: %v (new adds to a tape; record one first with --mode record or once)", path, err)
	}
	jpath := Journal(path)
	// One serve adds to a tape at a time: a second would take the first's
	// live journal for a crash's leftover and merge it under its feet.
	release, err := LockTape(path)
	switch {
	case errors.Is(err, ErrTapeBusy):
		return nil, inputError("serve --mode new: another serve --mode new is adding to %s (it holds %s.lock): stop it first, or serve the tape without --mode new", path, jpath)
	case err != nil:
		return nil, inputError("serve --mode new: cannot lock %s.lock: %v", jpath, err)
	}
	defer release()
	if _, err := os.Stat(jpath); err == nil {
		n, added, err := mergeJournal(path, jpath, sv.s.maxLine)
		if err != nil {
			return nil, &InputError{fmt.Errorf("serve --mode new: a journal a previous serve left: %w", err)}
		}
		fmt.Fprintf(sv.s.notices, "new: merged %s, left by a serve that did not stop cleanly: %s in %s (%s) added to %s\n",
			jpath, english.Count(int64(n), "message"), english.Count(int64(len(added)), "session"), strings.Join(added, ", "), path)
	}
	header, taken, err := tapeSessions(path, sv.s.maxLine)
	if err != nil {
		return nil, &InputError{tapeNamedOnce(path, err)}
	}
	red, err := sv.redactor()
	if err != nil {
		return nil, err
	}
	jfile, err := os.OpenFile(jpath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, inputError("serve --mode new: cannot write the journal: %v", err)
	}
	jw, err := tape.NewWriter(jfile, header)
	if err != nil {
		jfile.Close()
		_ = os.Remove(jpath)
		return nil, inputError("serve --mode new: cannot write the journal: %v", err)
	}
	tap := record.NewTap(jw, record.WithRedactor(red))
	fwd := forward.New(sv.s.upstream, tap, sessionNamer(taken), sv.s.log, sv.s.forward...)
	stopped := false
	// At the stop the journal is merged first, then the upstream
	// connections are waited for (a server command has its StopTimeout
	// to exit): a second signal, which does not wait, finds the tape
	// complete.
	stop := func(res *Result) error {
		stopped = true
		defer fwd.Close()
		closeErr := errors.Join(tap.Close(), jfile.Sync(), jfile.Close())
		res.Forwarded, res.NotForwarded, res.Refused = fwd.Forwarded(), fwd.Failed(), fwd.Refused()
		if closeErr != nil {
			return &InputError{fmt.Errorf("serve --mode new: the journal %s: %w (serve --mode new merges what it holds at its next start)", jpath, closeErr)}
		}
		return sv.mergeAtStop(jpath, res, red)
	}
	res, err := sv.serve(ctx, &more{opts: []mock.ServerOption{mock.WithMissHandler(marked{fwd})}, stop: stop})
	if !stopped { // refused before serving (the tape, the listener): no journal left behind
		_ = fwd.Close()
		_ = errors.Join(tap.Close(), jfile.Close())
		if tap.Messages() == 0 {
			_ = os.Remove(jpath)
		}
	}
	return res, err
}

// redactor is the Redactor of what mode New adds: WithRedaction's, else
// a default one.
func (sv *Server) redactor() (*tape.Redactor, error) {
	if sv.s.redaction != nil {
		return sv.s.redaction()
	}
	return tape.NewRedactor()
}

// mergeAtStop merges the journal into the tape and says what was added.
func (sv *Server) mergeAtStop(jpath string, res *Result, red *tape.Redactor) error {
	path := sv.path
	if res.Forwarded == 0 {
		fmt.Fprintf(sv.s.notices, "new: nothing was forwarded (%s could not be); %s unchanged\n", english.Count(int64(res.NotForwarded), "miss"), path)
		return os.Remove(jpath)
	}
	n, added, err := mergeJournal(path, jpath, sv.s.maxLine)
	if err != nil {
		return &InputError{fmt.Errorf("serve --mode new: %w (%s is kept; the next serve --mode new merges it)", err, jpath)}
	}
	fmt.Fprintf(sv.s.notices, "new: %s forwarded to the upstream and added to %s: %s in %s (%s)\n",
		english.Count(int64(res.Forwarded), "miss"), path, english.Count(int64(n), "message"), english.Count(int64(len(added)), "session"), strings.Join(added, ", "))
	if k := res.NotForwarded; k > 0 {
		fmt.Fprintf(sv.s.notices, "new: %s could not be forwarded (listed above as misses)\n", english.Count(int64(k), "miss"))
	}
	if k := res.Refused; k > 0 {
		were := "were"
		if k == 1 {
			were = "was"
		}
		fmt.Fprintf(sv.s.notices, "new: %s of the upstream came with no client request in flight and %s answered with an error\n", english.Count(int64(k), "request"), were)
	}
	if c := red.Counts(); c.Total() > 0 {
		res.Redacted = &c
	}
	return nil
}
