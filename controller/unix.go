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
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/report"
)

// maxLine bounds a command line (an injected message included).
const maxLine = 16 << 20

// ServeUnix serves the control protocol (see the package documentation) on
// a Unix socket at path; see Serve. The socket file is removed when it
// returns.
func ServeUnix(ctx context.Context, c *Controller, path string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", path)
	if err != nil {
		if fi, serr := os.Stat(filepath.Dir(path)); serr != nil || !fi.IsDir() {
			return fmt.Errorf("control socket %s: the folder %s does not exist; create it first", path, filepath.Dir(path))
		}
		return fmt.Errorf("control socket %s: %w (is another replay using it? remove a stale file)", path, err)
	}
	return Serve(ctx, c, ln)
}

// Serve serves the control protocol on ln, for any number of clients at
// once, and closes ln when it returns. It returns nil when ctx is done or
// the controller has stopped (after the reply to each client's command in
// progress), or the error of Accept.
func Serve(ctx context.Context, c *Controller, ln net.Listener) error {
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
			g.Go(func() error { serveConn(gctx, c, conn); return nil })
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
// returns when the client hangs up or ctx is done; once the controller has
// stopped, after the reply to the command in progress.
func serveConn(ctx context.Context, c *Controller, conn net.Conn) {
	defer conn.Close()
	updates, unsubscribe := c.Subscribe(64)
	defer unsubscribe()
	replies := make(chan response)
	readDone, writeDone := make(chan struct{}), make(chan struct{})
	var g errgroup.Group
	g.Go(func() error {
		select {
		case <-ctx.Done():
			return conn.Close()
		case <-c.done:
			// Wake the reader without losing the reply being written.
			return conn.SetReadDeadline(time.Now())
		case <-readDone:
			return nil
		}
	})
	g.Go(func() error {
		defer close(writeDone)
		err := writeLoop(ctx, conn, c.redactor, replies, updates, readDone)
		if err != nil {
			conn.Close() // the client is gone: stop reading too
		}
		return err
	})
	g.Go(func() error {
		defer close(readDone)
		return readLoop(ctx, c, conn, replies, writeDone)
	})
	_ = g.Wait() // a client's errors end only that client
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

// writeLoop writes replies and status events until the reader is done.
func writeLoop(ctx context.Context, w io.Writer, rd *report.Redactor, replies <-chan response, updates <-chan Status, readDone <-chan struct{}) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(rd.Writer(bw)) // one value per line, in one Write: redacted whole
	for {
		var v any
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-readDone:
			return nil
		case r := <-replies:
			v = r
		case st, ok := <-updates:
			if !ok {
				updates = nil // stopped: only the last reply is left
				continue
			}
			v = eventLine{Event: "status", Status: toWireStatus(st)}
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}
