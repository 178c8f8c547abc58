package serve

import (
	"context"
	"io"
	"net"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/forward"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Option sets one knob of a Server.
type Option func(*settings)

// settings is what the options set.
type settings struct {
	mode     Mode
	listen   func() (net.Listener, error) // nil: stdio
	stdin    io.Reader
	stdout   io.Writer
	notices  io.Writer
	log      zerolog.Logger
	mock     []mock.ServerOption
	server   []transport.ServerOption
	maxConns int
	maxLine  int

	upstream  transport.Dialer
	forward   []forward.Option
	redaction func() (*tape.Redactor, error)
	recorder  Recorder

	onLoaded    []func()
	onListening []func(net.Addr)
	onServed    []func(Result)
	onExchange  []func(Exchange)
	onEnded     []func(string, time.Time)
}

func defaults() *settings {
	return &settings{
		stdin:    os.Stdin,
		stdout:   os.Stdout,
		notices:  io.Discard,
		log:      zerolog.Nop(),
		maxConns: transport.DefaultMaxConns,
		maxLine:  DefaultMaxLine,
	}
}

// DefaultMaxLine is the longest tape line the journal of mode New is read
// with, as the tape package's default.
const DefaultMaxLine = 8 << 20

// WithMode sets the mode (ModeReplay when not given).
func WithMode(m Mode) Option { return func(s *settings) { s.mode = m } }

// Listen serves HTTP on addr (host:port; port 0 picks a free one), which
// Run opens with net.Listen. Without Listen or WithListener, Run serves
// stdio.
func Listen(addr string) Option {
	return WithListener(func() (net.Listener, error) { return net.Listen("tcp", addr) })
}

// WithListener serves HTTP on the listener listen returns, called once
// the tape is read. An error from it is Run's, unchanged: nothing was
// served.
func WithListener(listen func() (net.Listener, error)) Option {
	return func(s *settings) { s.listen = listen }
}

// Stdio sets the streams of a stdio serve (the process's stdin and
// stdout by default). An *os.File that is a pipe or socket is served
// through a copy the poller can interrupt, so that a cancelled ctx stops
// Run at once.
func Stdio(in io.Reader, out io.Writer) Option {
	return func(s *settings) { s.stdin, s.stdout = in, out }
}

// Notices sets where serve says what it decides, for a person: the mode a
// Once run takes, a journal merged, what New added (io.Discard by
// default).
func Notices(w io.Writer) Option { return func(s *settings) { s.notices = w } }

// WithLogger sets the logger (none by default).
func WithLogger(l zerolog.Logger) Option { return func(s *settings) { s.log = l } }

// WithMock adds options of the mock.Server that answers from the tape:
// matching, timing, chaos, volatile fields, the misses kept.
func WithMock(opts ...mock.ServerOption) Option {
	return func(s *settings) { s.mock = append(s.mock, opts...) }
}

// WithServer adds options of the listener, HTTP or stdio: message size,
// allowed hosts and origins, idle sessions, body limits, batch size.
func WithServer(opts ...transport.ServerOption) Option {
	return func(s *settings) { s.server = append(s.server, opts...) }
}

// MaxConns caps the HTTP connections held at once
// (transport.DefaultMaxConns by default), lowered to what the open-file
// limit leaves room for; at it, the connection waiting on its client
// longest is closed for a new one.
func MaxConns(n int) Option { return func(s *settings) { s.maxConns = n } }

// MaxLine is the longest line of the tape and journal mode New reads and
// merges (DefaultMaxLine by default). The mock.Server's own is set with
// WithMock(mock.WithServerTapeOptions(tape.WithMaxLine(n))).
func MaxLine(n int) Option { return func(s *settings) { s.maxLine = n } }

// Upstream is the real server of mode New: each client session with a
// miss gets a connection of its own through d.
func Upstream(d transport.Dialer) Option { return func(s *settings) { s.upstream = d } }

// WithForward adds options of mode New's forwarder: upstream connections
// at once, their idle timeout, how long an answer is waited for.
func WithForward(opts ...forward.Option) Option {
	return func(s *settings) { s.forward = append(s.forward, opts...) }
}

// WithRedaction sets how mode New redacts what it adds to the tape:
// redactor is called once, when the journal is about to be written (a
// default tape.Redactor when not given).
func WithRedaction(redactor func() (*tape.Redactor, error)) Option {
	return func(s *settings) { s.redaction = redactor }
}

// Recorder records the tape at path from the upstream, for modes Record
// and Once: Prepare checks what it was given and takes what it needs
// (release gives it back, and is called whatever happens), then Record
// records until the client or ctx ends it.
type Recorder interface {
	Prepare(path string) (release func(), err error)
	Record(ctx context.Context, path string) error
}

// WithRecorder sets the recorder of modes Record and Once (`replayctl
// serve` passes record's proxy, over stdio or HTTP).
func WithRecorder(r Recorder) Option { return func(s *settings) { s.recorder = r } }

// OnLoaded adds a hook called once the tape is read, before anything is
// served.
func OnLoaded(f func()) Option { return func(s *settings) { s.onLoaded = append(s.onLoaded, f) } }

// OnListening adds a hook called with the HTTP listener's address once it
// is open.
func OnListening(f func(net.Addr)) Option {
	return func(s *settings) { s.onListening = append(s.onListening, f) }
}

// OnServed adds a hook called once the clients are gone, with what was
// missed and injected, before mode New merges its journal.
func OnServed(f func(Result)) Option {
	return func(s *settings) { s.onServed = append(s.onServed, f) }
}

// OnExchange adds a hook called for each message of a client served from
// the tape (modes Replay, New, and Once when it replays), once its answer
// is sent: the request, the answer and the verdict (Exchange). It is
// called from the listener's goroutines, several at once, and holds up
// the client's next message on that stream while it runs: it must not
// block. Modes Record and Once when it records do not call it.
func OnExchange(f func(Exchange)) Option {
	return func(s *settings) { s.onExchange = append(s.onExchange, f) }
}

// OnSessionEnded adds a hook called when a client session served from the
// tape ends, with its name (Exchange.Session) and the time. The same
// rules as OnExchange's hold.
func OnSessionEnded(f func(session string, at time.Time)) Option {
	return func(s *settings) { s.onEnded = append(s.onEnded, f) }
}
