package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Server serves one tape in one mode. Make it with New; Run it once.
type Server struct {
	path string
	s    *settings
}

// New returns a Server of the tape at path. It checks the options: a
// mode without what it needs (New without Upstream, Record or Once
// without WithRecorder) is an *InputError.
func New(path string, opts ...Option) (*Server, error) {
	s := defaults()
	for _, o := range opts {
		o(s)
	}
	switch {
	case s.mode < ModeReplay || s.mode > ModeNew:
		return nil, &InputError{fmt.Errorf("serve: unknown mode %v", s.mode)}
	case s.mode == ModeNew && s.upstream == nil:
		return nil, &InputError{errors.New("serve: mode new needs the real server: give Upstream")}
	case (s.mode == ModeRecord || s.mode == ModeOnce) && s.recorder == nil:
		return nil, &InputError{fmt.Errorf("serve: mode %v needs a recorder: give WithRecorder", s.mode)}
	}
	return &Server{path: path, s: s}, nil
}

// Result is what a Run that served from the tape saw go wrong, and what
// mode New added (`replayctl serve` prints it, and writes its misses and
// faults to --report).
type Result struct {
	// Misses are the first misses (mock.WithMaxMisses), MissCount counts
	// them all.
	Misses    []mock.Miss
	MissCount int
	// Injected are the chaos faults injected toward the clients.
	Injected []mock.Injected
	// Forwarded, NotForwarded and Refused count mode New's misses sent
	// to the upstream, those that could not be, and the upstream's
	// requests that came with no client request in flight.
	Forwarded, NotForwarded, Refused int64
	// Redacted counts what mode New redacted in what it added to the
	// tape; nil when nothing was added.
	Redacted *tape.Counts
	// Recorded is set when the run recorded (mode Record, or Once without
	// the tape): nothing was served from the tape, the rest is zero.
	Recorded bool
}

// InputError is a failure of Run or New on bad input: a tape that cannot
// be read, a journal that cannot be written or merged, a tape another
// Run in mode New is adding to, a mode without what it needs. Its text is
// Err's.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// inputError is an *InputError of a formatted message.
func inputError(format string, a ...any) error {
	return &InputError{fmt.Errorf(format, a...)}
}

// Run serves until the stdio client closes its end (or is hung up on by
// chaos) or, over HTTP, until ctx is done; it then waits for the sessions
// to close (answers still being made get 10 s over stdio) and, in mode
// New, merges the journal into the tape. It returns the Result, nil when
// nothing was served (an error before serving: bad input, a listener
// that could not be opened), with the error, if any.
func (sv *Server) Run(ctx context.Context) (*Result, error) {
	switch sv.s.mode {
	case ModeRecord:
		return sv.record(ctx)
	case ModeOnce:
		if _, err := os.Stat(sv.path); err == nil {
			fmt.Fprintf(sv.s.notices, "once: %s exists: replaying it (the upstream is not used)\n", sv.path)
			return sv.serve(ctx, nil)
		}
		fmt.Fprintf(sv.s.notices, "once: %s does not exist: recording it from the upstream\n", sv.path)
		return sv.record(ctx)
	case ModeNew:
		return sv.addNew(ctx)
	}
	return sv.serve(ctx, nil)
}

// more is what a mode adds to serving the tape: options of the
// mock.Server, and a stop called once the clients are gone, after the
// OnServed hooks.
type more struct {
	opts []mock.ServerOption
	stop func(*Result) error
}

// serve serves the tape with the options, and m's.
func (sv *Server) serve(ctx context.Context, m *more) (*Result, error) {
	opts := sv.s.mock
	if m != nil {
		opts = append(append([]mock.ServerOption(nil), opts...), m.opts...)
	}
	srv, err := mock.NewServer(tape.File(sv.path), opts...)
	if err != nil {
		return nil, &InputError{tapeNamedOnce(sv.path, err)}
	}
	for _, f := range sv.s.onLoaded {
		f()
	}
	var sessions transport.Sessions = srv
	if len(sv.s.onExchange) > 0 || len(sv.s.onEnded) > 0 {
		sessions = &tap{inner: srv, onX: sv.s.onExchange, onEnded: sv.s.onEnded}
	}
	serveErr := sv.listen(ctx, sessions)
	if le := (*listenError)(nil); errors.As(serveErr, &le) {
		return nil, le.err
	}
	res := &Result{Misses: srv.Misses(), MissCount: srv.MissCount(), Injected: srv.Injected()}
	for _, f := range sv.s.onServed {
		f(*res)
	}
	if m != nil && m.stop != nil {
		serveErr = errors.Join(serveErr, m.stop(res))
	}
	return res, serveErr
}

// tapeNamedOnce is err, an error reading the tape at path, said as the
// other commands say it: a *tape.Error (what, where, what to do) alone,
// without the packages it came through; another error with the tape
// named once.
func tapeNamedOnce(path string, err error) error {
	if te := (*tape.Error)(nil); errors.As(err, &te) {
		return te
	}
	if strings.Contains(err.Error(), path) {
		return fmt.Errorf("serve: %w", err)
	}
	return fmt.Errorf("serve %s: %w", path, err)
}
