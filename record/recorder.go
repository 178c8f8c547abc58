package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/stdpipe"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Recorder records a real client and server talking into a tape file:
// the library entry point of `replayctl record` (and of `replayctl serve
// --mode record`). It assembles a proxy of this package (Stdio, or HTTP on
// a listener), the tape file it writes and its end, so that a Go program
// records as the CLI does:
//
//	r, err := record.New("session.jsonl",
//		record.Upstream("http://127.0.0.1:3000/mcp"),
//		record.Listen("127.0.0.1:0"),
//		record.OnListening(func(_ net.Addr, url string) { fmt.Println("point clients at", url) }))
//	if err != nil {
//		return err
//	}
//	res, err := r.Run(ctx) // until ctx is done
//
// Over stdio (Command) the client is this process's standard streams (or
// Client's); the tape is created once the protocol version is known (see
// NewLazyTap), so a server that could not start, or a session with no
// message, leaves no tape. Over HTTP (Upstream and Listen) the tape file
// is created when Run starts, so that a path that cannot be written fails
// at once; its header is written with the first message.
type Recorder struct {
	path string
	s    recorderSettings
	t    target
}

// RecorderOption configures a Recorder.
type RecorderOption func(*recorderSettings)

type recorderSettings struct {
	argv        []string // stdio: the server command
	in          io.Reader
	out         io.Writer
	stdio       []StdioOption
	stopTimeout time.Duration

	upstream string // HTTP: the server's URL
	listen   func() (net.Listener, error)
	http     []HTTPOption
	maxConns int

	overwrite   bool
	keep        func(Result, error) bool
	tags        map[string]string
	redactor    *tape.Redactor
	tap         []TapOption
	log         zerolog.Logger
	onListening []func(addr net.Addr, url string)
}

// Command records over stdio: the server is started as argv (no shell)
// and the client is Client's ends (this process's stdin and stdout by
// default).
func Command(argv ...string) RecorderOption {
	return func(s *recorderSettings) { s.argv = argv }
}

// Client sets the client's ends of a stdio recording: what it sends is
// read from in, what the server answers is written to out. An *os.File
// that is a pipe, a socket or a terminal is read (and a pipe or socket
// written) through a copy Run's end can interrupt, and a regular file
// through a plain copy: Run closes its copies, never the caller's files
// (on Windows too; on systems neither Unix nor Windows, it has no copies
// and closes the files), and leaves their modes as they were (see
// stdpipe.Ends); another
// in should be an io.Closer whose Close ends a Read in progress (as
// io.Pipe's and a net.Conn's do). Run returns once every goroutine it
// started has ended, with one exception: when ctx is done while in is
// not one of those known to end a read at Close (stdpipe.Interruptible:
// a reader without Close, an io.Closer of another type, a terminal on a
// system without poll(2)), Run returns at most 2*StopTimeout+1s later,
// and if Close did not end it, its read of in ends only with the next
// line or EOF.
func Client(in io.Reader, out io.Writer) RecorderOption {
	return func(s *recorderSettings) { s.in, s.out = in, out }
}

// WithStdio adds options of the stdio proxy (see Stdio): StdioSession,
// StdioMaxMessage, StdioStderr, StdioEnv.
func WithStdio(opts ...StdioOption) RecorderOption {
	return func(s *recorderSettings) { s.stdio = append(s.stdio, opts...) }
}

// StopTimeout is how long a stdio server has to exit once its client is
// gone, and again after SIGTERM, before it is killed (2s by default); see
// StdioStopTimeout.
func StopTimeout(d time.Duration) RecorderOption {
	return func(s *recorderSettings) { s.stopTimeout = d }
}

// Upstream records over HTTP: the recording proxy relays to the MCP
// server at url (a Streamable HTTP endpoint, or a legacy HTTP+SSE one).
// It needs Listen or WithListener.
func Upstream(url string) RecorderOption {
	return func(s *recorderSettings) { s.upstream = url }
}

// Listen has the HTTP proxy listen on the TCP address addr (port 0: any
// free port).
func Listen(addr string) RecorderOption {
	return WithListener(func() (net.Listener, error) { return net.Listen("tcp", addr) })
}

// WithListener has the HTTP proxy listen on what listen returns, called
// when Run starts; its error is Run's, unchanged.
func WithListener(listen func() (net.Listener, error)) RecorderOption {
	return func(s *recorderSettings) { s.listen = listen }
}

// WithHTTP adds options of the HTTP proxy (see NewHTTP): WithMaxMessage,
// WithBodyReadTimeout, WithBodyBudget, WithAllowHosts, WithAllowOrigins.
func WithHTTP(opts ...HTTPOption) RecorderOption {
	return func(s *recorderSettings) { s.http = append(s.http, opts...) }
}

// MaxConns caps the HTTP proxy's connections held at once
// (transport.DefaultMaxConns by default, and lowered to what the open-file
// limit leaves room for); at it, the connection waiting longest on its
// client is closed for a new one (see transport.ConnLimiter).
func MaxConns(n int) RecorderOption { return func(s *recorderSettings) { s.maxConns = n } }

// Overwrite replaces the tape file when it exists (else Run refuses to
// touch it). The new recording is written beside it, as
// NAME.recording-*.EXT in the same folder (see File), and renamed over it
// only once the recording has ended, its file is complete (the end line
// written and synced) and kept (see KeepIf): a recording that could not
// be written, that KeepIf refuses, or that is stopped before its end (a
// process killed) leaves the old tape as it was. A recording refused or
// not kept leaves nothing beside it; one killed leaves its new file.
func Overwrite() RecorderOption { return func(s *recorderSettings) { s.overwrite = true } }

// KeepIf sets the test a recording's tape must pass to be kept: keep is
// called once the recording has ended and its file is complete, with the
// Result (Path: the file written, with Overwrite the new one beside the
// tape) and Run's error. A tape it refuses is removed (the Result then
// says Created false, Discarded true), and with Overwrite the existing
// tape is left as it was. By default every tape is kept.
func KeepIf(keep func(res Result, err error) bool) RecorderOption {
	return func(s *recorderSettings) { s.keep = keep }
}

// Tags are the tags of the tape's header.
func Tags(tags map[string]string) RecorderOption {
	return func(s *recorderSettings) { s.tags = tags }
}

// Redact redacts the tape with r: its header (the server command, the
// upstream URL) and every message (WithRedactor). r counts what it
// replaced (r.Counts) once Run returns. A nil r redacts nothing.
func Redact(r *tape.Redactor) RecorderOption {
	return func(s *recorderSettings) { s.redactor = r }
}

// WithTap adds options of the recording's Tap, such as OnMessage: it sees
// each message as it is written, redacted.
func WithTap(opts ...TapOption) RecorderOption {
	return func(s *recorderSettings) { s.tap = append(s.tap, opts...) }
}

// Logger logs what the proxy notices (lines that are not JSON, how a
// server ended, connections closed at the limit).
func Logger(l zerolog.Logger) RecorderOption { return func(s *recorderSettings) { s.log = l } }

// OnListening adds a hook called once the HTTP proxy listens, with its
// address and the URL clients use (the address with the upstream's path).
func OnListening(f func(addr net.Addr, url string)) RecorderOption {
	return func(s *recorderSettings) { s.onListening = append(s.onListening, f) }
}

// Result is what a recording did.
type Result struct {
	// Path is the tape file; Created says whether it was written (a stdio
	// recording with no message, or whose server could not start, leaves
	// none), and Discarded whether it was written and then removed: KeepIf
	// refused it, its header could not be written, or with Overwrite it
	// could not be written whole (the existing tape is then as it was).
	Path      string
	Created   bool
	Discarded bool
	// Messages is the count of messages recorded.
	Messages int64
	// Stdio is how a stdio recording ended.
	Stdio StdioResult
	// Sessions and Dropped are an HTTP recording's sessions and the
	// messages it relayed but did not record (over the size limit, not
	// JSON-RPC, or in a Content-Encoding it cannot read).
	Sessions int
	Dropped  int64
	// TapeErr (stdio) is why the tape could not be written whole (its
	// end line, sync, close or rename into place failed); nil when it
	// was. Run's error then says it first, before what else ended the
	// recording (unanswered requests, ctx).
	TapeErr error
}

// InputError is a recording refused before anything was relayed: the
// tape file cannot be created, or the upstream URL is not one. Nothing
// was recorded, and an existing tape is as it was.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// New returns the recorder of the tape file at path. It needs either
// Command (stdio) or Upstream with a listener (HTTP).
func New(path string, opts ...RecorderOption) (*Recorder, error) {
	s := recorderSettings{in: os.Stdin, out: os.Stdout, log: zerolog.Nop()}
	for _, opt := range opts {
		opt(&s)
	}
	switch {
	case path == "":
		return nil, errors.New("record: no tape path given")
	case len(s.argv) > 0 && s.upstream != "":
		return nil, errors.New("record: give a server command (stdio) or an upstream URL (HTTP), not both")
	case len(s.argv) == 0 && s.upstream == "":
		return nil, errors.New("record: give a server command (stdio) or an upstream URL (HTTP)")
	case s.upstream != "" && s.listen == nil:
		return nil, errors.New("record: an HTTP recording needs a listener (Listen or WithListener)")
	}
	return &Recorder{path: path, s: s, t: target{path: path, overwrite: s.overwrite}}, nil
}

// File is the file the recording writes into now: the tape, or with
// Overwrite the new file beside it until Run renames it over the tape;
// "" before it is created, and once Run has removed it (a recording that
// could not start, or that KeepIf refused). It may be called while Run runs (to say where
// a recording stopped at once left what it recorded).
func (r *Recorder) File() string { return r.t.written() }

// Abandon leaves the recording's file as it is now, for a process about
// to exit without finishing (replayctl record's second Ctrl-C): it
// returns the file that holds what was recorded so far ("" if none; with
// Overwrite, until Run has renamed it, the new file beside the tape),
// and from then on Run creates, writes, renames and removes nothing, so
// that what the caller finds in that file, and says of it, stays true.
// A creation, rename or removal under way ends before Abandon returns.
// A write under way (a line, or the end line of a stop under way) is
// waited for, a second at most: one that ends by then has added its
// whole line, and writing is false. One that has not does not hold
// Abandon up longer (a disk that does not answer must not keep a
// process from exiting): writing is true, and that write may still add
// its line (after the lines before it) once Abandon has returned, or
// never end; a look at the file may then wait as that write does. Run,
// if it goes on, returns the error of a write refused.
func (r *Recorder) Abandon() (file string, writing bool) { return r.t.abandon() }

// finish decides, once the recording has ended, what becomes of its file
// (closed, written whole when closeErr is nil): one whose header could
// not be written (noHeader: it holds nothing whole), one that could not
// be written whole with Overwrite, or one KeepIf refuses, is removed;
// one kept with Overwrite is renamed over the tape. It sets res's Path,
// Created and Discarded, and returns an error of the removal or rename.
func (r *Recorder) finish(res *Result, runErr, closeErr error, noHeader bool) error {
	res.Path = r.t.written()
	keep := true
	switch {
	case noHeader:
		keep = false
	case closeErr != nil:
		keep = !r.s.overwrite // the old tape rather than a cut new one
	case r.s.keep != nil:
		keep = r.s.keep(*res, runErr)
	}
	err := r.t.finish(keep)
	if !keep {
		res.Created, res.Discarded = false, true
	}
	res.Path = r.path
	return err
}

// Run records until the session ends: over stdio, when the client closes
// its input or the server exits (see Stdio); over HTTP, when ctx is done
// (then the streams in flight are ended, the server shut down, and the
// tape gets its end line). A cancelled ctx is the HTTP recording's normal
// end (nil error) and a stdio recording's interruption (ctx's error).
//
// Errors: an *InputError when nothing could start; a stdio server that
// could not start or failed wraps transport.ErrTarget; a stdio client
// that is a file (StdioAwaitAnswers) whose requests were not all
// answered, an *UnansweredError (the tape is whole); the listener's
// error unchanged; a tape that could not be written, "record: write
// PATH: …" (a *Tap's error says "record: " once).
func (r *Recorder) Run(ctx context.Context) (Result, error) {
	if r.s.upstream != "" {
		return r.runHTTP(ctx)
	}
	return r.runStdio(ctx)
}

// tapOptions are the options of the recording's Tap: its redaction, then
// the caller's.
func (r *Recorder) tapOptions() []TapOption {
	var opts []TapOption
	if r.s.redactor != nil {
		opts = append(opts, WithRedactor(r.s.redactor))
	}
	return append(opts, r.s.tap...)
}

// runStdio is the stdio recording: a lazy Tap that creates the tape once
// the protocol version is known, appending line by line, so that a killed
// process leaves every whole line.
func (r *Recorder) runStdio(ctx context.Context) (Result, error) {
	res := Result{Path: r.path}
	h := tape.Header{Transport: "stdio", Server: &tape.Server{Command: r.s.argv}, Tags: r.s.tags}
	var file *os.File  // nil until the tape is created
	var discarded bool // created, but its header could not be written: removed
	var tap *Tap
	tap = NewLazyTap(func(version string) (*tape.Writer, error) {
		f, err := r.t.create()
		if err != nil {
			return nil, err
		}
		h.ProtocolVersion = version
		h.CreatedAt = tap.Start().UTC().Format(time.RFC3339Nano)
		if r.s.redactor != nil {
			r.s.redactor.Header(&h)
		}
		w, err := newTapeWriter(r.t.writer(f), h)
		if err != nil {
			// Nothing whole was written: the file goes (with Overwrite
			// the old tape is as it was).
			r.t.discard(f)
			discarded = true
			return nil, err
		}
		file = f
		return w, nil
	}, r.tapOptions()...)

	in, out := stdpipe.Ends(r.s.in, r.s.out)
	defer stdpipe.IgnoreSIGPIPE()()
	stopTimeout := r.s.stopTimeout
	if stopTimeout <= 0 {
		stopTimeout = defaultStopTimeout
	}
	opts := append([]StdioOption{StdioLogger(r.s.log), StdioStopTimeout(stopTimeout)}, r.s.stdio...)
	type outcome struct {
		res StdioResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Stdio(ctx, tap, in, out, r.s.argv, opts...)
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		if stdpipe.Interruptible(in) {
			// The proxy's stop is bounded: it kills the server if it
			// must and closes every pipe, the client's too.
			o = <-done
			break
		}
		// A read of a reader without Close, of a terminal where
		// stdpipe.Ends cannot poll it, or of a Closer whose Close may
		// not end it, may go on: give the proxy the time to stop the
		// server, then finish without it; its read of the client ends
		// with the next line or EOF.
		t := time.NewTimer(2*stopTimeout + time.Second)
		select {
		case o = <-done:
		case <-t.C:
			o.err = ctx.Err()
		}
		t.Stop()
	}
	res.Stdio = o.res
	// A server that could not start leaves no tape, so that the next try
	// needs no overwrite.
	if !o.res.Started && errors.Is(o.err, transport.ErrTarget) {
		return res, o.err
	}
	closeErr := tap.Close() // after it, open has returned if it was called
	var finishErr error
	res.Messages = tap.Messages()
	res.Discarded = discarded
	if file != nil {
		closeErr = errors.Join(closeErr, file.Sync(), file.Close())
		res.Created = true
		if closeErr != nil {
			closeErr = &writeError{file.Name(), closeErr}
		}
		finishErr = r.finish(&res, o.err, closeErr, false)
	}
	res.TapeErr = errors.Join(closeErr, finishErr)
	switch {
	case res.TapeErr == nil, errors.Is(res.TapeErr, o.err):
		// Nothing failed at the end, or it is the failure that ended
		// the recording, already said.
		return res, o.err
	case o.err == nil, ctx.Err() != nil && errors.Is(o.err, ctx.Err()):
		// An interrupted recording's tape failed: the failure is the news.
		return res, res.TapeErr
	}
	// The tape is not whole, whatever else ended the recording: that
	// first.
	return res, errors.Join(res.TapeErr, o.err)
}

// writeError is a tape file that could not be written whole. It says
// "record: " once, also when err is the Tap's, which says it too.
type writeError struct {
	path string
	err  error
}

func (e *writeError) Error() string {
	return "record: write " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "record: ")
}

func (e *writeError) Unwrap() error { return e.err }

// newTapeWriter writes the tape's header and returns its writer
// (tape.NewWriter; a test's, to fail as a full disk does).
var newTapeWriter = tape.NewWriter

// readHeaderTimeout bounds how long the HTTP proxy waits for a request's
// headers.
const readHeaderTimeout = 30 * time.Second

// runHTTP is the HTTP recording: the proxy on the listener until ctx is
// done.
func (r *Recorder) runHTTP(ctx context.Context) (Result, error) {
	res := Result{Path: r.path}
	// The file is created now, so that a path that cannot be written
	// fails at once; with Overwrite it is the new one beside the tape,
	// which a recording refused before it starts leaves as it was.
	file, err := r.t.create()
	if err != nil {
		return res, &InputError{fmt.Errorf("record: cannot write the tape: %w", err)}
	}
	opts := append([]HTTPOption{WithLogger(r.s.log), WithTapOptions(r.tapOptions()...)}, r.s.http...)
	var noHeader atomic.Bool // the header could not be written: nothing whole is in the file
	p, err := NewHTTP(r.s.upstream, func(h tape.Header) (*tape.Writer, error) {
		h.Tags = r.s.tags
		if r.s.redactor != nil {
			r.s.redactor.Header(&h)
		}
		w, err := newTapeWriter(r.t.writer(file), h)
		if err != nil {
			noHeader.Store(true)
		}
		return w, err
	}, opts...)
	if err != nil {
		r.t.discard(file)
		return res, &InputError{err}
	}
	l, err := r.s.listen()
	if err != nil {
		r.t.discard(file)
		return res, err
	}
	res.Created = true
	serveErr := transport.ServeUntil(ctx, l, p,
		transport.LimitConns(r.s.maxConns, r.s.log), transport.ReadHeaderTimeout(readHeaderTimeout),
		transport.OnServing(func(addr net.Addr) {
			clientURL := (&url.URL{Scheme: "http", Host: addr.String(), Path: p.Upstream().Path, RawQuery: p.Upstream().RawQuery}).String()
			for _, f := range r.s.onListening {
				f(addr, clientURL)
			}
		}),
		transport.BeforeShutdown(p.Stop)) // open streams end, so that the shutdown need not wait for them
	closeErr := errors.Join(p.Close(), file.Sync(), file.Close())
	if closeErr != nil {
		closeErr = &writeError{file.Name(), closeErr}
	}
	res.Messages, res.Sessions, res.Dropped = p.Messages(), p.Sessions(), p.Dropped()
	if serveErr != nil {
		serveErr = fmt.Errorf("serve on %s: %w", l.Addr(), serveErr)
	}
	finishErr := r.finish(&res, serveErr, closeErr, noHeader.Load())
	if serveErr != nil {
		return res, serveErr
	}
	return res, errors.Join(closeErr, finishErr)
}

// reachTimeout bounds Reachable's dial.
const reachTimeout = 5 * time.Second

// Reachable checks that a TCP connection to the host of the URL u (its
// port, else the scheme's) can be opened within 5 seconds, so that a
// recording can refuse an upstream that is not there before it starts.
// It returns when ctx is done.
func Reachable(ctx context.Context, u string) error {
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	port := pu.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[pu.Scheme]
	}
	d := net.Dialer{Timeout: reachTimeout}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(pu.Hostname(), port))
	if err != nil {
		return err
	}
	return conn.Close()
}
