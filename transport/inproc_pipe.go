package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Pipe runs an MCP server in this process, calling Serve once per Dial,
// and speaks newline-delimited JSON-RPC with it as Stdio does with a
// subprocess: no port, no process. Serve gets the read end of one pipe
// (our messages) and the write end of another (its messages to us).
// Whether each call is a server of its own or a new session of one
// server shared by every call is Serve's to choose (see OwnServer).
//
// They are pipes of the OS, not io.Pipe: they buffer as a subprocess's
// stdin and stdout do, and a Send is bounded by its ctx through the pipe's
// write deadline, so a server that stops reading fails a Send as a stdio
// server does, instead of holding it.
//
// With the official Go SDK:
//
//	transport.Pipe{Name: "demo", Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
//		return server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
//	}}
type Pipe struct {
	// Serve runs the server until in ends (Close) or ctx is cancelled
	// (Close, too). ctx has the values of Dial's ctx but not its
	// cancellation. Serve may close in and out; the connection closes both
	// once Serve returns. A Serve that returns before Close ends the
	// connection: its error (or its panic) is the connection's Err.
	Serve  func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error
	Name   string // the server in logs and errors; "" means "in-process"
	Logger zerolog.Logger
	// StopTimeout is how long Close waits for Serve to return after
	// ending its input and cancelling its ctx, and again after closing
	// its ends of the pipes. 0 means 2s.
	StopTimeout time.Duration
	// MaxMessage is the longest line Serve may write, in bytes; 0 means
	// DefaultMaxMessage. A longer line ends the connection with a
	// *TooLargeError.
	MaxMessage int
	// OwnServer says that Serve makes a server of its own at each call,
	// which holds nothing of the calls before (the connections are then
	// an OwnServer, as stdio's are: a reconnect reaches a new server).
	// false, the default, is for a Serve that runs one server shared by
	// every call, as in the example above (a new MCP session on the same
	// server, as a new HTTP session is): what outlives a session, such
	// as a durable task of the 2026 extension, is still there at a
	// reconnect.
	OwnServer bool
}

var _ Dialer = Pipe{}

// Dial starts Serve on a goroutine of its own with a fresh pair of pipes.
// It returns at once (the initialize handshake tells when the server is
// ready); its errors are about the arguments, or wrap ErrTarget when the
// pipes cannot be made.
func (p Pipe) Dial(ctx context.Context, session string) (Conn, error) {
	if p.Serve == nil {
		return nil, errors.New("in-process target: no Serve function given")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := p.Name
	if name == "" {
		name = "in-process"
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: start in-process server %q: make pipe: %w", ErrTarget, name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_, _ = inR.Close(), inW.Close()
		return nil, fmt.Errorf("%w: start in-process server %q: make pipe: %w", ErrTarget, name, err)
	}
	stop := p.StopTimeout
	if stop <= 0 {
		stop = defaultStopTimeout
	}
	c := &PipeConn{
		name:        name,
		ownServer:   p.OwnServer,
		log:         p.Logger.With().Str("transport", "pipe").Str("server", name).Str("session", session).Logger(),
		stopTimeout: stop,
		output:      outR,
		srvIn:       inR,
		srvOut:      outW,
		in:          make(chan Incoming),
		closing:     make(chan struct{}),
		served:      make(chan struct{}),
	}
	c.w = ndjsonWriter{f: inW, name: fmt.Sprintf("in-process server %q", name), input: "input", closing: c.closing}
	c.out = newNDJSONReader(c.log, "output", "a line of the output of "+c.w.name, p.MaxMessage, c.closing)
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	// Not in wg: Close waits for Serve only so long (see Close).
	go c.serve(serveCtx, p.Serve)
	outputDone := make(chan struct{})
	c.wg.Add(3)
	go func() { defer c.wg.Done(); c.out.read(outR) }()
	go func() { defer c.wg.Done(); defer close(outputDone); c.out.inbox.pump(c.in, c.closing) }()
	go func() { defer c.wg.Done(); c.supervise(outputDone) }()
	return c, nil
}

// PipeConn is a connection to a server that Pipe runs in this process.
type PipeConn struct {
	name        string
	ownServer   bool // Pipe.OwnServer
	log         zerolog.Logger
	stopTimeout time.Duration

	w             ndjsonWriter  // to the server's input
	out           *ndjsonReader // from its output
	output        *os.File      // our end of its output
	srvIn, srvOut *os.File      // the server's ends

	in       chan Incoming
	closing  chan struct{}      // closed by Close
	cancel   context.CancelFunc // Serve's ctx
	served   chan struct{}      // closed once Serve has returned
	serveErr error              // what Serve returned; read after served

	errMu sync.Mutex // guards err
	err   error

	closeOnce sync.Once
	wg        sync.WaitGroup // the reader, the pump and supervise
}

var (
	_ Conn       = (*PipeConn)(nil)
	_ RawWriter  = (*PipeConn)(nil)
	_ SlowSender = (*PipeConn)(nil)
	_ OwnServer  = (*PipeConn)(nil)
)

// OwnServer is Pipe.OwnServer: whether Serve makes a server of its own
// at each Dial (transport.OwnServer).
func (c *PipeConn) OwnServer() bool { return c.ownServer }

// serve runs Serve, a panic turned into its error, then closes the
// server's ends of the pipes: our reader sees the end of its output, our
// writes fail as to a server that exited.
func (c *PipeConn) serve(ctx context.Context, serve func(context.Context, io.ReadCloser, io.WriteCloser) error) {
	defer close(c.served)
	defer func() { _, _ = c.srvIn.Close(), c.srvOut.Close() }()
	defer func() {
		if v := recover(); v != nil {
			c.log.Error().Str("stack", string(debug.Stack())).Msgf("Serve panicked: %v", v)
			c.serveErr = fmt.Errorf("panic: %v", v)
		}
	}()
	c.serveErr = serve(ctx, c.srvIn, c.srvOut)
}

// Incoming is closed when Serve has returned and its output is read, or
// after Close.
func (c *PipeConn) Incoming() <-chan Incoming { return c.in }

// Arrived is how many messages have been read from the server's output
// and queued for Incoming (ArrivalCounter).
func (c *PipeConn) Arrived() uint64 { return c.out.inbox.pushed.Load() }

// Err is nil while Incoming is open and after Close; when Serve returned
// on its own it is a *ServeError wrapping ErrTarget and Serve's error, and
// when it wrote a line longer than MaxMessage a *TooLargeError.
func (c *PipeConn) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// Send writes msg and a newline to the server's input in one Write. It
// returns when the bytes are in the pipe, or when ctx is done: a server
// that does not read its input before ctx's deadline fails it with an
// error wrapping ErrTarget. A Send cut short in the middle of a line
// leaves the connection unusable (later Sends fail).
func (c *PipeConn) Send(ctx context.Context, msg []byte) error { return c.w.send(ctx, msg) }

// WriteRaw writes p to the server's input as it is: part of a line, or a
// line in pieces. It returns when p is written or ctx is done.
func (c *PipeConn) WriteRaw(ctx context.Context, p []byte) error { return c.w.writeRaw(ctx, p) }

// SendSlow writes msg and its newline in pieces of chunk bytes with pause
// between them.
func (c *PipeConn) SendSlow(ctx context.Context, msg []byte, chunk int, pause time.Duration) error {
	return c.w.sendSlow(ctx, msg, chunk, pause)
}

// Close ends the server's input (EOF), cancels Serve's ctx and stops
// reading its output, then waits up to StopTimeout for Serve to return;
// if it has not, it closes the server's ends of the pipes (its blocked
// reads and writes fail) and waits once more, then leaves it running with
// a logged error. It returns when the connection's own goroutines are
// gone. Idempotent.
func (c *PipeConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		_ = c.w.f.Close()
		c.cancel()
		_ = c.output.Close()
		if !c.waitServed(c.stopTimeout) {
			c.log.Warn().Dur("after", c.stopTimeout).Msg("Serve has not returned since its input ended and its ctx was cancelled; closing its pipes")
			_, _ = c.srvIn.Close(), c.srvOut.Close()
			if !c.waitServed(c.stopTimeout) {
				c.log.Error().Dur("after", 2*c.stopTimeout).Msg("Serve ignores its ctx and its closed pipes; leaving it running")
			}
		}
		c.wg.Wait()
	})
	return nil
}

// waitServed reports whether Serve returned within d.
func (c *PipeConn) waitServed(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.served:
		return true
	case <-t.C:
		return false
	}
}

// supervise closes Incoming once the output is delivered and Serve has
// returned, after setting Err; or, when a line was too long, once the
// lines before it are delivered; or at Close.
func (c *PipeConn) supervise(outputDone <-chan struct{}) {
	defer close(c.in)
	<-outputDone
	if err := c.out.failure(); err != nil {
		select {
		case <-c.closing:
		default:
			c.errMu.Lock()
			c.err = err
			c.errMu.Unlock()
		}
		return
	}
	select {
	case <-c.served:
	case <-c.closing:
		return
	}
	select {
	case <-c.closing:
		return
	default:
	}
	e := &ServeError{Name: c.name, Err: c.serveErr}
	c.log.Debug().Err(e).Msg("server ended")
	c.errMu.Lock()
	c.err = e
	c.errMu.Unlock()
}
