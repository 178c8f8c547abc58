package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// StdioOption configures Stdio.
type StdioOption func(*stdioOptions)

type stdioOptions struct {
	session      string
	maxMessage   int
	stopTimeout  time.Duration
	stderr       io.Writer
	log          zerolog.Logger
	env          []string
	awaitAnswers bool
	drain        time.Duration // StdioDrain; DefaultDrain unless drainSet
	drainSet     bool
	// beforeEnd, when set (by tests), runs in the proxy before it waits
	// for the end of the recording, given a channel closed once the
	// client's relay has returned.
	beforeEnd func(clientRelayDone <-chan struct{})
}

// StdioAwaitAnswers has the end of the client's input wait for the
// server's answer to every request the client sent (less those it
// cancelled with notifications/cancelled) before the server's stdin is
// closed, or for the server's exit, or for StdioDrain to pass (the
// server's silence, from its first answer on), or for ctx. It is for a client that is a file of messages (`record <
// requests.jsonl`): nothing waits on the answers, and a server that
// drops the requests it is working on when its stdin ends (the go-sdk's
// does) would leave them off the tape. A live client closes its input
// when it no longer wants them. Requests still unanswered when the
// recording ends (the bound passed, or the server exited first) are
// StdioResult.Unanswered, and Stdio's error is an *UnansweredError
// unless another one ends it (ctx's, a failed write).
func StdioAwaitAnswers() StdioOption { return func(o *stdioOptions) { o.awaitAnswers = true } }

// StdioSession names the session the messages are recorded in ("s1" by
// default).
func StdioSession(name string) StdioOption { return func(o *stdioOptions) { o.session = name } }

// StdioMaxMessage is the longest line either side may send, in bytes; 0
// means transport.DefaultMaxMessage. A longer line ends the recording: it
// is neither relayed nor recorded. From the server, the error is a
// *transport.TooLargeError (it matches transport.ErrTarget); from the
// client, a *ClientTooLargeError (it matches ErrClientTooLarge, not
// transport.ErrTarget: the server did nothing wrong).
func StdioMaxMessage(n int) StdioOption { return func(o *stdioOptions) { o.maxMessage = n } }

// ErrClientTooLarge is matched by Stdio's error when the client sent a
// line longer than StdioMaxMessage.
var ErrClientTooLarge = errors.New("record: the client sent a line longer than the limit")

// ClientTooLargeError is Stdio's error when the client sent a line longer
// than StdioMaxMessage. It matches ErrClientTooLarge.
type ClientTooLargeError struct {
	Limit int // the limit, in bytes
}

func (e *ClientTooLargeError) Error() string {
	return fmt.Sprintf("the client sent a line longer than --max-message %s: it was neither relayed nor recorded, and the recording ended; if the client's messages are that large, raise --max-message (record.StdioMaxMessage)", transport.SizeString(e.Limit))
}

// Is makes errors.Is(err, ErrClientTooLarge) true.
func (e *ClientTooLargeError) Is(target error) bool { return target == ErrClientTooLarge }

// StdioStopTimeout is how long the server has to exit once its stdin is
// closed, and again after SIGTERM, before it is killed (2s by default).
func StdioStopTimeout(d time.Duration) StdioOption {
	return func(o *stdioOptions) { o.stopTimeout = d }
}

// StdioStderr is where the server's stderr goes (os.Stderr by default).
// An *os.File is handed to the server as it is: nothing in between.
func StdioStderr(w io.Writer) StdioOption { return func(o *stdioOptions) { o.stderr = w } }

// StdioLogger logs what the proxy notices: lines that are not JSON, how
// the server ended.
func StdioLogger(l zerolog.Logger) StdioOption { return func(o *stdioOptions) { o.log = l } }

// StdioEnv adds K=V pairs to the server's environment.
func StdioEnv(kv ...string) StdioOption {
	return func(o *stdioOptions) { o.env = append(o.env, kv...) }
}

// StdioResult is how a stdio recording ended.
type StdioResult struct {
	// Started: the server process was started (false: it could not be,
	// and the rest is zero).
	Started bool
	// ExitCode is the server's exit status, -1 when a signal ended it
	// (Signal names it).
	ExitCode int
	Signal   string
	// ClientClosed: the client closed its input (the normal end), rather
	// than the server exiting first.
	ClientClosed bool
	// Stopped: the proxy had to signal the server (it did not exit in
	// StopTimeout after its stdin was closed, or the recording was
	// cancelled).
	Stopped bool
	// NonJSONFromClient and NonJSONFromServer count the lines relayed but
	// not recorded because they are not JSON (blank lines are not
	// counted).
	NonJSONFromClient, NonJSONFromServer int64
	// Unanswered (with StdioAwaitAnswers, once the client's input ended)
	// are the client's requests the server had not answered when the
	// recording ended, in the order they were sent, and Asked the
	// server's requests the client had not answered. Drained says
	// StdioDrain passed before every answer came.
	Unanswered, Asked []Unanswered
	Drained           bool
}

// Stdio is the stdio recording proxy. It starts the server argv (no
// shell), relays the client's lines (read from clientIn) to the server's
// stdin and the server's stdout lines to clientOut, and records every
// message through tap, in session "s1" unless StdioSession says otherwise.
//
// Transparency: each line goes on byte for byte as it was read, its end
// ("\n" or "\r\n") included, in the order read; nothing is re-encoded. A
// line is recorded before it is forwarded, so the tape never has an
// answer before its request. A line that is not JSON (a banner, a log
// line a server prints on stdout by mistake) is relayed too, but not
// recorded: it is logged as a warning and counted in the result; blank
// lines are relayed silently. The server's stderr goes to StdioStderr
// (this process's stderr by default). Memory is bounded: a line is held
// only while it passes, and a line over StdioMaxMessage ends the
// recording.
//
// Blocking and the end: Stdio returns when the recording is over and
// every goroutine it started is gone:
//   - the client closed its input (EOF on clientIn): the server's stdin is
//     closed (with StdioAwaitAnswers, once its answers are in or the
//     server has said nothing for StdioDrain), the server has
//     StdioStopTimeout to exit, then gets SIGTERM, then SIGKILL; what it
//     writes meanwhile is still relayed; nil error, or with StdioAwaitAnswers an *UnansweredError
//     naming the requests still unanswered;
//   - the server exited on its own: clientIn is closed if it is an
//     io.Closer (to end a read in progress); nil error if its status was
//     0, else an error wrapping transport.ErrTarget;
//   - ctx is done: the server is stopped as when the client closes its
//     input, and ctx's error is returned;
//   - the tape could not be written, or a line was too long: the server is
//     stopped, and that error is returned.
//
// clientIn and clientOut are closed at the end when they are io.Closers.
// A read of clientIn that closing cannot interrupt (a terminal, a Closer
// whose Close does not end a Read) delays the return until the next line
// or EOF; Recorder.Run gives up on it once its ctx is done (see Client). tap is not closed: the caller
// writes the end line with tap.Close.
func Stdio(ctx context.Context, tap *Tap, clientIn io.Reader, clientOut io.Writer, argv []string, opts ...StdioOption) (StdioResult, error) {
	o := stdioOptions{session: "s1", stopTimeout: defaultStopTimeout, stderr: os.Stderr, log: zerolog.Nop()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.stopTimeout <= 0 {
		o.stopTimeout = defaultStopTimeout
	}
	if len(argv) == 0 || argv[0] == "" {
		return StdioResult{}, errors.New("record: no server command given (pass it after --)")
	}
	if err := ctx.Err(); err != nil {
		return StdioResult{}, err
	}
	srv, err := transport.StartProcess(argv, transport.ProcessOptions{Env: o.env, Stderr: o.stderr,
		StopTimeout: o.stopTimeout, DieWithParent: true, Logger: zerolog.Nop()})
	if err != nil {
		return StdioResult{}, err
	}
	name := strings.Join(argv, " ")
	p := &stdioProxy{
		tap:     tap,
		session: o.session,
		log:     o.log.With().Str("component", "record").Int("pid", srv.PID()).Logger(),
		client: transport.NewLineConn(clientIn, clientOut, transport.LineMaxMessage(o.maxMessage),
			transport.LineName("a line of the client's input")),
		server: transport.NewLineConn(srv.Stdout(), srv.Stdin(), transport.LineMaxMessage(o.maxMessage),
			transport.LineName(fmt.Sprintf("a stdout line of server %q", name))),
	}
	if o.awaitAnswers {
		p.pending = newPendingRequests()
		p.drain = DefaultDrain
		if o.drainSet {
			p.drain = max(o.drain, 0)
		}
	}
	p.beforeEnd = o.beforeEnd
	return p.run(ctx, srv)
}

const (
	defaultStopTimeout = 2 * time.Second
	// stdoutGrace is how long the server's stdout may stay open after it
	// exited (a child it left behind holds it) before it is closed.
	stdoutGrace = 500 * time.Millisecond
)

// stdioProxy is one stdio recording: two relays and the server's life.
type stdioProxy struct {
	tap            *Tap
	session        string
	log            zerolog.Logger
	client, server *transport.LineConn
	nonJSON        [2]atomic.Int64 // from the client, from the server

	failMu sync.Mutex // guards fail
	fail   error      // the first relay error that ends the recording

	pending *pendingRequests // with StdioAwaitAnswers: the requests not yet answered
	drain   time.Duration    // with StdioAwaitAnswers: StdioDrain (0: no bound)
	// clientGone: an answer could not be passed on (the client's output
	// was closed: `| head`).
	clientGone atomic.Bool

	beforeEnd func(clientRelayDone <-chan struct{}) // see stdioOptions
}

// run relays until the recording ends (see Stdio) and tidies up.
func (p *stdioProxy) run(ctx context.Context, srv *transport.Process) (StdioResult, error) {
	var wg sync.WaitGroup
	// The client's relay closes one of upDone (it failed) and clientEOF
	// (the client closed its input), never both: the select below picks
	// at random among the ready cases, and a relay that ended at EOF must
	// always be taken for the client's end. relayed is closed once it
	// returned, either way.
	upDone, downDone := make(chan struct{}), make(chan struct{})
	clientEOF, relayed := make(chan struct{}), make(chan struct{})
	wg.Go(func() {
		defer close(relayed)
		if !p.relay(tape.C2S, p.client, p.server) {
			close(upDone)
			return
		}
		if p.pending != nil {
			p.pending.inputEnded()
		}
		close(clientEOF)
	})
	wg.Go(func() {
		defer close(downDone)
		p.relay(tape.S2C, p.server, p.client)
	})

	if p.beforeEnd != nil {
		p.beforeEnd(relayed)
	}
	res := StdioResult{Started: true}
	var ctxErr error
	// stop closes the server's stdin and stops it. From then on a cancel
	// the server sends of its own questions settles none of them (its
	// input is gone, not answering): see pendingRequests.stop.
	stop := func() bool {
		if p.pending != nil {
			p.pending.stop()
		}
		return srv.Stop()
	}
	// Until the server has exited: an end of the client's input, a failed
	// relay or ctx closes its stdin and stops it; its own exit ends it.
	select {
	case <-srv.Exited():
	case <-clientEOF:
		res.ClientClosed = true
		if p.pending != nil {
			// A file of messages ended: its answers first, for as
			// long as the drain allows.
			res.Drained, ctxErr = p.awaitAnswers(ctx, srv, downDone)
		}
		res.Stopped = stop()
	case <-upDone: // the server no longer reads, or a line too long, or the tape failed
		res.Stopped = stop()
	case <-downDone: // the server closed its stdout, or the client is gone
		res.Stopped = stop()
	case <-ctx.Done():
		ctxErr = ctx.Err()
		select {
		case <-clientEOF: // both were ready: the input had ended
			res.ClientClosed = true
		default:
		}
		res.Stopped = stop()
	}
	<-srv.Exited()
	// What the server wrote before it exited is still relayed; a child it
	// left behind may hold its stdout open: not for long.
	select {
	case <-downDone:
	case <-time.After(stdoutGrace):
	}
	_ = srv.Stdout().Close()
	_ = srv.Stdin().Close()
	// The client's input is no longer read (and a client that does not
	// read its own input any more does not hold the relay up).
	_ = p.client.Close()
	wg.Wait()

	res.ExitCode, res.Signal, _ = srv.Status() // -1 and no signal when unknown
	res.NonJSONFromClient, res.NonJSONFromServer = p.nonJSON[0].Load(), p.nonJSON[1].Load()
	p.log.Debug().Int("status", res.ExitCode).Str("signal", res.Signal).Bool("client_closed", res.ClientClosed).Bool("stopped", res.Stopped).Msg("server ended")
	if p.pending != nil && p.pending.inputHasEnded() {
		// After the server's end: an answer it wrote as it stopped
		// is an answer. Whichever end was seen first (a Ctrl-C as
		// the input ended), the input's requests are all in.
		res.Unanswered, res.Asked = p.pending.left()
	}
	switch {
	case p.failure() != nil:
		return res, p.failure()
	case ctxErr != nil:
		return res, ctxErr
	case !res.ClientClosed && !res.Stopped && (res.ExitCode != 0 || res.Signal != ""):
		return res, &transport.ExitError{Command: srv.Argv(), Status: res.ExitCode, Signal: res.Signal, Stderr: "see its stderr above"}
	case len(res.Unanswered) > 0:
		e := &UnansweredError{Requests: res.Unanswered, Asked: res.Asked, ClientGone: p.clientGone.Load()}
		if res.Drained {
			e.Drain = p.drain
		}
		return res, e
	}
	return res, nil
}

// awaitAnswers waits, once the client's input has ended, for the
// answers still due (StdioAwaitAnswers), the server's exit, the end of
// its relay (downDone) or ctx; drained is true when StdioDrain passed
// first. The drain is an idle bound: it passes once the server has said
// nothing for p.drain since the later of the input's end and its last
// message, so a serial server working through a long queue is not cut
// while it answers; and it does not start before the server's first
// answer, so a server slow to start (npx, uvx, docker run pulling) is
// waited for as a live client would wait. A server that never answers
// anything is waited for until it exits or ctx is done.
func (p *stdioProxy) awaitAnswers(ctx context.Context, srv *transport.Process, downDone <-chan struct{}) (drained bool, ctxErr error) {
	ended := time.Now()
	p.log.Debug().Dur("drain", p.drain).Msg("the client's input ended: waiting for the answers still due")
	up := p.pending.firstAnswer()
	if p.drain <= 0 {
		up = nil // no bound
	}
	var t *time.Timer
	var tick <-chan time.Time
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	// left is how long the drain has still to run.
	left := func() time.Duration {
		from := ended
		if h := p.pending.lastHeard(); h.After(from) {
			from = h
		}
		return p.drain - time.Since(from)
	}
	for {
		select {
		case <-p.pending.allAnswered():
			return false, nil
		case <-srv.Exited():
			return false, nil
		case <-downDone:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-up:
			up = nil
			t = time.NewTimer(max(left(), 0))
			tick = t.C
		case <-tick:
			d := left()
			if d <= 0 {
				return true, nil
			}
			t.Reset(d)
		}
	}
}

// relay passes the lines of from to to until from ends or a line cannot
// be passed on; true when from ended with EOF (the peer closed it).
func (p *stdioProxy) relay(dir tape.Dir, from, to *transport.LineConn) (eof bool) {
	idx := 0
	if dir == tape.S2C {
		idx = 1
	}
	line := 0 // of from
	for {
		msg, raw, err := from.ReadLine()
		if len(raw) > 0 {
			line++
			if ferr := p.pass(dir, idx, line, msg, raw, to); ferr != nil {
				return false
			}
		}
		if err != nil {
			switch {
			case errors.Is(err, io.EOF):
				return true
			case errors.Is(err, transport.ErrClosed), errors.Is(err, os.ErrClosed):
			default:
				var tl *transport.TooLargeError
				switch {
				case errors.As(err, &tl) && dir == tape.C2S:
					p.setFailure(&ClientTooLargeError{Limit: tl.Limit})
				case tl != nil:
					p.setFailure(err)
				default:
					p.log.Debug().Err(err).Str("dir", string(dir)).Msg("reading stopped")
				}
			}
			return false
		}
	}
}

// pass records one line, the line-th of its sender (if it is JSON), and
// forwards its raw bytes. A failure to write the tape is the recording's
// failure; a failure to forward means the other side is gone.
func (p *stdioProxy) pass(dir tape.Dir, idx, line int, msg, raw []byte, to *transport.LineConn) error {
	at := time.Now()
	switch {
	case json.Valid(msg):
		seq, err := p.tap.recordSeq(at, tape.Message{Session: p.session, Dir: dir, Msg: msg})
		if err != nil {
			p.setFailure(err)
			return err
		}
		if p.pending != nil {
			p.pending.saw(dir, msg, line, seq)
		}
	case len(bytes.TrimSpace(msg)) > 0:
		n := p.nonJSON[idx].Add(1)
		who := "client"
		if dir == tape.S2C {
			who = "server"
		}
		p.log.Warn().Int64("count", n).Str("line", clip(msg, 200)).Msgf("the %s wrote a line that is not JSON: relayed, not recorded", who)
	}
	if err := to.WriteRaw(raw); err != nil {
		if dir == tape.S2C {
			p.clientGone.Store(true)
		}
		p.log.Debug().Err(err).Str("dir", string(dir)).Msg("forwarding stopped")
		return err
	}
	return nil
}

func (p *stdioProxy) setFailure(err error) {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	if p.fail == nil {
		p.fail = err
	}
}

func (p *stdioProxy) failure() error {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	return p.fail
}

// clip returns b as a string of at most n bytes, marked when cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
