package controller

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	stream "github.com/replayctl/replayctl/engine/event"
)

// maxLine bounds a command line (an injected message included).
const maxLine = 16 << 20

// DefaultWriteTimeout is how long a write to a control client may wait
// for the client to read (WriteTimeout changes it).
const DefaultWriteTimeout = 5 * time.Second

// ServeOption configures Serve and ServeUnix.
type ServeOption func(*serveOptions)

type serveOptions struct {
	writeTimeout time.Duration
}

// WriteTimeout bounds each write of a reply or a status event to a client
// (default DefaultWriteTimeout): a client that has not read what was sent
// to it for that long is dropped (hung up on), so that a client that
// sends commands and never reads holds nothing, not even the end of the
// replay. d ≤ 0 keeps the default.
func WriteTimeout(d time.Duration) ServeOption {
	return func(o *serveOptions) {
		if d > 0 {
			o.writeTimeout = d
		}
	}
}

// ServeUnix serves the control protocol (see the package documentation) on
// a Unix socket at path that ListenUnix creates (mode 0600, clients of
// other users refused, a stale file from a killed replay replaced); see
// Serve. The socket file is removed when it returns.
func ServeUnix(ctx context.Context, c *Controller, path string, opts ...ServeOption) error {
	ln, err := ListenUnix(path)
	if err != nil {
		return err
	}
	return Serve(ctx, c, ln, opts...)
}

// Serve serves the control protocol on ln, for any number of clients at
// once, and closes ln when it returns. It returns nil when ctx is done or
// the controller has stopped (after the reply to each client's command in
// progress, written within the write timeout), or the error of Accept. No
// client can hold it longer: each write to a client is bounded by
// WriteTimeout, and when ctx is done every connection is closed at once.
func Serve(ctx context.Context, c *Controller, ln net.Listener, opts ...ServeOption) error {
	o := serveOptions{writeTimeout: DefaultWriteTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		select {
		case <-gctx.Done():
		case <-c.done:
		}
		return ln.Close()
	})
	g.Go(func() error {
		for {
			conn, err := ln.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return nil
				}
				return fmt.Errorf("control socket %s: accept: %w", ln.Addr(), err)
			}
			g.Go(func() error { serveConn(gctx, c, conn, o); return nil })
		}
	})
	err := g.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// serveConn runs one client: commands one at a time, in order, each reply
// written when the command has finished; status events in between. It
// returns when the client hangs up, when a write to it has waited the
// write timeout, or at once when ctx is done; once the controller has
// stopped, after the reply to the command in progress.
func serveConn(ctx context.Context, c *Controller, conn net.Conn, o serveOptions) {
	defer conn.Close()
	updates, unsubscribe := c.Subscribe(64)
	defer unsubscribe()
	replies := make(chan response)
	readDone, writeDone, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() { watchConn(ctx, c, conn, finished) })
	var g errgroup.Group
	g.Go(func() error {
		defer close(writeDone)
		err := writeLoop(ctx, conn, c, o.writeTimeout, replies, updates, readDone)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			c.log.Warn().Dur("write_timeout", o.writeTimeout).Msg("control client dropped: it did not read what was sent to it")
		case err != nil:
			c.log.Debug().Err(err).Msg("control client gone")
		}
		if err != nil {
			conn.Close() // the client is gone, or does not read: stop reading too
		}
		return err
	})
	g.Go(func() error {
		defer close(readDone)
		return readLoop(ctx, c, conn, replies, writeDone)
	})
	_ = g.Wait() // a client's errors end only that client
	close(finished)
	watcher.Wait()
}

// watchConn closes conn when ctx is done, which ends a read or a write
// under way at once, and wakes the reader when the controller stops,
// without losing the reply being written. It returns when finished is
// closed.
func watchConn(ctx context.Context, c *Controller, conn net.Conn, finished <-chan struct{}) {
	stopped := c.done
	for {
		select {
		case <-finished:
			return
		case <-ctx.Done():
			conn.Close()
			return
		case <-stopped:
			_ = conn.SetReadDeadline(time.Now())
			stopped = nil
		}
	}
}

// readLoop reads and runs commands, handing each reply to the writer.
func readLoop(ctx context.Context, c *Controller, r io.Reader, replies chan<- response, writeDone <-chan struct{}) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			var resp response
			if req, derr := decodeRequest(line); derr != nil {
				resp = response{ID: req.ID, Error: derr.Error()}
			} else {
				resp = execute(ctx, c, req)
			}
			select {
			case replies <- resp:
			case <-writeDone:
				return io.ErrClosedPipe
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its end, skipping blank ones; a line
// over maxLine is an error.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("command line over %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r' || line[len(line)-1] == ' ') {
			line = line[:len(line)-1]
		}
		return line, err
	}
}

// deadlineWriter is a connection whose writes can be given a deadline.
type deadlineWriter interface {
	io.Writer
	SetWriteDeadline(t time.Time) error
}

// writeLoop writes replies and status events until the reader is done,
// and the replay's events after a watch command. Each line must be
// written within timeout; else it returns the error.
func writeLoop(ctx context.Context, w deadlineWriter, c *Controller, timeout time.Duration, replies <-chan response, updates <-chan Status, readDone <-chan struct{}) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(c.redactor.Writer(bw)) // one value per line, in one Write: redacted whole
	var watch *Watcher
	var events <-chan stream.Event // nil until watch
	defer func() {
		if watch != nil {
			watch.Close()
		}
	}()
	for {
		var v any
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-readDone:
			return nil
		case r := <-replies:
			if r.watch != nil {
				if watch == nil {
					watch, events = r.watch, r.watch.C
				} else {
					r.watch.Close() // watching already
				}
			}
			v = r
		case st, ok := <-updates:
			if !ok {
				updates = nil // stopped: only the last reply is left
				continue
			}
			v = eventLine{Event: "status", Status: toWireStatus(st, c.start())}
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			v = toStreamLine(e, c.start(), watch.Lost())
		}
		if err := w.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
			return err
		}
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("write to a control client: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write to a control client: %w", err)
		}
	}
}
