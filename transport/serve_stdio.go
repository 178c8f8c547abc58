package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// ServeStdio serves one client over newline-delimited JSON-RPC — the stdio
// transport, server side: it reads the client's messages from r, one a
// line, and writes what the Session says to w, one message a line and
// nothing else. r and w are the process's stdin and stdout for a server a
// client starts, or any pair of streams.
//
// It opens one Session (SessionInfo.ID "stdio"), whose unsolicited Send
// writes to w too. Each message is handled on its own goroutine, so that
// requests run concurrently and the client's answer to a server request
// reaches the Handle waiting for it; writes are serialized, one whole line
// each. A request read after an initialize request waits until that has
// been handled, so a client that pipelines its requests behind the
// handshake gets the initialize answer first. A batch line is handled message by message. A line that is not
// JSON-RPC is answered with a parse error; a request whose Session fails
// before sending anything for it, with an internal error.
//
// ServeStdio returns when the client closes its end of r (nil, once the
// messages in hand are handled, or after StdioDrain — 10 s by default —
// with those still unanswered cancelled), when ctx is done (ctx's error, the
// handling cancelled), when a line is longer than the maximum message
// (ServerMaxMessage; a *TooLargeError), or when the Session returns
// ErrHangUp (ErrHangUp): then it closes w and r if they are io.Closers, as
// a crashing server would. In every case it waits for the handling in
// progress to return, then closes the Session.
func ServeStdio(ctx context.Context, r io.Reader, w io.Writer, sessions Sessions, opts ...ServerOption) error {
	cfg := newServerConfig(opts)
	lc := NewLineConn(r, w, LineMaxMessage(cfg.maxMessage), LineName("a line of the client's input"))
	parent := ctx // ctx is also cancelled by a hang-up and by drain
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := sessions.Open(ctx, SessionInfo{ID: "stdio", Paces: true})
	if err != nil {
		return err
	}
	srv := &stdioServer{cfg: cfg, lc: lc, s: s, cancel: cancel}
	stop := context.AfterFunc(ctx, func() { _ = lc.Close() }) // unblocks ReadLine
	defer stop()
	s.SetUnsolicited(srv.send)

	readErr := srv.read(ctx)
	srv.drain(cfg.drain)
	closeErr := s.Close()
	switch {
	case srv.hungUp.Load():
		_ = lc.Close()
		return ErrHangUp
	case parent.Err() != nil:
		return parent.Err()
	case readErr != nil && !errors.Is(readErr, io.EOF):
		return readErr
	}
	return closeErr
}

type stdioServer struct {
	cfg    serverConfig
	lc     *LineConn
	wmu    sync.Mutex // held across the pieces of a paced line, so no other line cuts in
	s      Session
	cancel context.CancelFunc
	wg     sync.WaitGroup
	hungUp atomic.Bool
	// handshake is closed when the last initialize request read has been
	// handled; only the read goroutine (dispatch) sets it.
	handshake chan struct{}
}

// drain waits for the messages in hand to be handled, up to d; then it
// cancels their handling and waits for it to return.
func (srv *stdioServer) drain(d time.Duration) {
	done := make(chan struct{})
	go func() { srv.wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		srv.cfg.log.Warn().Dur("after", d).Msg("the client closed its input; the answers still in hand are cancelled")
		srv.cancel()
		<-done
	}
}

// read hands every line to a goroutine of its own until the input ends.
func (srv *stdioServer) read(ctx context.Context) error {
	for {
		line, _, err := srv.lc.ReadLine()
		if len(line) > 0 && ctx.Err() == nil {
			srv.dispatch(ctx, append([]byte(nil), line...))
		}
		if err != nil {
			return err
		}
	}
}

func (srv *stdioServer) dispatch(ctx context.Context, line []byte) {
	m, err := jsonrpc.ParseStrict(line)
	if err != nil {
		_ = srv.send(ctx, errorBody(nil, mcp.CodeParseError, "Parse error: "+err.Error()))
		return
	}
	msgs := []jsonrpc.Message{m}
	if m.Kind == jsonrpc.KindBatch {
		if msgs, err = m.Batch(); err != nil || len(msgs) == 0 {
			_ = srv.send(ctx, errorBody(nil, mcp.CodeInvalidRequest, "Invalid Request: a batch of valid messages expected"))
			return
		}
		if answer := batchTooLong(len(msgs), srv.cfg.maxBatch); answer != nil {
			_ = srv.send(ctx, answer)
			return
		}
	}
	for _, m := range msgs {
		// A request that follows an initialize waits for its answer, as
		// a server that handles the handshake first answers a client
		// that pipelines its requests behind it; the rest go on at once
		// (notifications, and answers to the server's requests, which
		// the handshake itself may wait for).
		var before chan struct{}
		if m.Kind == jsonrpc.KindRequest {
			before = srv.handshake
		}
		var done chan struct{}
		if m.Kind == jsonrpc.KindRequest && m.Method == mcp.MethodInitialize {
			done = make(chan struct{})
			srv.handshake = done
		}
		srv.wg.Go(func() {
			if done != nil {
				defer close(done)
			}
			if before != nil {
				select {
				case <-before:
				case <-ctx.Done():
					return
				}
			}
			srv.handle(ctx, m)
		})
	}
}

// send writes msg as one line: whole, or in pieces when ctx carries a
// pace (WithPace), the newline with the last piece.
func (srv *stdioServer) send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	srv.wmu.Lock()
	defer srv.wmu.Unlock()
	chunk, pause, ok := PaceOf(ctx)
	if !ok {
		return srv.lc.WriteLine(msg)
	}
	line := append(append(make([]byte, 0, len(msg)+1), msg...), '\n')
	return inPieces(ctx, line, chunk, pause, srv.lc.WriteRaw)
}

func (srv *stdioServer) handle(ctx context.Context, m jsonrpc.Message) {
	if handleAnswering(ctx, srv.cfg, srv.s, m, srv.send) {
		srv.hungUp.Store(true)
		srv.cancel()
	}
}

// handleAnswering has s handle one message whose answers go out through
// out, for listeners with one output per session (stdio, legacy SSE). A
// Session that fails (an error other than ctx's or ErrHangUp) without
// having sent anything for a request gets its failure answered as a
// JSON-RPC error, so that the client is not left waiting; otherwise its
// error is only logged, as the Session contract says. It reports whether
// the Session asked to hang up.
func handleAnswering(ctx context.Context, cfg serverConfig, s Session, m jsonrpc.Message, out Send) (hangUp bool) {
	var sent atomic.Bool
	send := func(ctx context.Context, msg []byte) error {
		sent.Store(true)
		return out(ctx, msg)
	}
	err := s.Handle(ctx, m.Raw, send)
	switch {
	case errors.Is(err, ErrHangUp):
		return true
	case ctx.Err() != nil || err == nil:
		return false
	}
	cfg.log.Warn().Err(err).Str("method", Clip(m.Method)).Msg("handle a message")
	if m.Kind == jsonrpc.KindRequest && !sent.Load() {
		_ = out(ctx, errorBody(m.ID, mcp.CodeInternal, "replayctl serve: "+err.Error()))
	}
	return false
}
