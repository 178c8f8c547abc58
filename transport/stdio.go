package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Stdio starts an MCP server as a subprocess, one per Dial, and speaks
// newline-delimited JSON-RPC over its stdin and stdout.
type Stdio struct {
	Command []string // argv; no shell
	Env     []string // extra K=V, added to this process's environment
	Dir     string   // working directory; "" for the current one
	Logger  zerolog.Logger
	// StopTimeout is how long Close waits after closing stdin, and again
	// after SIGTERM, before it kills the server. 0 means 2s.
	StopTimeout time.Duration
	// MaxMessage is the longest stdout line the server may write, in
	// bytes; 0 means DefaultMaxMessage. A longer line ends the
	// connection with a *TooLargeError.
	MaxMessage int
	// OnFault, when set, is told of each stdout line that is not JSON
	// (see Fault), from the connection's reading goroutine; the line is
	// dropped either way.
	OnFault func(Fault)
}

var _ Dialer = Stdio{}

const (
	defaultStopTimeout = 2 * time.Second
	stderrTailBytes    = 4 << 10
	stderrLineBytes    = 64 << 10 // the rest of a longer stderr line is dropped
	stdoutTailBytes    = 1 << 10
	stderrGrace        = 500 * time.Millisecond
)

// Dial starts the server. It returns once the process has started (not
// once it is ready: the initialize handshake tells that), or an error that
// wraps ErrTarget when the command cannot be started.
func (s Stdio) Dial(ctx context.Context, session string) (Conn, error) {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return nil, errors.New("stdio target: no server command given (pass it after --)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := strings.Join(s.Command, " ")
	lc := s.Logger.With().Str("transport", "stdio")
	if session != "" { // a server started before its session is known has none
		lc = lc.Str("session", session)
	}
	log := lc.Logger()
	proc, err := StartProcess(s.Command, ProcessOptions{Env: s.Env, Dir: s.Dir, StopTimeout: s.StopTimeout, DieWithParent: true, Logger: log})
	if err != nil {
		return nil, err
	}
	c := &StdioConn{
		proc:       proc,
		log:        proc.log, // with its pid
		in:         make(chan Incoming),
		closing:    make(chan struct{}),
		stderrTail: newTail(stderrTailBytes),
		stderrDone: make(chan struct{}),
	}
	c.w = ndjsonWriter{f: proc.Stdin(), name: fmt.Sprintf("server %q", name), input: "stdin", closing: c.closing}
	c.out = newNDJSONReader(c.log, "stdout", "a stdout line of "+c.w.name, s.MaxMessage, c.closing)
	c.out.onFault = s.OnFault
	c.log.Debug().Str("command", name).Msg("server started")
	stdoutDone := make(chan struct{})
	c.wg.Add(4)
	go func() { defer c.wg.Done(); c.out.read(proc.Stdout()) }()
	go func() { defer c.wg.Done(); defer close(stdoutDone); c.out.inbox.pump(c.in, c.closing) }()
	go func() { defer c.wg.Done(); defer close(c.stderrDone); c.readStderr() }()
	go func() { defer c.wg.Done(); c.supervise(stdoutDone) }()
	return c, nil
}

// StdioConn is a connection to a server subprocess. Dial returns one as a
// Conn; its extra methods tell about the process.
type StdioConn struct {
	proc *Process
	log  zerolog.Logger

	w   ndjsonWriter  // to stdin
	out *ndjsonReader // from stdout: its inbox holds what is not yet taken from in

	in      chan Incoming
	closing chan struct{} // closed by Close

	stderrTail *tail
	stderrDone chan struct{} // closed when the server's stderr is read to its end

	errMu sync.Mutex // guards err
	err   error

	closeOnce sync.Once
	wg        sync.WaitGroup
}

var _ Conn = (*StdioConn)(nil)

// PID is the server's process id.
func (c *StdioConn) PID() int { return c.proc.PID() }

// OwnServer is true: each Dial starts a server process of its own
// (transport.OwnServer).
func (c *StdioConn) OwnServer() bool { return true }

var _ OwnServer = (*StdioConn)(nil)

// NonJSONLines is how many stdout lines were not JSON and were dropped.
func (c *StdioConn) NonJSONLines() int64 { return c.out.nonJSON.Load() }

// StderrTail is the last few KB the server wrote to stderr.
func (c *StdioConn) StderrTail() string { return c.stderrTail.String() }

// Incoming is closed when the server has closed its stdout and exited, or
// after Close.
func (c *StdioConn) Incoming() <-chan Incoming { return c.in }

// Arrived is how many messages have been read from stdout and queued
// for Incoming (ArrivalCounter).
func (c *StdioConn) Arrived() uint64 { return c.out.inbox.pushed.Load() }

// Err is nil while Incoming is open and after Close; when the server ended
// on its own it is an *ExitError (status, stderr tail) wrapping ErrTarget,
// and when it wrote a line longer than MaxMessage a *TooLargeError.
func (c *StdioConn) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// Send writes msg and a newline to the server's stdin in one Write. It
// returns when the bytes are in the pipe, or when ctx is done; a Send cut
// short in the middle of a line leaves the connection unusable (later
// Sends fail), since the server would read a torn message.
// When the write fails because the server closed its stdin, Send waits
// (up to exitWait, or until ctx is done) for the server to exit and
// returns its *ExitError, with status and stderr tail.
func (c *StdioConn) Send(ctx context.Context, msg []byte) error {
	err := c.w.send(ctx, msg)
	if errors.Is(err, errInputClosed) {
		if exit := c.awaitExit(ctx); exit != nil {
			return exit
		}
	}
	return err
}

// exitWait is how long a Send that found the server's stdin closed waits
// for the server to exit, to say why it stopped.
const exitWait = 2 * time.Second

// awaitExit waits up to exitWait for the server to exit, then up to
// stderrGrace for its last stderr lines, and returns its *ExitError; nil
// when it did not exit in time, or ctx is done, or the connection closed.
func (c *StdioConn) awaitExit(ctx context.Context) *ExitError {
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-c.proc.Exited():
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil
	case <-c.closing:
		return nil
	}
	return c.exitError()
}

// Close closes the server's stdin, waits up to StopTimeout for it to exit,
// then sends SIGTERM, waits again, then SIGKILL. It returns when the
// process and this connection's goroutines are gone. Idempotent.
func (c *StdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.proc.Stop()
		// Children it left behind could keep our pipes open.
		c.proc.KillGroup()
		_ = c.proc.Stdout().Close()
		_ = c.proc.Stderr().Close()
		c.wg.Wait()
	})
	return nil
}

// Kill stops the server at once: SIGKILL to its process group, without
// Close's wait for it to exit on its own (for a server that was sent
// nothing, as when the replay it was started for fails before it
// begins). It returns once the process has exited. Close after it, or
// Kill again, does nothing.
func (c *StdioConn) Kill() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.proc.KillGroup()
		c.proc.Stop() // closes stdin; the process is gone or going
		_ = c.proc.Stdout().Close()
		_ = c.proc.Stderr().Close()
		c.wg.Wait()
	})
	return nil
}

// supervise closes Incoming once stdout is done and the process has
// exited, after setting Err; or, when a stdout line was too long, once the
// lines before it are delivered (the process is left to Close).
func (c *StdioConn) supervise(stdoutDone <-chan struct{}) {
	defer close(c.in)
	<-stdoutDone
	if err := c.out.failure(); err != nil {
		select {
		case <-c.closing:
		default:
			c.setErr(err)
		}
		return
	}
	<-c.proc.Exited()
	select {
	case <-c.closing:
		return
	default:
	}
	e := c.exitError()
	c.log.Debug().Err(e).Msg("server ended")
	c.setErr(e)
}

// exitError is the *ExitError of the exited server. It lets the stderr
// reader catch the last words first, but not forever (stderrGrace): a
// child of the server may hold stderr open.
func (c *StdioConn) exitError() *ExitError {
	t := time.NewTimer(stderrGrace)
	select {
	case <-c.stderrDone:
	case <-t.C:
	case <-c.closing:
	}
	t.Stop()
	e := &ExitError{Command: c.proc.Argv(), Stderr: c.stderrTail.String()}
	if c.out.nonJSON.Load() > 0 {
		e.Stdout = c.out.tail.String()
	}
	var err error
	e.Status, e.Signal, err = c.proc.Status()
	if err != nil {
		e.Signal = "unknown (" + err.Error() + ")"
	}
	return e
}

func (c *StdioConn) setErr(err error) {
	c.errMu.Lock()
	c.err = err
	c.errMu.Unlock()
}

var _ RawWriter = (*StdioConn)(nil)

// WriteRaw writes p to the server's stdin as it is: part of a line, or a
// line in pieces. It returns when p is written or ctx is done.
func (c *StdioConn) WriteRaw(ctx context.Context, p []byte) error { return c.w.writeRaw(ctx, p) }

var _ SlowSender = (*StdioConn)(nil)

// SendSlow writes msg and its newline in pieces of chunk bytes with pause
// between them.
func (c *StdioConn) SendSlow(ctx context.Context, msg []byte, chunk int, pause time.Duration) error {
	return c.w.sendSlow(ctx, msg, chunk, pause)
}

// readStderr logs the server's stderr line by line and keeps its tail.
// Of a line longer than stderrLineBytes it keeps the start.
func (c *StdioConn) readStderr() {
	log := c.log.With().Str("stream", "stderr").Logger()
	r := bufio.NewReaderSize(c.proc.Stderr(), readBufSize)
	var buf []byte
	for {
		line, keep, err := readLine(r, buf, stderrLineBytes)
		buf = keep
		if errors.Is(err, errLineTooLong) {
			line = append(keep[:stderrLineBytes:stderrLineBytes], "…"...)
			err = skipLine(r)
			buf = nil
		}
		if len(buf) > 4*readBufSize {
			buf = nil
		}
		if len(line) > 0 {
			_, _ = c.stderrTail.Write(append(line[:len(line):len(line)], '\n'))
			log.Debug().Msg(clip(line, 4<<10))
		}
		if err != nil {
			return
		}
	}
}
