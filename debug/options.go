package debug

import (
	"net"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// Option sets one knob of a Session.
type Option func(*settings)

// settings is what the options set.
type settings struct {
	replay      []replay.Option
	control     []controller.Option
	ln          net.Listener
	stopAtStart bool
	maxLine     int
	onShow      []func(report.Result)
}

// DefaultMaxLine is the longest tape line New's check of the tape reads
// unless MaxLine says otherwise: the tape package's default.
const DefaultMaxLine = 8 << 20

func defaults() *settings { return &settings{maxLine: DefaultMaxLine} }

// WithReplay adds options of the replay: the target (replay.Against),
// the config, pacing, order, timeout, ignored paths, event consumers. The
// session adds replay.Control: the replay is a controlled one, fast unless
// a speed is given, and it pauses at a failed answer unless
// replay.OnError(replay.Continue) or the config says to go on.
func WithReplay(opts ...replay.Option) Option {
	return func(s *settings) { s.replay = append(s.replay, opts...) }
}

// WithController adds options of the session's controller (a logger, for
// one), after the replay's own (see replay.Control).
func WithController(opts ...controller.Option) Option {
	return func(s *settings) { s.control = append(s.control, opts...) }
}

// WithControl serves the control protocol (JSON lines, package
// controller) on ln as well, once Begin has replayed the handshake: a
// command sent meanwhile waits in the socket. Run closes ln. Make a Unix
// socket only its user reaches with controller.ListenUnix.
func WithControl(ln net.Listener) Option { return func(s *settings) { s.ln = ln } }

// StopAtStart makes Begin stop before the very first message instead of
// after the initialize handshake.
func StopAtStart() Option { return func(s *settings) { s.stopAtStart = true } }

// MaxLine is the longest tape line New's check of the tape reads, in
// bytes (DefaultMaxLine by default). Give the replay the same limit
// (replay.MaxLine): New refuses a tape it cannot read to the end, before
// anything is sent, so that a session never starts on one.
func MaxLine(n int) Option { return func(s *settings) { s.maxLine = n } }

// OnShow adds a hook called with each result of a client message that a
// command makes known (see the package documentation), on the goroutine
// of the command: a debugger prints it there.
func OnShow(f func(report.Result)) Option {
	return func(s *settings) { s.onShow = append(s.onShow, f) }
}
